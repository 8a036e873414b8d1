package fabric

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
)

func FuzzParsePlan(f *testing.F) {
	for _, n := range []string{"spineleaf.net", "ibsim-faults.plan"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(netPlanText)
	f.Add("\"node01 HCA-1\" 1 leaf01 3 4xHDR # comment\n0x0002c90300a00014 1 S-0000000000200001 2\n")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ParsePlan(strings.NewReader(in), "fuzz")
		if err != nil {
			var pe *ibdiags.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a ParseError: %v", err)
			}
			return
		}
		for _, l := range p.Links {
			if l.A.Node == "" || l.B.Node == "" || l.A.Port < 0 || l.B.Port < 0 || l.A.Port > 255 || l.B.Port > 255 {
				t.Fatalf("bad link %+v", l)
			}
			if planLess(l.B, l.A) {
				t.Fatalf("link not in canonical order: %+v", l)
			}
		}
	})
}
