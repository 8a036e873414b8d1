package catalog_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
)

// Every documented threshold default is held to the value in force by a
// test: the agent's keys by trend's (catalogue = config table = Defaults),
// every other one by a test outside this package that names the pair as
// `"id", "name"` next to the value it checks (TestDocumentedDefaultsInForce
// of node, host, nccl, perftest, routing, fabric and pairwise).
func TestEveryDocumentedDefaultIsChecked(t *testing.T) {
	var tests strings.Builder
	root := filepath.Join("..", "..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, "_test.go") && !strings.Contains(p, filepath.Join("internal", "rules", "catalog")) {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			tests.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	agentKey := map[string]bool{}
	for _, d := range trend.Docs() {
		agentKey[d.Key] = true
	}
	// The IDs whose thresholds trend's TestCatalogThresholdsMatchDocs
	// holds to the agent's config table.
	agentIDs := map[string]bool{"port.symbol_errors": true, "port.link_recovery": true, "port.link_flapping": true, "port.rcv_errors": true,
		"port.xmit_discards": true, "port.congestion": true, "rdma.out_of_buffer": true, "rdma.retransmits": true, "rdma.cnp_ignored": true}
	all := tests.String()
	pairs := catalog.Thresholds()
	if len(pairs) == 0 {
		t.Fatal("the catalogue documents no threshold")
	}
	for _, pair := range pairs {
		id, name, _ := strings.Cut(pair, "/")
		if agentIDs[id] && agentKey[name] || strings.Contains(all, `"`+id+`", "`+name+`"`) {
			continue
		}
		t.Errorf("no test holds %s %s to the value in force", id, name)
	}
}
