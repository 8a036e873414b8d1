package nccllog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParserFold: a folding Parser fed the lines one at a time reads the
// same processes and NCCL lines as Parse, keeps a subset of its events
// in the same order, and its events' weights add up to Parse's count.
func FuzzParserFold(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.log"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(dupWarn0 + "\n" + exFailed + "\n" + bloomCUDA)
	f.Add(llamaRetries(32, 34) + newRetries(1, 3) + oldRetry + oldRetry + oldRetry)
	// aws-ofi-nccl (aws/aws-ofi-nccl#22, #156).
	f.Add("INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa\nWARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument\n" +
		"h:35:89 [5] ofi_process_cq:1039 NCCL WARN NET/OFI Request 0x7fbb944701b8 completed with error. RC: 20. Error: unknown error. Completed length: 0\n")
	f.Fuzz(func(t *testing.T, in string) {
		whole, werr := Parse(strings.NewReader(in), "fuzz")
		p := NewParser("fuzz", true)
		for i, l := range strings.Split(in, "\n") {
			p.Line(i+1, l)
		}
		folded, ferr := p.Log()
		if (werr == nil) != (ferr == nil) {
			if werr != nil && strings.Contains(werr.Error(), "too long") {
				return // Parse bounds a line; Line is handed what it is given
			}
			t.Fatalf("Parse error %v, streamed error %v", werr, ferr)
		}
		if werr != nil {
			return
		}
		if whole.NCCLLines != folded.NCCLLines || len(whole.Procs) != len(folded.Procs) || whole.Version != folded.Version {
			t.Fatalf("streamed read %d lines, %d procs, version %q; Parse %d, %d, %q",
				folded.NCCLLines, len(folded.Procs), folded.Version, whole.NCCLLines, len(whole.Procs), whole.Version)
		}
		weight, j := 0, 0
		for _, e := range folded.Events {
			if e.Repeats < 0 {
				t.Fatalf("negative repeats %+v", e)
			}
			weight += e.Weight()
			for j < len(whole.Events) && whole.Events[j].Line != e.Line {
				j++
			}
			if j == len(whole.Events) {
				t.Fatalf("folded event of line %d is not an event of Parse, or out of order", e.Line)
			}
			if w := whole.Events[j]; w.Kind != e.Kind || w.Text != e.Text {
				t.Fatalf("line %d: folded %v %q, Parse %v %q", e.Line, e.Kind, e.Text, w.Kind, w.Text)
			}
			j++
		}
		if weight != len(whole.Events) {
			t.Fatalf("folded events weigh %d, Parse found %d", weight, len(whole.Events))
		}
		for i := range whole.Procs {
			if len(folded.Procs[i].GDR) > len(whole.Procs[i].GDR) {
				t.Fatalf("proc %d: folded keeps more GDR lines than Parse", i)
			}
		}
	})
}
