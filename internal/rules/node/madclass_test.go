package node

import (
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// The listings of Debian bug 1086520 (analyze testdata/realworld-fresh74):
// on 6.11 with firmware 20.40 ib_umad gave the ConnectX-6 ports no issm.
func TestCheckMadClass(t *testing.T) {
	fail := &finding.Evidence{Source: "f.txt:14", Value: "[InfiniBand fails, because OpenSM fails to start]"}
	for _, tc := range []struct {
		name  string
		names []string
		fail  *finding.Evidence
		want  finding.Severity // "" for no finding
	}{
		{"umad and issm of both ports: none", []string{"umad0", "umad1", "issm1", "issm0"}, nil, ""},
		{"no issm, OpenSM fails: critical", []string{"umad0", "umad1"}, fail, finding.Critical},
		{"no issm alone: warning", []string{"umad0", "umad1"}, nil, finding.Warning},
		{"issm1 missing: warning", []string{"umad0", "issm0", "umad1"}, nil, finding.Warning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := CheckMadClass(tc.names, "f.txt", 10, 12, tc.fail)
			switch {
			case tc.want == "" && len(fs) != 0:
				t.Fatalf("got %+v, want none", fs)
			case tc.want != "" && (len(fs) != 1 || fs[0].ID != "fabric.sm_issm_missing" || fs[0].Severity != tc.want):
				t.Fatalf("got %+v, want one fabric.sm_issm_missing %s", fs, tc.want)
			}
		})
	}
}
