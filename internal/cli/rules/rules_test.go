package rules

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

func runRules(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := NewCmd(&cmdutil.Factory{Out: &out, ErrOut: &out}, nil)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err := cmd.Execute()
	return out.String(), err
}

func TestRulesListsTheCatalogue(t *testing.T) {
	out, err := runRules(t)
	if err != nil {
		t.Fatal(err)
	}
	all := catalog.Default.All()
	table, _, _ := strings.Cut(out, "\nIBTA port error counters")
	if lines := strings.Count(table, "\n"); lines != len(all)+1 {
		t.Errorf("%d lines for %d IDs", lines, len(all))
	}
	for _, m := range all {
		if !strings.Contains(out, m.ID+" ") {
			t.Errorf("ibdoctor rules lacks %s", m.ID)
		}
	}
	js, err := runRules(t, "--format", "json", "--area", "fabric")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Rules []finding.Meta }
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Rules) == 0 {
		t.Fatalf("json: %v, %d rules", err, len(doc.Rules))
	}
	for _, m := range doc.Rules {
		if m.Area != "fabric" || len(m.Remedy) == 0 {
			t.Errorf("--area fabric gave %+v", m)
		}
	}
}

func TestRulesOneID(t *testing.T) {
	out, err := runRules(t, "port.rate_below_expected")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"port.rate_below_expected  (critical, area node)", "threshold rate_shortfall_critical = 20%", "likely causes:", "remedy:"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if _, err := runRules(t, "port.nope"); err == nil || !strings.Contains(err.Error(), `unknown finding ID "port.nope"`) {
		t.Errorf("unknown ID: %v", err)
	}
}
