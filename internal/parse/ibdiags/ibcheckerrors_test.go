package ibdiags

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseLegacyCheckErrors reads ibcheckerrors output as posted to the
// Open MPI users list (2009): counters with lid and port inline, counters
// without them that belong to the next "Error check" line, and that line
// wrapped by a mail client after "port".
func TestParseLegacyCheckErrors(t *testing.T) {
	type port struct {
		LID, Port int
		All       bool
		Desc      string
		Counters  map[string]uint64
	}
	for _, tc := range []struct {
		name, in string
		want     []port
	}{
		{"inline lid and port",
			"#warn: counter SymbolErrors = 36905     (threshold 10) lid 193 port 14\n#warn: counter LinkDowned = 23  (threshold 10) lid 193 port 14\n" +
				"Error check on lid 193 (ISR9288/ISR9096 Voltaire sLB-24) port 14:  FAILED \n#warn: counter RcvSwRelayErrors = 2417  (threshold 100) lid 193 port 1\n" +
				"Error check on lid 193 (ISR9288/ISR9096 Voltaire sLB-24) port 1:  FAILED \n\n## Summary: 209 nodes checked, 0 bad nodes found\n##          716 ports checked, 103 ports have errors beyond threshold\n",
			[]port{{193, 14, false, "ISR9288/ISR9096 Voltaire sLB-24", map[string]uint64{"SymbolErrorCounter": 36905, "LinkDownedCounter": 23}},
				{193, 1, false, "ISR9288/ISR9096 Voltaire sLB-24", map[string]uint64{"PortRcvSwitchRelayErrors": 2417}}}},
		{"mail-wrapped, no lid on the counters",
			"# ibcheckerrors\n#warn: counter RcvSwRelayErrors = 408   (threshold 100)\nError check on lid 2 (MT47396 Infiniscale-III Mellanox Technologies) port\nall:  FAILED\n" +
				"#warn: counter RcvSwRelayErrors = 179   (threshold 100)\nError check on lid 2 (MT47396 Infiniscale-III Mellanox Technologies) port\n7:  FAILED\n# Checked Switch: nodeguid 0x000b8cffff00551b with failure\n",
			[]port{{2, 0, true, "MT47396 Infiniscale-III Mellanox Technologies", map[string]uint64{"PortRcvSwitchRelayErrors": 408}},
				{2, 7, false, "MT47396 Infiniscale-III Mellanox Technologies", map[string]uint64{"PortRcvSwitchRelayErrors": 179}}}},
		{"tail cut before the verdict line",
			"#warn: counter SymbolErrors = 13151     (threshold 10) lid 193 port 4\n#warn: counter RcvErrors = 109  (threshold 10) lid 193 port 4\n",
			[]port{{193, 4, false, "", map[string]uint64{"SymbolErrorCounter": 13151, "PortRcvErrors": 109}}}},
		{"a port that passed", "Error check on lid 5 (sw) port 3:  OK\n## Summary: 1 nodes checked, 0 bad nodes found\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := ParseQueryErrors(strings.NewReader(tc.in), "e.txt")
			if err != nil {
				t.Fatal(err)
			}
			var got []port
			for _, p := range q.Ports {
				got = append(got, port{p.LID, p.Port, p.All, p.NodeDesc, p.Counters})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := ParseQueryErrors(strings.NewReader("#warn: counter SymbolErrors = lots\n"), "e.txt"); err == nil || !strings.Contains(err.Error(), "e.txt line 1") {
		t.Errorf("bad value: %v", err)
	}
}

// TestParseQueryErrorsUnits: -c prints human units after the value.
func TestParseQueryErrorsUnits(t *testing.T) {
	in := "Errors for \"node1 HCA-1\"\n   GUID 0x0002c90300a1b2c4 port 1: [PortXmitDiscards == 2846 (2.779K)] [SymbolErrorCounter == 65535 (65.535K)]\n"
	q, err := ParseQueryErrors(strings.NewReader(in), "e.txt")
	if err != nil {
		t.Fatal(err)
	}
	if c := q.Ports[0].Counters; c["PortXmitDiscards"] != 2846 || c["SymbolErrorCounter"] != 65535 || q.Ports[0].NodeDesc != "node1 HCA-1" {
		t.Errorf("port = %+v", q.Ports[0])
	}
}
