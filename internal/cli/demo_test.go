package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The demo diagnoses every fault it injects, through status, check and
// doctor, and exits 0 itself.
func TestDemo(t *testing.T) {
	keep := filepath.Join(t.TempDir(), "gpu017")
	out, stderr, code := run(t, "demo", "--keep", keep)
	if code != 0 {
		t.Fatalf("demo exit %d: %s", code, stderr)
	}
	for _, s := range []string{
		"broken in 10 ways",
		"$ ibdoctor status --root " + keep,
		"critical port.rate_below_expected,port.width_degraded",
		"$ ibdoctor check --root " + keep,
		"exit code 2",
		"$ ibdoctor doctor --root " + keep + " --pid ",
		"CRITICAL port.polling  mlx5_5 port 1",
		"CRITICAL pcie.link_degraded  mlx5_4",
		"WARNING  port.counter_saturated  mlx5_1 port 1",
		"WARNING  port.fw_mismatch  mlx5_6",
		"CRITICAL gpu.fallen_off_bus",
		"WARNING  nccl.peermem_missing",
		"CRITICAL nccl.ib_hca_unknown",
		"WARNING  nccl.socket_ifname_missing",
		"sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data: is a directory",
		"The node is kept at " + keep,
	} {
		if !strings.Contains(out, s) {
			t.Errorf("demo output lacks %q", s)
		}
	}
	if _, err := os.Stat(filepath.Join(keep, "sys/class/infiniband/mlx5_0")); err != nil {
		t.Errorf("--keep did not keep the root: %v", err)
	}
	// A non-empty --keep is refused rather than overwritten.
	if _, stderr, code := run(t, "demo", "--keep", keep); code != 3 || !strings.Contains(stderr, "not empty") {
		t.Errorf("second demo into %s: exit %d %q", keep, code, stderr)
	}
}
