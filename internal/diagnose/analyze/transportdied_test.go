package analyze

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestTransportThenDied: Mooncake disables a device whose completion
// queue it could not create (kvcache-ai/Mooncake#535); a warning alone,
// critical when the process then dies.
func TestTransportThenDied(t *testing.T) {
	const lines = "E0620 17:20:15.656373   293 rdma_context.cpp:116] Failed to create completion queue: Cannot allocate memory [12]\n" +
		"W0620 17:20:15.657889   293 rdma_transport.cpp:423] Disable device mlx5_bond_3\n"
	for _, tc := range []struct {
		name, text string
		sev        finding.Severity
	}{
		{"refused only", lines, finding.Warning},
		{"then a segfault", lines + "Fatal Python error: Segmentation fault\n", finding.Critical},
	} {
		fr := AnalyzeText("p.txt", tc.text, Options{})
		var got []finding.Finding
		for _, s := range fr.Segments {
			got = append(got, s.Findings...)
		}
		if len(got) != 1 || got[0].ID != "rdma.transport_unavailable" || got[0].Severity != tc.sev || !strings.Contains(got[0].Summary, "completion queue") {
			t.Errorf("%s: %+v, want one rdma.transport_unavailable %s", tc.name, got, tc.sev)
		}
	}
}
