package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
		ls = append(ls, "\u00a0CA 'mlx5_0'", "RC Write BW Test\u00a0", "  NodeRecord dump:\u2003", "\u0085hca_id:\tmlx5_0", "x ibdiagnet2.lst", "\tsaved in  ibdiagnet2.db_csv \t")
		for i, l := range ls {
			prev, next := "", ""
			if i > 0 {
				prev = ls[i-1]
			}
			if i+1 < len(ls) {
				next = ls[i+1]
			}
			for _, hca := range []bool{false, true} {
				if k, _ := header(l, prev, "", next, hca, !hca); k != KindUnknown {
					checked++
					if !maybeHeader(l, maybePrompt(l)) {
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

// lower sets *v to n for the test.
func lower(t *testing.T, v *int, n int) {
	old := *v
	*v = n
	t.Cleanup(func() { *v = old })
}

// An output other than the logs bigger than what is kept, past the
// outputs judged, or, for the parsers that read an output at its line
// numbers, past the line they may start at, is skipped with a note that
// names its lines; the logs around it are judged as they are alone.
func TestStreamBoundsOutputs(t *testing.T) {
	big := "CA 'mlx5_0'\n" + strings.Repeat("\t\tRate: 400\n", 8000) // 96 kB
	small := read(t, filepath.Join("realworld", "ibstat-network-operator-249.txt"))
	smallLines := strings.Count(small, "\n")
	perf := read(t, filepath.Join("realworld", "perftest-oci-oke-roce-write-bw-4qp.txt"))
	perfLines := strings.Count(perf, "\n")
	for _, tt := range []struct {
		name   string
		bound  *int
		to     int
		text   string
		kind   Kind // of the outputs judged and skipped
		judged int
		want   string // the note, on the skipped output or the last segment
	}{
		{"one output too big", &maxKeptOutput, 64 << 10, gen(500, ncclOnlyLine) + big + gen(500, kernelFloodLine), KindIBStat, 0,
			"lines 501-8501 skipped (8001 lines, 0.2 MiB of ibstat output): segment too big to judge in a streamed file (more than the 64 KiB of one output kept to judge it whole); cut it out into a file of its own: sed -n '501,8501p' f"},
		{"outputs kept reach the bound", &maxKept, 3*len(small) + 40*smallLines, gen(500, ncclOnlyLine) + small + gen(10, kernelFloodLine) + small + gen(10, kernelFloodLine) + small + gen(10, kernelFloodLine) + small + gen(10, kernelFloodLine),
			KindIBStat, 2, fmt.Sprintf("lines %d-%d skipped", 500+2*(smallLines+10)+1, 500+3*smallLines+20)},
		{"too many outputs", &maxOutputs, 3, strings.Repeat(gen(20, ncclOnlyLine)+small, 5), KindIBStat, 3,
			fmt.Sprintf("2 more outputs between lines %d and %d not judged: a streamed file's first 3 are", 3*(20+smallLines)+21, 5*(20+smallLines))},
		{"perftest past the lines padded", &maxPadLines, 400, gen(500, ncclOnlyLine) + perf, KindPerftest, 0,
			fmt.Sprintf("lines 501-%d skipped (%d lines, 0.0 MiB of perftest output): segment too big to judge in a streamed file (its parser reads the 500 lines above it as blank ones, and the lines so read for the outputs of this file would pass 400); cut it out into a file of its own: sed -n '501,%dp' f", 500+perfLines, perfLines, 500+perfLines)},
		{"ibstat past the lines padded", &maxPadLines, 400, gen(500, ncclOnlyLine) + small, KindIBStat, 1, ""},
		{"perftests past the lines padded in all", &maxPadLines, 900, gen(300, ncclOnlyLine) + perf + small + gen(300, kernelFloodLine) + perf, KindPerftest, 1,
			fmt.Sprintf("lines %d-%d skipped", 600+perfLines+smallLines+1, 600+2*perfLines+smallLines)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lower(t, tt.bound, tt.to)
			got := streamed(t, "f", tt.text, Options{Year: 2026})
			judged, notes := 0, []string{}
			for _, s := range got.Segments {
				notes = append(notes, s.Skipped...)
				if s.Kind == tt.kind && !s.Failed {
					judged++
				}
				if s.Kind == tt.kind && s.Failed && s.Summary != "not judged: too big" {
					t.Errorf("skipped output's summary %q", s.Summary)
				}
			}
			if judged != tt.judged {
				t.Errorf("%d %s outputs judged, want %d: %s", judged, tt.kind, tt.judged, jsonOf(t, got))
			}
			if tt.want != "" && !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, tt.want) }) {
				t.Errorf("no note %q in\n%s", tt.want, strings.Join(notes, "\n"))
			}
			// The logs give what they give alone.
			var alone strings.Builder
			for _, l := range strings.SplitAfter(tt.text, "\n") {
				if member(l) == KindKernel || member(l) == KindNCCLLog {
					alone.WriteString(l)
				}
			}
			logs := func(f File) []string {
				var out []string
				for _, s := range f.Segments {
					if s.Kind == KindKernel || s.Kind == KindNCCLLog {
						for _, x := range s.Findings {
							out = append(out, x.ID+" "+x.Summary)
						}
					}
				}
				return out
			}
			if g, w := logs(got), logs(streamed(t, "f", alone.String(), Options{Year: 2026})); !slices.Equal(g, w) || len(w) == 0 {
				t.Errorf("the logs' findings\n%q\nalone\n%q", g, w)
			}
		})
	}
}

// An output of another tool hundreds of MiB long in a streamed log is
// skipped without being held: the heap stays small, the note names its
// lines, the log around it is judged.
func TestStreamHugeOutputMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB")
	}
	const size = 200 << 20
	const bound = 48 << 20
	const rows = (size - (1 << 20)) / 12 // lines of "\t\tRate: 400\n"
	runtime.GC()
	var peak uint64
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	line := func(i int) string {
		switch {
		case i < 2000 || i > 2000+rows:
			return ncclOnlyLine(i)
		case i == 2000:
			return "CA 'mlx5_0'\n"
		}
		return "\t\tRate: 400\n"
	}
	g := &genReader{line: line, left: size, sample: sample}
	f := AnalyzeReader("big.log", g, -1, Options{Year: 2026})
	sample()
	if len(f.Segments) != 2 || f.Segments[0].Kind != KindNCCLLog || len(f.Segments[0].Findings) == 0 || f.Segments[1].Kind != KindIBStat || !f.Segments[1].Failed {
		t.Fatalf("not analysed: %s", jsonOf(t, f))
	}
	if want := fmt.Sprintf("lines 2001-%d skipped (%d lines, ", 2001+rows, rows+1); !strings.HasPrefix(f.Segments[1].Skipped[0], want) {
		t.Errorf("note %q, want %q…", f.Segments[1].Skipped[0], want)
	}
	t.Logf("heap in use at most %d MiB over %d MiB read", peak>>20, size>>20)
	if peak > bound {
		t.Errorf("heap in use reached %d MiB analysing %d MiB: not bounded (limit %d MiB)", peak>>20, size>>20, bound>>20)
	}
}

// A clone of a doc copies the lines of a part when one of them changes,
// not before: the other parts stay shared, the original unchanged.
func TestDocCloneCopiesOnWrite(t *testing.T) {
	d := &doc{parts: []part{{start: 3, ls: []string{"a", "b"}}, {start: 10, ls: []string{"c"}}}, above: map[int]string{9: "above"}}
	c := d.clone()
	c.set(4, "B")
	c.set(7, "nowhere") // a line no part holds: nothing to change
	if d.line(4) != "b" || c.line(4) != "B" || c.line(3) != "a" || c.line(9) != "above" || c.line(7) != "" {
		t.Errorf("original %q %q, clone %q %q %q %q", d.line(3), d.line(4), c.line(3), c.line(4), c.line(9), c.line(7))
	}
	if &c.parts[1].ls[0] != &d.parts[1].ls[0] {
		t.Error("a part without a changed line was copied")
	}
	if got := c.lines(Span{Start: 3, End: 4}); !slices.Equal(got, []string{"a", "B"}) {
		t.Errorf("lines %q", got)
	}
}
