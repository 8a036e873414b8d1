package fabric

import (
	"testing"
)

// TestParseTrace: ibtracert -f outputs captured under ibsim
// (infiniband-diags 44) on a fabric where leaf1 has no entry for LID 4.
func TestParseTrace(t *testing.T) {
	broken := `ibwarn: [19596] sim_connect: attached as client 0 at node "leaf1"
ibwarn: [19596] mad_rpc: _do_madrpc failed; dport (Lid 4)
ibwarn: [19596] find_route: can't reach to/from ports
ibwarn: [19596] find_route: Force: look for lid 4
ibwarn: [19596] find_route: Bad forwarding table entry found at: node "h1" lid entry 4 is 255 (top 386)
ibwarn: [19596] get_route: can't find a route from src to dest
ibtracert: iberror: failed: Failed to get route information
`
	reached := `From ca {0x0000000000100002} portnum 1 lid 6-6 "h2"
[1] -> switch port {0x0000000000200000}[2] lid 1-1 "leaf1"
[3] -> switch port {0x0000000000200080}[1] lid 257-257 "spine1"
[65] -> switch port {0x0000000000200040}[4] lid 129-129 "leaf65"
[2] -> ca port {0x0000000000100103}[1] lid 8-8 "h130"
To ca {0x0000000000100102} portnum 1 lid 8-8 "h130"
`
	noSrc := `ibwarn: [19649] sim_connect: attached as client 0 at node "leaf1"
ibwarn: [19649] find_route: can't reach to/from ports
ibwarn: [19649] get_route: can't find a route to the src port
ibtracert: iberror: failed: Failed to get route information
`
	tests := []struct {
		name            string
		stdout, stderr  string
		runErr          string
		broken, reached bool
		line, err       string
	}{
		{"broken entry", "From ca {0x0000000000100000} portnum 1 lid 2-2 \"h1\"\n", broken, "ibtracert: exit status 255",
			true, false, `bad forwarding table entry found at: node "h1" lid entry 4 is 255 (top 386)`, ""},
		{"route works", reached, "", "", false, true, `To ca {0x0000000000100102} portnum 1 lid 8-8 "h130"`, ""},
		{"source unreachable", "", noSrc, "ibtracert: exit status 255", false, false, "",
			"ibtracert: can't find a route to the src port"},
		{"missing tool", "", "", "ibtracert not found (install infiniband-diags)", false, false, "", "ibtracert not found (install infiniband-diags)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseTrace([]byte(tt.stdout), []byte(tt.stderr), tt.runErr, nil)
			if got.Broken != tt.broken || got.Reached != tt.reached || got.Line != tt.line || got.Err != tt.err {
				t.Errorf("got %+v", got)
			}
		})
	}
}
