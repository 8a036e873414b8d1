package analyze

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// FuzzAnalyzeReader: any input read from a reader gives, small, the
// report AnalyzeText gives and, streamed as a big one, segments inside
// its lines; a kernel or NCCL log that streams gives the findings (IDs
// and subjects) of the same log read whole.
func FuzzAnalyzeReader(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata/realworld", "*"))
	for _, p := range files {
		base := filepath.Base(p)
		if !strings.HasPrefix(base, "nccl-log") && !strings.HasPrefix(base, "dmesg") && !strings.HasPrefix(base, "journalctl") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		opts := Options{Year: 2024}
		whole := AnalyzeText("f", in, opts)
		if g, w := jsonOf(t, AnalyzeReader("f", strings.NewReader(in), int64(len(in)), opts)), jsonOf(t, whole); g != w {
			t.Fatalf("small input read from a reader differs:\n%s\nAnalyzeText:\n%s", g, w)
		}
		got := streamed(t, "f", in, opts)
		lines := len(Lines(in))
		for _, s := range got.Segments {
			if s.Start < 1 || s.End > lines || s.Start > s.End {
				t.Fatalf("streamed segment %d-%d outside %d lines", s.Start, s.End, lines)
			}
		}
		if _, ok, _ := streamKind(in, opts); !ok {
			return
		}
		if g, w := findingKeys(got), findingKeys(whole); !slices.Equal(g, w) {
			t.Fatalf("streamed findings %q, read whole %q", g, w)
		}
	})
}

func findingKeys(f File) []string {
	var out []string
	for _, s := range f.Segments {
		for _, x := range s.Findings {
			out = append(out, x.ID+" "+subjectJSON(x.Subject))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func subjectJSON(s finding.Subject) string {
	b, _ := json.Marshal(s)
	return string(b)
}
