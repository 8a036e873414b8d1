package fabric

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/finding"
	"github.com/ibdoctor/ibdoctor/internal/routing"
)

func load(t testing.TB, dir string) *Fabric {
	t.Helper()
	raw, err := ReadFrom(filepath.Join("testdata", dir))
	if err != nil {
		t.Fatal(err)
	}
	return Build(raw)
}

func loadPlan(t testing.TB, name string) *Plan {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	p, err := ParsePlan(fh, name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func planText(t testing.TB, text string) *Plan {
	t.Helper()
	p, err := ParsePlan(strings.NewReader(text), "plan.txt")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// brief renders findings as "id subject" lines for comparison.
func brief(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		s := f.ID + " " + f.Subject.NodeDesc
		if f.Subject.Port != 0 {
			s += fmt.Sprintf("[%d]", f.Subject.Port)
		}
		if f.Subject.Peer != nil {
			s += fmt.Sprintf(" peer %s[%d]", f.Subject.Peer.NodeDesc, f.Subject.Peer.Port)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func TestExplore(t *testing.T) {
	f := load(t, "spineleaf")
	for _, g := range f.Gaps {
		t.Logf("gap %+v", g)
	}
	for _, x := range Check(f, Options{}) {
		t.Logf("%s %s: %s", x.ID, x.Severity, x.Summary)
	}
	rf, _, err := CheckRouting(f, routing.Options{})
	t.Logf("routing err %v", err)
	for _, x := range rf {
		t.Logf("%s %s: %s", x.ID, x.Severity, x.Summary)
	}
	for _, x := range Diff(f, loadPlan(t, "spineleaf.net")) {
		t.Logf("%s %s: %s", x.ID, x.Severity, x.Summary)
	}
	d := load(t, "dupguid")
	for _, x := range Check(d, Options{}) {
		t.Logf("%s %s: %s", x.ID, x.Severity, x.Summary)
	}
}
