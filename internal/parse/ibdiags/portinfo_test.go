package ibdiags

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestParsePortInfo(t *testing.T) {
	b, err := os.ReadFile("testdata/smpquery-portinfo-ibsim.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		in   string
		want []PortInfo
		err  error
		line int
	}{
		{"ibsim: a CA port and two switch ports", string(b), []PortInfo{
			{LID: 2, Port: 1, LinkState: "Active", NeighborMTU: 2048, MTUCap: 2048, Line: 1},
			{LID: 1, Port: 1, LinkState: "Active", NeighborMTU: 2048, MTUCap: 2048, Line: 61},
			{LID: 4, Port: 2, LinkState: "Active", NeighborMTU: 2048, MTUCap: 2048, Line: 113},
		}, nil, 0},
		{"a failed run between two", "# Port info: Lid 6 port 1\nNeighborMTU:.....................1024\nMtuCap:..........................4096\nibwarn: [123] mad_rpc: _do_madrpc failed; dport (Lid 9)\nsmpquery: iberror: failed: operation portinfo: port info query failed\n# Port info: Lid 3 port 1\nNeighborMTU:.....................4096\n",
			[]PortInfo{{LID: 6, Port: 1, NeighborMTU: 1024, MTUCap: 4096, Line: 1}, {LID: 3, Port: 1, NeighborMTU: 4096, Line: 6}}, nil, 0},
		{"bad MTU", "# Port info: Lid 6 port 1\nNeighborMTU:.....................3000\n", nil, ErrMalformed, 2},
		{"bad header", "# Port info: Lid x port 1\n", nil, ErrMalformed, 1},
		{"nothing", "ibwarn: [1] no SM\n", nil, ErrNoData, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePortInfo(strings.NewReader(tt.in), "pi.txt")
			if tt.err != nil {
				var pe *ParseError
				if !errors.Is(err, tt.err) || !errors.As(err, &pe) || pe.Line != tt.line {
					t.Fatalf("err %v, want %v at line %d", err, tt.err, tt.line)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v", got)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("%d: %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
