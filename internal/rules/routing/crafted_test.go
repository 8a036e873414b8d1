package routing

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/crafted from the generator")

// craftedCases are routing faults OpenSM never produces, written as real
// ibnetdiscover + dump_fts text in testdata/crafted/<name>/ so that the
// fabric parsers and `ibdoctor fabric check --from DIR` can be tested end
// to end on them. want lists the finding IDs the analysis must give.
var craftedCases = []struct {
	name  string
	build func(t testing.TB) *Subnet
	want  []string
}{
	{"clean", small2L, nil},
	{"missing-entry", func(t testing.TB) *Subnet {
		f := small2L(t)
		f.Nodes[node(t, f, "spine2")].LFT[5] = NoRoute
		return f
	}, []string{"fabric.route_missing"}},
	{"loop", func(t testing.TB) *Subnet {
		f := small2L(t)
		f.Nodes[node(t, f, "spine1")].LFT[6] = 1
		return f
	}, []string{"fabric.route_loop"}},
	{"nonminimal", func(t testing.TB) *Subnet {
		f := small2L(t)
		f.Nodes[node(t, f, "spine1")].LFT[6] = 3
		f.Nodes[node(t, f, "leaf3")].LFT[6] = 6
		return f
	}, []string{"fabric.route_nonminimal"}},
	{"imbalance", func(t testing.TB) *Subnet {
		f := small2L(t)
		for _, leaf := range []string{"leaf1", "leaf2", "leaf3", "leaf4"} {
			lft := f.Nodes[node(t, f, leaf)].LFT
			for lid := 1; lid <= 16; lid++ {
				if lft[lid] == 6 {
					lft[lid] = 5
				}
			}
		}
		return f
	}, []string{"fabric.route_imbalance"}}, // one cause on four leaves
	{"credit-loop", func(t testing.TB) *Subnet { return ring4(t, [4]bool{true, true, true, true}) }, []string{"fabric.credit_loop"}},
}

func TestCraftedTestdata(t *testing.T) {
	for _, tc := range craftedCases {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.build(t)
			var topo, fts bytes.Buffer
			if err := WriteIBNetDiscover(&topo, f, TopologyOptions{Generated: time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC)}); err != nil {
				t.Fatal(err)
			}
			if err := WriteDumpFTS(&fts, f, DumpOptions{}); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "crafted", tc.name)
			files := map[string][]byte{"ibnetdiscover.txt": topo.Bytes(), "dump_fts.txt": fts.Bytes()}
			for name, want := range files {
				path := filepath.Join(dir, name)
				if *update {
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, want, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s is stale: run go test ./internal/routing -run Crafted -update", path)
				}
			}
			r := analyze(t, loadCapture(t, files["ibnetdiscover.txt"], files["dump_fts.txt"]))
			if got := ids(r.Findings()); !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}
