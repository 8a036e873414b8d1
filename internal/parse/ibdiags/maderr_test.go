package ibdiags

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestParseMADErrors: MrBr-github/lshca#68 reports smpquery and saquery
// failing on mlx5_0 and mlx5_1, each message under the command it came
// from; a bare message takes its port from "on port :1".
func TestParseMADErrors(t *testing.T) {
	const lshca68 = "ERROR - Following cmd returned and error message.\n" +
		"        CMD: smpquery -C mlx5_0 -P 1 NI -D  0,1\n" +
		"        Msg: ibwarn: [1685596] mad_rpc_open_port: client_register for mgmt 1 failed\n" +
		"ERROR - Following cmd returned and error message.\n" +
		"        CMD: saquery SMIR -C mlx5_1 -P 1 0\n" +
		"        Msg: ibwarn: [1685698] sa_get_handle: No SM/SA found on port :1\n" +
		"ibpanic: [1685698] main: Failed to bind to the SA: Success\n"
	type got struct {
		kind       MADErrKind
		tool, dev  string
		port, line int
		class      int
	}
	tests := []struct {
		name, in string
		want     []got
	}{
		{"lshca's report", lshca68, []got{
			{MADNoAgent, "smpquery", "mlx5_0", 1, 12, 1},
			{MADNoSA, "saquery", "mlx5_1", 1, 15, 0},
			{MADNoSA, "saquery", "mlx5_1", 1, 16, 0},
		}},
		// libibnetdisc's timeout under ibswitches (a Chinese IB-tools
		// note) and behind an exporter's log prefix.
		{"SMP timeout", "ibswitches\nsrc/query_smp.c:199; umad (DR path slid 0; dlid 0; 0,1,20,34,4,22,1,5,5 Attr 0x11:0) bad status 110; Connection timed out\n" +
			"2021-04-09 10:00:00,000 - ERROR - src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,13,9,15 Attr 0x11:0) bad status 110; Connection timed out\n" +
			"umad (DR path slid 0; dlid 0; 0,1 Attr 0x11:0) bad status x; Connection timed out\n",
			[]got{{MADTimeout, "", "", 0, 11, 0}, {MADTimeout, "", "", 0, 12, 0}}},
		{"bare message", "ibwarn: [99] sa_get_handle: No SM/SA found on port mlx5_2:2\n", []got{{MADNoSA, "", "mlx5_2", 2, 10, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es, err := ParseMADErrors(strings.NewReader(tt.in), "p.txt", 10)
			if err != nil {
				t.Fatal(err)
			}
			var g []got
			for _, e := range es {
				g = append(g, got{e.Kind, e.Tool, e.Device, e.Port, e.Line, e.Class})
			}
			if !slices.Equal(g, tt.want) {
				t.Errorf("got %+v, want %+v", g, tt.want)
			}
		})
	}
	for _, l := range []string{"ibwarn: [19596] find_route: text", "No SM/SA found on port :1 (prose without the tool's prefix)", "ibwarn: [1] mad_rpc_open_port: client_register for mgmt 1 failed because"} {
		if k, ok := MADErrorLine(l); ok {
			t.Errorf("%q read as %s", l, k)
		}
	}
	if _, err := ParseMADErrors(strings.NewReader("ibwarn: [19596] find_route: text\n"), "p.txt", 1); !errors.Is(err, ErrNoData) {
		t.Errorf("err %v, want ErrNoData", err)
	}
}

func TestSMPTimeoutFields(t *testing.T) {
	es, err := ParseMADErrors(strings.NewReader("src/query_smp.c:199; umad (DR path slid 0; dlid 0; 0,1,20,34 Attr 0x11:0) bad status 110; Connection timed out\n"), "p.txt", 1)
	if err != nil || len(es) != 1 {
		t.Fatalf("%v %+v", err, es)
	}
	if es[0].Path != "DR path slid 0; dlid 0; 0,1,20,34" || es[0].Status != 110 {
		t.Errorf("path %q status %d", es[0].Path, es[0].Status)
	}
}
