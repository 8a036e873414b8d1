package finding

import (
	"encoding/json"
	"testing"
)

func TestJudge(t *testing.T) {
	crit := Finding{ID: "port.down", Severity: Critical}
	tests := []struct {
		name    string
		fs      []Finding
		missing string
		want    string // the JSON of the outcome
	}{
		{"nothing wrong", nil, "", `{"verdict":"healthy","exit_code":0}`},
		{"critical", []Finding{crit}, "", `{"verdict":"critical","exit_code":2}`},
		{"nothing judged", nil, "no result row", `{"verdict":"not_judged","exit_code":3,"not_judged":"no result row"}`},
		{"nothing judged wins", []Finding{crit}, "no input read", `{"verdict":"not_judged","exit_code":3,"not_judged":"no input read"}`},
	}
	for _, tc := range tests {
		o, fs := Judge(tc.fs, tc.missing)
		b, _ := json.Marshal(o)
		if string(b) != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, b, tc.want)
		}
		if fs == nil {
			t.Errorf("%s: nil findings", tc.name)
		}
		for _, f := range fs {
			if f.Evidence == nil || f.Causes == nil || f.Remedy == nil {
				t.Errorf("%s: nil list in %+v", tc.name, f)
			}
		}
		if o.IsJudged() != (tc.missing == "") {
			t.Errorf("%s: IsJudged %v", tc.name, o.IsJudged())
		}
	}
}
