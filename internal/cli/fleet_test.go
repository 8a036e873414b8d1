package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
)

// fleetDir writes one bundle per host into a directory, each with its
// faults.
func fleetDir(t *testing.T, nodes map[string][]string) string {
	t.Helper()
	dir := t.TempDir()
	for host, faults := range nodes {
		n, err := simnode.Build(simnode.Options{Profile: "h100-ndr", Host: host, Faults: simnode.MustParseFaults(faults...)})
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, host+".tar.gz"))
		if err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(n.WriteTarGz(f), f.Close()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// check --fleet judges each node and their versions against the majority.
func TestCheckFleet(t *testing.T) {
	// The eight ConnectX-7 (MT4129) of a node; mlx5_8 and mlx5_9 are
	// ConnectX-6 Dx, another firmware line.
	var oldFW []string
	for i := range 8 {
		oldFW = append(oldFW, fmt.Sprintf("fw:mlx5_%d=28.36.1010", i))
	}
	tests := []struct {
		name  string
		nodes map[string][]string
		junk  bool // a file that is no bundle
		code  int
		want  []string // ID@host
	}{
		{"alike", map[string][]string{"gpu001": nil, "gpu002": nil, "gpu003": nil}, false, 0, nil},
		{"one older driver", map[string][]string{"gpu001": nil, "gpu002": nil, "gpu003": nil, "gpu004": {"driver=24.04-0.6.6"}}, false, 1,
			[]string{"host.driver_outlier@gpu004"}},
		{"one node's HCAs on old firmware, one node with a port down", map[string][]string{"gpu001": nil, "gpu002": {"down:mlx5_3/1"}, "gpu003": nil, "gpu004": oldFW}, true, 2,
			[]string{"host.fw_outlier@gpu004", "port.down@gpu002"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fleetDir(t, tt.nodes)
			if tt.junk {
				if err := os.WriteFile(filepath.Join(dir, "broken.tar.gz"), []byte("not gzip"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, stderr, code := run(t, "check", "--fleet", dir, "--format", "json")
			var doc report.Document
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v\n%s\n%s", err, out, stderr)
			}
			var got []string
			for _, f := range doc.Findings {
				got = append(got, f.ID+"@"+f.Subject.Host)
			}
			slices.Sort(got)
			if code != tt.code || !slices.Equal(got, tt.want) {
				t.Errorf("exit %d, findings %v; want %d, %v", code, got, tt.code, tt.want)
			}
			broken := slices.ContainsFunc(doc.Gaps, func(g snapshot.Gap) bool { return strings.HasSuffix(g.Path, "broken.tar.gz") })
			if broken != tt.junk {
				t.Errorf("gap for the broken bundle: %v, want %v (%+v)", broken, tt.junk, doc.Gaps)
			}
		})
	}
	// Refused: --root beside --fleet, and a directory with no node.
	if _, _, code := run(t, "check", "--fleet", t.TempDir(), "--root", "/"); code != 3 {
		t.Errorf("--root with --fleet: exit %d, want 3", code)
	}
	if _, stderr, code := run(t, "check", "--fleet", t.TempDir()); code != 3 || !strings.Contains(stderr, "no readable node") {
		t.Errorf("empty fleet: exit %d %q, want 3", code, stderr)
	}
}
