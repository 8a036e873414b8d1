package analyze

import (
	"slices"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// ucx_info listings and libfabric's fi_pingpong tables are kinds of their
// own: ucx_info's "error handling:" capability line is not a failure, a
// listing with tcp on ib0 and no ib transport is mpi.rdma_not_used, and
// a pingpong error line is perf.test_invalid.
func TestUCXInfoAndFabtests(t *testing.T) {
	tests := []struct {
		name string
		text string
		kind Kind
		ids  []string
		exit int
	}{
		{"ucx_info -d rc_verbs", read(t, "realworld-fresh71/ucx_info-ucx7960-rc-verbs-mlx5_0-caps.txt"), KindUCXInfo, nil, finding.ExitHealthy},
		{"ucx_info -p tcp on ib0", read(t, "realworld-fresh71/ucx_info-ucx7245-hpcx28-no-ib-only-tcp-ib0.txt"), KindUCXInfo, []string{"mpi.rdma_not_used"}, finding.ExitWarning},
		{"ucx_info -d after a prompt", "$ ucx_info -d\n#\n# Memory domain: self\n#     Component: self\n#\n#      Transport: self\n#         Device: memory\n#\n#      Transport: tcp\n#         Device: eth0\n#           Type: network\n", KindUCXInfo, nil, finding.ExitCannot},
		{"fi_pingpong tables", read(t, "realworld-fresh69/fi_pingpong-magiccastle331-efa-rdm-server-client.txt"), KindFabtests, nil, finding.ExitHealthy},
		{"fi_pingpong refused", "$ fi_pingpong -p verbs 10.0.0.2\n[error] util/pingpong.c:411 : failed to connect: Connection refused\n", KindFabtests, []string{"perf.test_invalid"}, finding.ExitWarning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "paste.txt", Text: tt.text}}, Options{})
			seen := false
			for _, s := range r.Files[0].Segments {
				seen = seen || s.Kind == tt.kind
			}
			var ids []string
			for _, f := range r.Findings {
				ids = append(ids, f.ID)
			}
			if !seen || !slices.Equal(ids, tt.ids) || r.ExitCode != tt.exit {
				t.Errorf("kind %v seen %v, ids %v exit %d, want %v %d", tt.kind, seen, ids, r.ExitCode, tt.ids, tt.exit)
			}
		})
	}
}
