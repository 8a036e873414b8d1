package ethlink

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/mlnxqos"
	"github.com/ibdoctor/ibdoctor/internal/parse/onyx"
)

// TestCheckMlnxQoS: PFC on some priority is healthy; PFC on none is
// roce.pfc_disabled.
func TestCheckMlnxQoS(t *testing.T) {
	on, err := mlnxqos.Parse(strings.NewReader("Priority trust state: dscp\nPFC configuration:\npriority 0 1 2 3 4 5 6 7\nenabled 0 0 0 1 0 0 0 0\n"), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if fs := CheckMlnxQoS(on, "p.txt", "eth2"); len(fs) != 0 {
		t.Errorf("PFC on 3: %v", fs)
	}
	if s := MlnxQoSSummary(on); s != "mlnx_qos: trust dscp, PFC on priority 3" {
		t.Errorf("summary %q", s)
	}
	off, err := mlnxqos.Parse(strings.NewReader("Priority trust state: pcp\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   0   0   0   0   0\n"), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	fs := CheckMlnxQoS(off, "p.txt", "eth2")
	if len(fs) != 1 || fs[0].ID != "roce.pfc_disabled" || fs[0].Severity != "warning" || fs[0].Evidence[0].Source != "p.txt:4" || !strings.Contains(fs[0].Summary, "eth2") {
		t.Errorf("%+v", fs)
	}
}

// TestCheckOnyxRoCE: lossless with PFC on the RoCE priority and ECN is
// healthy; PFC off, PFC on another priority, no ECN, RoCE not
// configured are warnings.
func TestCheckOnyxRoCE(t *testing.T) {
	const ok = "RoCE mode : lossless\nPort trust mode: L3\nApplication TLV:\nSelector: udp\nProtocol: 4791\nPriority: 3\n" +
		"Port congestion-control:\nMode: ecn, absolute\nMin : 150\nMax : 1500\nPFC : enabled\nswitch-priority 3: enabled\n"
	for _, tc := range []struct{ name, text, want string }{
		{"healthy", ok, ""},
		{"PFC off", strings.Replace(strings.Replace(ok, "PFC : enabled", "PFC : disabled", 1), "switch-priority 3: enabled\n", "", 1), "roce.pfc_disabled"},
		{"PFC on 4", strings.Replace(ok, "switch-priority 3: enabled", "switch-priority 3: disabled\nswitch-priority 4: enabled", 1), "roce.pfc_disabled"},
		{"no ECN", strings.Replace(ok, "Mode: ecn, absolute", "Mode: none", 1), "roce.ecn_disabled"},
		{"lossy", "RoCE mode : lossy\nPort congestion-control:\nMode: ecn, relative\nPFC : disabled\n", ""},
		{"N/A", "RoCE mode: N/A\n", "roce.ecn_disabled"},
	} {
		o, err := onyx.ParseRoCE(strings.NewReader(tc.text), "p.txt")
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, f := range CheckOnyxRoCE(o, "p.txt") {
			got += f.ID
			if f.Severity != "warning" {
				t.Errorf("%s: %s %s", tc.name, f.ID, f.Severity)
			}
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
