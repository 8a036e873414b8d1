package analyze

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// The ibdiagnet samples live with their parser.
func readIBDiagnet(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "parse", "ibdiagnet", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const (
	ibdiagnetV1 = "ibdiagnet-archwiki-ibdiagnet1-ddr.txt"
	ibdiagnetV2 = "ibdiagnet-ydanzig-logparsertask.txt"
)

// Each sample alone is recognised as one ibdiagnet output and judged.
func TestIBDiagnetSamples(t *testing.T) {
	tests := []struct {
		file     string
		lines    int
		findings []string
		summary  string
		exit     int
	}{
		{ibdiagnetV1, 67, []string{}, "ibdiagnet 1.x: 2 nodes (0 switches, 2 CAs); 8 stages: 0 errors, 1 warning", finding.ExitHealthy},
		{ibdiagnetV2, 195, []string{"fabric.link_degraded/critical", "fabric.link_degraded/critical"},
			"ibdiagnet (IBDIAGNET 2.7.0.MLNX20210617.4883fca): 42 nodes (6 switches, 31 CAs, 5 aggregation nodes), 58 links; 11 stages: 15 errors, 19 warnings", finding.ExitCritical},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rep := Run([]Input{{Name: tt.file, Text: readIBDiagnet(t, tt.file)}}, Options{})
			segs := rep.Files[0].Segments
			if len(segs) != 1 || segs[0].Kind != KindIBDiagnet || segs[0].Start != 1 || segs[0].End != tt.lines {
				t.Fatalf("segments %+v", segs)
			}
			if segs[0].Summary != tt.summary {
				t.Errorf("summary %q, want %q", segs[0].Summary, tt.summary)
			}
			if got := ids(rep.Findings); !slices.Equal(got, tt.findings) {
				t.Errorf("findings %v, want %v", got, tt.findings)
			}
			if rep.ExitCode != tt.exit {
				t.Errorf("exit %d, want %d", rep.ExitCode, tt.exit)
			}
			for _, f := range rep.Findings {
				for _, e := range f.Evidence {
					if !strings.HasPrefix(e.Source, tt.file+":") {
						t.Errorf("evidence %q does not name file and line", e.Source)
					}
				}
			}
		})
	}
}

// Two runs in one paste are two outputs, each judged alone.
func TestIBDiagnetTwoRuns(t *testing.T) {
	v1, v2 := readIBDiagnet(t, ibdiagnetV1), readIBDiagnet(t, ibdiagnetV2)
	fr := AnalyzeText("runs.txt", v1+v2, Options{})
	if len(fr.Segments) != 2 || fr.Segments[0].End != 67 || fr.Segments[1].Start != 68 || fr.Segments[1].Kind != KindIBDiagnet {
		t.Fatalf("segments %+v", fr.Segments)
	}
	if !strings.Contains(fr.Segments[0].Summary, "8 stages") || !strings.Contains(fr.Segments[1].Summary, "11 stages: 15 errors") {
		t.Errorf("summaries %q / %q", fr.Segments[0].Summary, fr.Segments[1].Summary)
	}
}

// Excerpts as people paste them: after a prose line (the 1.x section
// heading starts the output), and indented by four spaces after a root
// prompt (the prompt belongs to the output).
func TestIBDiagnetPastedExcerpts(t *testing.T) {
	tests := []struct {
		file       string
		start, end int
		findings   []string
	}{
		{"ibdiagnet-ompi-users-2009-ipoib-rate.txt", 3, 8, []string{"fabric.link_degraded/critical"}},
		{"ibdiagnet-archwiki-zh-indented.txt", 1, 69, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rep := Run([]Input{{Name: tt.file, Text: readIBDiagnet(t, tt.file)}}, Options{})
			var seg *Segment
			for i, s := range rep.Files[0].Segments {
				if s.Kind == KindIBDiagnet {
					seg = &rep.Files[0].Segments[i]
				}
			}
			if seg == nil || seg.Start != tt.start || seg.End != tt.end {
				t.Fatalf("segments %+v", rep.Files[0].Segments)
			}
			if got := ids(rep.Findings); !slices.Equal(got, tt.findings) {
				t.Errorf("findings %v, want %v", got, tt.findings)
			}
			for _, sk := range seg.Skipped {
				if strings.Contains(sk, "not a line ibdiagnet prints") {
					t.Errorf("a line of the output was skipped: %s", sk)
				}
			}
		})
	}
}

// A markdown note with the 1.x stage table in a fence: the segment starts
// at the prompt, ends at the fence, and the counted link speed warnings
// are judged.
func TestIBDiagnetTableInNote(t *testing.T) {
	const name = "ibdiagnet1-table-rdma-note-zh.md"
	rep := Run([]Input{{Name: name, Text: readIBDiagnet(t, name)}}, Options{})
	var seg *Segment
	for i, s := range rep.Files[0].Segments {
		if s.Kind == KindIBDiagnet {
			seg = &rep.Files[0].Segments[i]
		}
	}
	if seg == nil || seg.Start != 64 || seg.End != 75 {
		t.Fatalf("segments %+v", rep.Files[0].Segments)
	}
	if got := ids(rep.Findings); !slices.Equal(got, []string{"fabric.link_degraded/warning"}) || rep.ExitCode != finding.ExitWarning {
		t.Errorf("findings %v exit %d", got, rep.ExitCode)
	}
	if len(seg.Skipped) != 1 || !strings.HasPrefix(seg.Skipped[0], name+":75: 1 ibdiagnet warning in IPoIB Subnets Check") {
		t.Errorf("skipped %q", seg.Skipped)
	}
}

// ibdiagnet between other tools' outputs in one paste: split at its
// banner, its evidence names the paste's line numbers.
func TestIBDiagnetInPaste(t *testing.T) {
	ibstat := read(t, "ibstat-cx6-ib-down-nccl-tests-128.txt")
	v2 := strings.ReplaceAll(readIBDiagnet(t, ibdiagnetV2), "\r\n", "\n")
	dmesg := read(t, "dmesg-T-flaps.txt")
	text := ibstat + "$ ibdiagnet\n" + v2 + dmesg
	off := strings.Count(ibstat, "\n") + 1 // the prompt line
	fr := AnalyzeText("paste.txt", text, Options{})
	var kinds []Kind
	for _, s := range fr.Segments {
		kinds = append(kinds, s.Kind)
	}
	if !slices.Equal(kinds, []Kind{KindIBStat, KindIBDiagnet, KindKernel}) {
		t.Fatalf("kinds %v", kinds)
	}
	ib := fr.Segments[1]
	if ib.Start != off || ib.End != off+195 {
		t.Errorf("ibdiagnet segment %d-%d, want %d-%d (from its prompt)", ib.Start, ib.End, off, off+195)
	}
	found := false
	for _, f := range ib.Findings {
		for _, e := range f.Evidence {
			if strings.Contains(e.Value, "Unexpected width") {
				found = true
				if want := "paste.txt:" + strconv.Itoa(off+101); e.Source != want {
					t.Errorf("link line evidence at %s, want %s", e.Source, want)
				}
			}
		}
	}
	if !found {
		t.Errorf("no width evidence in %+v", ib.Findings)
	}
}

// Excerpts: a stage block without the banner is recognised by its lines;
// a file header line names ibdiagnet2.log; --kind ibdiagnet forces it.
func TestIBDiagnetExcerpts(t *testing.T) {
	v2 := strings.Split(strings.ReplaceAll(readIBDiagnet(t, ibdiagnetV2), "\r\n", "\n"), "\n")
	speedWidth := strings.Join(v2[94:101], "\n") + "\n" // lines 95-101: the Speed / Width stage
	tests := []struct {
		name     string
		text     string
		kind     Kind
		findings []string
		failed   bool
	}{
		{"stage block alone", speedWidth, KindUnknown, []string{"fabric.link_degraded/critical", "fabric.link_degraded/critical"}, false},
		{"log file header", "==> /var/tmp/ibdiagnet2/ibdiagnet2.log <==\n" + speedWidth, KindUnknown, []string{"fabric.link_degraded/critical", "fabric.link_degraded/critical"}, false},
		{"summary table alone", strings.Join(v2[167:181], "\n") + "\n", KindUnknown, []string{"fabric.ibdiagnet_error/warning"}, false},
		{"forced kind", strings.Join(v2[98:101], "\n") + "\n", KindIBDiagnet, []string{"fabric.link_degraded/critical"}, false},
		{"forced kind on other text", read(t, "sminfo-master.txt"), KindIBDiagnet, []string{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("x.txt", tt.text, Options{Kind: tt.kind})
			var fs []finding.Finding
			var seg *Segment
			for i, s := range fr.Segments {
				fs = append(fs, s.Findings...)
				if s.Kind == KindIBDiagnet {
					seg = &fr.Segments[i]
				}
			}
			if seg == nil {
				t.Fatalf("no ibdiagnet segment: %+v", fr.Segments)
			}
			if got := ids(fs); !slices.Equal(got, tt.findings) {
				t.Errorf("findings %v, want %v", got, tt.findings)
			}
			if seg.Failed != tt.failed {
				t.Errorf("failed %v, want %v: %v", seg.Failed, tt.failed, seg.Skipped)
			}
			if tt.failed && (len(seg.Skipped) == 0 || !strings.Contains(seg.Skipped[0], "x.txt: no ibdiagnet output found")) {
				t.Errorf("failure not explained with the file: %v", seg.Skipped)
			}
		})
	}
}

// Lines inside ibdiagnet output that are not ibdiagnet's are reported as
// skipped with their line numbers.
func TestIBDiagnetSkippedLines(t *testing.T) {
	v1 := readIBDiagnet(t, ibdiagnetV1)
	text := strings.Replace(v1, "-I- Done. Run time was 0 seconds.", "-I- Done. Run time was 0 seconds.\nsee the attached screenshot", 1)
	fr := AnalyzeText("mail.txt", text, Options{})
	if len(fr.Segments) != 1 {
		t.Fatalf("segments %+v", fr.Segments)
	}
	if !slices.ContainsFunc(fr.Segments[0].Skipped, func(s string) bool { return strings.HasPrefix(s, "mail.txt:68: not a line ibdiagnet prints") }) {
		t.Errorf("skipped %q", fr.Segments[0].Skipped)
	}
}

func TestParseKindIBDiagnet(t *testing.T) {
	if k, ok := ParseKind("ibdiagnet"); !ok || k != KindIBDiagnet {
		t.Errorf("ParseKind(ibdiagnet) = %q %v", k, ok)
	}
}

// TestIBDiagnetLinkMessagesInProse: a manual's page quoting the errors
// of a run with --ls (docs.nvidia.com, ibdiagnet "Fabric Links
// Validation") is read: the links are named, and the summary says they
// differ from what the run expected, not from what both ends support.
func TestIBDiagnetLinkMessagesInProse(t *testing.T) {
	in := "Specifies expected link speed\n\nibdiagnet --ls 50\n\nThe following error will be reported for non-HDR links:\n\n" +
		"-E- Link: Sec0d9a0300246e30/Nec0d9a0300246e30/P19<-->switch-004/U1/P20 - Unexpected actual link speed 25\n" +
		"-E- Link: Sec0d9a0300246e30/Nec0d9a0300246e30/P20<-->switch-004/U1/P16 - Unexpected actual link speed 25\n\nParameter\n"
	r := Run([]Input{{Name: "t.txt", Text: in}}, Options{})
	if len(r.Findings) != 1 || r.Findings[0].ID != "fabric.link_degraded" {
		t.Fatalf("findings %+v, want one fabric.link_degraded", r.Findings)
	}
	if s := r.Findings[0].Summary; !strings.Contains(s, "another speed than the run expected") || !strings.Contains(s, "switch-004/U1/P20") {
		t.Errorf("summary %q", s)
	}
}
