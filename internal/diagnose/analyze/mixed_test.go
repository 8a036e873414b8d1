package analyze

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maybeHeader passes every line header matches: the lines of every
// file in testdata and lines whose blanks are Unicode spaces.
func TestMaybeHeaderPassesHeaders(t *testing.T) {
	var files []string
	for _, g := range []string{"testdata/*", "testdata/*/*"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	checked := 0
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a folder
		}
		ls := Lines(string(b))
		ls = append(ls, "\u00a0CA 'mlx5_0'", "RC Write BW Test\u00a0", "  NodeRecord dump:\u2003", "\u0085hca_id:\tmlx5_0")
		for i, l := range ls {
			prev, next := "", ""
			if i > 0 {
				prev = ls[i-1]
			}
			if i+1 < len(ls) {
				next = ls[i+1]
			}
			for _, hca := range []bool{false, true} {
				if k, _ := header(l, prev, next, hca); k != KindUnknown {
					checked++
					if !maybeHeader(l) {
						t.Errorf("%s:%d: %q is a %s header, maybeHeader says no", p, i+1, l, k)
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d header lines checked", checked)
	}
}

// A big input that holds other tools' outputs besides its kernel or NCCL
// log streams and gives the report the same text read whole gives: each
// output at its lines, with its findings, summaries and skipped lines;
// a log that comes in several runs is one segment streamed, with the
// same faults.
func TestStreamMixedSameAsInMemory(t *testing.T) {
	var ps []piece
	for _, p := range pieces {
		if p.kind != KindEthtool && p.kind != KindIBStatus && p.kind != KindTopo {
			ps = append(ps, p) // (those are indented: the paste would be read whole)
		}
	}
	all, _ := paste(t, ps)
	rw := func(name string) string { return read(t, filepath.Join("realworld", name)) }
	banner := "SLURM_JOB_ID=4242 SLURM_NNODES=2\n ========================   JOB MAP   ========================\n Data for node: gpu01\tNum slots: 8\n\n"
	for _, tt := range []struct {
		name, text string
	}{
		{"job log: banner, ibstat, topo, NCCL log", banner + "$ ibstat\n" + rw("ibstat-gpud-testdata-h100-polling.txt") + "$ nvidia-smi topo -m\n" + rw("nvidia-smi-topo-nccl933-h100-9nic.txt") + gen(3000, ncclFloodLine)},
		{"every kind pasted", all},
		{"logs around pastes", gen(2000, ncclFloodLine) + all + gen(2000, kernelFloodLine) + "```\nprose between\n```\n" + rw("ibv_devinfo-deepep60-cx7-ib-port-down.txt") + gen(500, ncclOnlyLine)},
		{"journal with a preamble", "-- Logs begin at Mon 2024-05-06 10:00:00 UTC, end at Tue 2024-05-07 11:00:00 UTC. --\n" + rw("journalctl-cubecos-733.txt") + rw("ibstat-network-operator-249.txt") + rw("journalctl-opengpu1150-xid45-after-149.txt")},
		{"NCCL log, then perftest and nccl-tests", gen(1500, ncclOnlyLine) + rw("perftest-oci-oke-roce-write-bw-4qp.txt") + rw("ibstat-network-operator-249.txt") + rw("nccl-tests-superbench-allreduce-a100.txt") + gen(10, kernelFloodLine) + rw("ethtool-ethq-tests-mlx5.txt")},
		{"fabric tools in a kernel log", gen(800, kernelFloodLine) + rw("ibnetdiscover-ufm-sdk-small-topo.txt") + rw("iblinkinfo-archwiki-b2b-ddr.txt") + gen(800, kernelFloodLine) + "$ rdma link show\n" + rw("rdma-link-3fs-263.txt")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Year: 2024}
			if _, ok, why := streamKind(tt.text, opts); !ok {
				t.Fatalf("not streamed: %s", why)
			}
			want := AnalyzeText("f", tt.text, opts)
			if len(want.Segments) < 3 {
				t.Fatalf("not mixed: %s", jsonOf(t, want))
			}
			old := streamAbove
			streamAbove = 0
			defer func() { streamAbove = old }()
			for _, n := range []int{1 << 30, 777} {
				got := AnalyzeReader("f", chunkReader{strings.NewReader(tt.text), n}, -1, opts)
				sameReport(t, want, got)
			}
		})
	}
}

// sameReport compares a streamed report with the report of the same
// text read whole: a log in several runs is compared by its findings.
func sameReport(t *testing.T, want, got File) {
	t.Helper()
	split := func(f File) (other []Segment, logs map[Kind][]Segment) {
		logs = map[Kind][]Segment{}
		for _, s := range f.Segments {
			if s.Kind == KindKernel || s.Kind == KindNCCLLog {
				logs[s.Kind] = append(logs[s.Kind], s)
			} else {
				other = append(other, s)
			}
		}
		return other, logs
	}
	wo, wl := split(want)
	gotOther, gl := split(got)
	if w, g := jsonOf(t, wo), jsonOf(t, gotOther); w != g {
		t.Errorf("other outputs differ:\n--- in memory\n%s\n--- streamed\n%s", w, g)
	}
	for _, k := range []Kind{KindKernel, KindNCCLLog} {
		w, g := wl[k], gl[k]
		if len(w) <= 1 {
			if a, b := jsonOf(t, w), jsonOf(t, g); a != b {
				t.Errorf("%s differs:\n--- in memory\n%s\n--- streamed\n%s", k, a, b)
			}
			continue
		}
		if len(g) != 1 {
			t.Errorf("%s: %d segments streamed, want 1", k, len(g))
			continue
		}
		// Read whole, each run is judged alone (a fault in two runs is
		// two findings); streamed, once: the same faults of the same
		// subjects.
		if a, b := findingKeys(File{Segments: w}), findingKeys(File{Segments: g}); !slices.Equal(a, b) {
			t.Errorf("%s findings differ:\n--- in memory\n%s\n--- streamed\n%s", k, a, b)
		}
	}
	if want.NotRecognised != got.NotRecognised || want.Unparsed != got.Unparsed {
		t.Errorf("not recognised %v / unparsed %v streamed, %v / %v in memory", got.NotRecognised, got.Unparsed, want.NotRecognised, want.Unparsed)
	}
}
