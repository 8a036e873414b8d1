package fabric

import (
	"os"
	"path/filepath"
	"testing"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// FuzzBuild feeds arbitrary tool outputs through the whole chain: Build,
// every check, the cabling diff and the routing analysis must never panic,
// whatever the outputs hold.
func FuzzBuild(f *testing.F) {
	for _, dir := range []string{"spineleaf", "ibsim-faults", "dupguid"} {
		read := func(name string) string {
			b, _ := os.ReadFile(filepath.Join("testdata", dir, name))
			return string(b)
		}
		f.Add(read("ibnetdiscover.txt"), read("iblinkinfo.txt"), read("ibqueryerrors.txt"), read("dump_fts.txt"))
	}
	plan := planText(f, netPlanText)
	f.Fuzz(func(t *testing.T, top, li, qe, fts string) {
		raw := &fabricmodel.Raw{Outputs: []*fabricmodel.Output{
			{Name: "ibnetdiscover", Stdout: []byte(top)},
			{Name: "iblinkinfo", Stdout: []byte(li)},
			{Name: "ibqueryerrors", Stdout: []byte(qe)},
			{Name: "dump_fts", Stdout: []byte(fts)},
		}}
		m := Build(raw)
		_ = Check(m, Options{Plan: plan, Baseline: m})
		_ = Diff(m, plan)
		_, _, _ = CheckRouting(m, routing.Options{})
	})
}
