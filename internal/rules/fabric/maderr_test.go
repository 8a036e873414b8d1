package fabric

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
)

// TestCheckMADErrors: saquery's "No SM/SA found on port" (MrBr-github/lshca#68)
// is fabric.sm_missing as a warning, naming the ports and the RoCE
// alternative; smpquery's client_register failure alone judges nothing.
func TestCheckMADErrors(t *testing.T) {
	noSA := ibdiags.MADError{Kind: ibdiags.MADNoSA, Tool: "saquery", Device: "mlx5_0", Port: 1, Line: 11, Text: "Msg: ibwarn: [1685604] sa_get_handle: No SM/SA found on port :1"}
	noAgent := ibdiags.MADError{Kind: ibdiags.MADNoAgent, Class: 1, Tool: "smpquery", Device: "mlx5_0", Port: 1, Line: 5, Text: "Msg: ibwarn: [1685596] mad_rpc_open_port: client_register for mgmt 1 failed"}
	tests := []struct {
		name string
		errs []ibdiags.MADError
		find bool
		says []string
	}{
		{"no SM/SA and no agent", []ibdiags.MADError{noAgent, noSA}, true,
			[]string{"saquery found no SM/SA on mlx5_0 port 1", "Ethernet (RoCE) port", "smpquery could not register its MAD agent for management class 1"}},
		{"no SM/SA alone", []ibdiags.MADError{noSA}, true, []string{"saquery found no SM/SA on mlx5_0 port 1"}},
		{"no agent alone", []ibdiags.MADError{noAgent}, false, []string{"smpquery could not register", "nothing about the port or the fabric can be judged"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, note := CheckMADErrors(tt.errs, "p.txt")
			text := note
			if tt.find {
				if len(fs) != 1 || fs[0].ID != "fabric.sm_missing" || fs[0].Severity != finding.Warning || fs[0].Subject.Device != "mlx5_0" || note != "" {
					t.Fatalf("findings %+v note %q", fs, note)
				}
				text = fs[0].Summary
				if fs[0].Evidence[0].Source != "p.txt:11" { // the SA message first
					t.Errorf("evidence %+v", fs[0].Evidence)
				}
			} else if len(fs) != 0 || note == "" {
				t.Fatalf("findings %+v note %q", fs, note)
			}
			for _, s := range tt.says {
				if !strings.Contains(text, s) {
					t.Errorf("%q lacks %q", text, s)
				}
			}
		})
	}
}

// TestCheckSMPTimeouts: libibnetdisc's "bad status 110; Connection timed
// out" lines (ibswitches in a Chinese IB-tools note; an exporter's log of
// ibqueryerrors) are one fabric.smp_timeout warning naming the paths.
func TestCheckSMPTimeouts(t *testing.T) {
	to := func(path string, line int) ibdiags.MADError {
		return ibdiags.MADError{Kind: ibdiags.MADTimeout, Path: "DR path slid 0; dlid 0; " + path, Status: 110, Line: line,
			Text: "src/query_smp.c:199; umad (DR path slid 0; dlid 0; " + path + " Attr 0x11:0) bad status 110; Connection timed out"}
	}
	fs, note := CheckMADErrors([]ibdiags.MADError{to("0,1,20,34,4,22,1,5,5", 5), to("0,1,19,5,18", 20), to("0,1,19,5,18", 21)}, "p.txt")
	if len(fs) != 1 || fs[0].ID != "fabric.smp_timeout" || fs[0].Severity != finding.Warning || note != "" {
		t.Fatalf("findings %+v note %q", fs, note)
	}
	for _, s := range []string{"2 directed routes (0,1,20,34,4,22,1,5,5; 0,1,19,5,18)", "status 110, ETIMEDOUT", "each path"} {
		if !strings.Contains(fs[0].Summary, s) {
			t.Errorf("summary %q lacks %q", fs[0].Summary, s)
		}
	}
	if len(fs[0].Evidence) != 3 || fs[0].Evidence[0].Source != "p.txt:5" {
		t.Errorf("evidence %+v", fs[0].Evidence)
	}
}
