package analyze

import (
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestQuotedExpectedOutput: an NCCL log quoted under "Expected:" (or an
// "Expected behavior" heading) is the output the poster wanted, not the
// one they got: it is not judged with the real log, and when it shows
// NET/IB the real log's lone "NET/Socket : Using" line is a socket
// fallback where IB/RoCE was expected (areal-project/AReaL#639). Without
// such prose the two blocks stay one job, as before.
func TestQuotedExpectedOutput(t *testing.T) {
	const got = "NCCL logs show:\n```\nNCCL INFO NET/Socket : Using [0]bond0:200.8.184.2<0>\n```\n\n"
	const ib = "```\nNCCL INFO NET/IB : Using [0]mlx5_bond:1/RoCE ...\n```\n"
	tests := []struct {
		name, text string
		want       []string
		expected   bool // a segment is noted as the expected output
	}{
		{"Expected: then the IB line", got + "### Expected behavior\n\nExpected:\n" + ib, []string{"nccl.socket_fallback/critical"}, true},
		{"heading right above the fence", got + "### Expected behavior\n" + ib, []string{"nccl.socket_fallback/critical"}, true},
		{"should look like:", got + "The init should look like:\n" + ib, []string{"nccl.socket_fallback/critical"}, true},
		{"no such prose: one job", got + "On the other node:\n" + ib, nil, false},
		{"expected output on sockets too", got + "Expected:\n```\nNCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n```\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tt.text, Options{})
			var fs []finding.Finding
			expected := false
			for _, s := range fr.Segments {
				fs = append(fs, s.Findings...)
				expected = expected || strings.Contains(s.Summary, "quoted as the expected output")
			}
			if got := ids(fs); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			if expected != tt.expected {
				t.Errorf("expected segment %v, want %v: %+v", expected, tt.expected, fr.Segments)
			}
		})
	}
}
