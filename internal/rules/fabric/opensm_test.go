package fabric

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/parse/opensm"
)

// TestCheckOpenSMLog: the linux-rdma/opensm issues of OpenSM 3.3.23
// failing its bind after a kernel update (Exiting SM: fabric.sm_missing,
// critical) and of 3.3.21 crashing in LASH (fabric.sm_crashed); errors
// of an SM that went on to be master are fabric.sm_log_errors.
func TestCheckOpenSMLog(t *testing.T) {
	const bind = "  138670 [F0D43740] 0x03 -> OpenSM 3.3.23\n" +
		"  165028 [F0D43740] 0x01 -> osm_vendor_bind: ERR 5426: Unable to register class 129 version 1\n" +
		"  165162 [F0D43740] 0x01 -> osm_sm_bind: ERR 2E10: SM MAD Controller bind failed (IB_ERROR)\n" +
		"  165630 [F0D43740] 0x80 -> Exiting SM\n"
	const restarted = bind + "Oct 29 10:12:01 000100 [A1B2] 0x03 -> OpenSM 3.3.23\nOct 29 10:12:02 000200 [A1B2] 0x80 -> Entering MASTER state\n"
	const crash = "Signal: 11\nSourcePackage: opensm\n #0 0x00005636f04835a9 in get_next_switch (p_lash=0x1, link=<optimized out>, sw=0) at osm_ucast_lash.c:337\n"
	tests := []struct {
		name, in string
		want     []string
		says     string
	}{
		{"bind failure then exit", bind, []string{"fabric.sm_missing/critical"}, "after 2 error messages (the first: osm_vendor_bind: ERR 5426"},
		{"exit then a restart to master", restarted, []string{"fabric.sm_log_errors/warning"}, "codes 5426, 2E10"},
		{"LASH segfault", crash, []string{"fabric.sm_crashed/warning"}, "signal 11 (SIGSEGV, a segmentation fault) in get_next_switch (osm_ucast_lash.c:337), in the LASH routing engine"},
		{"a clean start", "000100 [A1B2] 0x03 -> OpenSM 3.3.23\n000200 [A1B2] 0x80 -> Entering MASTER state\n000300 [A1B2] 0x80 -> SUBNET UP\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := opensm.Parse(strings.NewReader(tt.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckOpenSMLog(lg, "p.txt")
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			if tt.says != "" && !strings.Contains(fs[0].Summary, tt.says) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.says)
			}
			if len(fs) > 0 && fs[0].Severity == finding.Critical && !strings.Contains(fs[0].Causes[0], "register its management classes") {
				t.Errorf("causes %v", fs[0].Causes)
			}
		})
	}
}

// TestCheckSaturated: infiniband-exporter's maxed-out lines are one
// port.counter_saturated warning per port, naming its counters.
func TestCheckSaturated(t *testing.T) {
	ss := []ibdiags.Saturated{
		{GUID: "0xc42a10300dd0c0e", Port: 1, Counter: "PortRcvErrors", Line: 8},
		{GUID: "0x506b4b03007d8621", Port: 1, Counter: "PortXmitDiscards", Line: 14},
		{GUID: "0xc42a10300dd0c0e", Port: 1, Counter: "SymbolErrorCounter", Line: 20},
	}
	fs := CheckSaturated(ss, "p.txt")
	if len(fs) != 2 || fs[0].ID != "port.counter_saturated" || fs[0].Severity != finding.Warning || fs[0].Subject.NodeGUID != "0xc42a10300dd0c0e" {
		t.Fatalf("%+v", fs)
	}
	if !strings.Contains(fs[0].Summary, "PortRcvErrors, SymbolErrorCounter") || len(fs[0].Evidence) != 2 {
		t.Errorf("%q %+v", fs[0].Summary, fs[0].Evidence)
	}
}
