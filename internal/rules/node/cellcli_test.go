package node

import (
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/cellcli"
)

// TestCheckCellCLI: Active ports with zero counters are healthy; a port
// not Active is port.down, error counters their port findings.
func TestCheckCellCLI(t *testing.T) {
	ok := cellcli.Port{Name: "HCA-1:1", Status: "Active", StatusLine: 2, Counters: []cellcli.Counter{{Name: "symbolErrs", Line: 9}, {Name: "rcvData", Value: 5, Line: 10}}}
	down := cellcli.Port{Name: "HCA-1:2", Status: "Down", StatusLine: 3, Raw: "HCA-1:2 Down"}
	errs := cellcli.Port{Name: "HCA-1:1", Status: "Active", StatusLine: 2, Counters: []cellcli.Counter{{Name: "symbolErrs", Value: 3, Line: 9}, {Name: "rcvErrs", Value: 1, Line: 10}, {Name: "rcvRemotePhysErrs", Value: 2, Line: 11}}}
	for _, tc := range []struct {
		name  string
		ports []cellcli.Port
		want  string
	}{
		{"healthy", []cellcli.Port{ok}, ""},
		{"down", []cellcli.Port{ok, down}, "port.down/critical"},
		{"errors", []cellcli.Port{errs}, "port.symbol_errors/warning port.rcv_errors/warning"},
	} {
		got := ""
		for _, f := range CheckCellCLI(tc.ports, "p.txt") {
			if got != "" {
				got += " "
			}
			got += f.ID + "/" + string(f.Severity)
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
