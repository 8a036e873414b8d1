package agent

import (
	"slices"
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

// One cause, one finding: the rate shortfall of a port whose width is
// degraded becomes evidence on the width finding instead of a second
// critical alert; another port's shortfall stays.
func TestDedupeFoldsShortfallIntoDegradedWidth(t *testing.T) {
	width := catalog.New("port.width_degraded", finding.Subject{Device: "mlx5_2", Port: 1}, "mlx5_2 port 1 runs at 2X instead of 4X",
		finding.Evidence{Source: "sys/class/infiniband/mlx5_2/ports/1/rate", Value: "200 Gb/sec (2X NDR)"})
	short := catalog.New("port.rate_below_expected", finding.Subject{Device: "mlx5_2", Port: 1}, "mlx5_2 port 1 runs at 200 Gb/s, 50% below the expected 400 Gb/s",
		finding.Evidence{Source: "sys/class/infiniband/mlx5_2/ports/1/rate", Value: "200 Gb/s"},
		finding.Evidence{Source: "expected rate", Value: "400 Gb/s"})
	other := catalog.New("port.rate_below_expected", finding.Subject{Device: "mlx5_3", Port: 1}, "mlx5_3 short")
	got := dedupe([]finding.Finding{short, width, other})
	var ids []string
	for _, f := range got {
		ids = append(ids, f.ID+" "+f.Subject.Device)
	}
	if diff := cmp.Diff([]string{"port.width_degraded mlx5_2", "port.rate_below_expected mlx5_3"}, ids); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
	if want := (finding.Evidence{Source: "expected rate", Value: "400 Gb/s"}); !slices.Contains(got[0].Evidence, want) {
		t.Errorf("the shortfall's evidence %v is not on the width finding: %v", want, got[0].Evidence)
	}
}
