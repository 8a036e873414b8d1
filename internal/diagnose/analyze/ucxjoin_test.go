package analyze

import (
	"strings"
	"testing"
)

// TestUCXSegmentsJudgedTogether: a paste that quotes one UCX job's errors
// in two places (openucx/ucx#7991, realworld-fresh43: the client's output
// in the report and again under its steps) is one job, one finding; the
// UCX_NET_DEVICES of its command line names the device. One quote alone
// gives the same finding.
func TestUCXSegmentsJudgedTogether(t *testing.T) {
	quote := "```\nerror handling callback was invoked with status -6 (Destination is unreachable)\nunable to send UCX message (Destination is unreachable)\nclient failed on iteration #1\n```\n"
	cmd := "export UCX_TLS=rc; export UCX_NET_DEVICES=mlx5_bond_0:1; ./ucp_client_server -c am -s 102400 -a 108.80.25.56\n"
	for _, tc := range []struct{ name, text string }{
		{"quoted twice", "I see the following error by client\n" + quote + "Is there another env parameter not export?\n\n**client**\n```\n" + cmd + "```\n" + quote},
		{"quoted once", cmd + quote},
	} {
		f := AnalyzeText("p.txt", tc.text, Options{})
		var got []string
		for _, s := range f.Segments {
			for _, fd := range s.Findings {
				got = append(got, string(fd.ID)+"/"+string(fd.Severity)+"/"+fd.Subject.Device)
				if !strings.Contains(fd.Summary, "Destination is unreachable") {
					t.Errorf("%s: summary %q", tc.name, fd.Summary)
				}
			}
		}
		if len(got) != 1 || got[0] != "ucx.error/critical/mlx5_bond_0" {
			t.Errorf("%s: findings %v, want one ucx.error/critical/mlx5_bond_0", tc.name, got)
		}
	}
}
