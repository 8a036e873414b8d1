package agent

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

func TestDedupe(t *testing.T) {
	static := catalog.New("port.rate_below_expected", finding.Subject{Device: "mlx5_8", Port: 1}, "static: against the expectation")
	overTime := catalog.New("port.rate_below_expected", finding.Subject{Device: "mlx5_8", Port: 1, NetDev: "ens1f0np0"}, "over time: against the best rate seen")
	other := catalog.New("port.rate_below_expected", finding.Subject{Device: "mlx5_8", Port: 2}, "other port")
	gpuA := catalog.New("pcie.link_degraded", finding.Subject{PCI: "0000:1b:00.0"}, "a")
	gpuB := catalog.New("pcie.link_degraded", finding.Subject{PCI: "0000:9a:00.0"}, "b")
	got := dedupe([]finding.Finding{static, overTime, other, gpuA, gpuB, gpuA})
	var sums []string
	for _, f := range got {
		sums = append(sums, f.Summary)
	}
	if diff := cmp.Diff([]string{"static: against the expectation", "other port", "a", "b"}, sums); diff != "" {
		t.Errorf("dedupe (-want +got):\n%s", diff)
	}
}
