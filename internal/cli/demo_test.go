package cli

import (
	"encoding/json"
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
		"critical port.width_degraded",
		"$ ibdoctor check --root " + keep,
		"exit code 2",
		"$ ibdoctor doctor --root " + keep + " --pid ",
		"CRITICAL port.polling  mlx5_5 port 1",
		"CRITICAL pcie.link_degraded  mlx5_4",
		"WARNING  port.counter_saturated  mlx5_1 port 1",
		"WARNING  port.fw_mismatch  mlx5_6",
		"CRITICAL gpu.xid",
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

func TestDemoJSON(t *testing.T) {
	out, stderr, code := run(t, "demo", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Faults []struct{ Fault, Story string }
		Steps  []struct {
			Command  string
			ExitCode int `json:"exit_code"`
			Output   map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Faults) != 10 || len(doc.Steps) != 3 {
		t.Fatalf("%d faults, %d steps", len(doc.Faults), len(doc.Steps))
	}
	for i, want := range []int{0, 2, 2} {
		s := doc.Steps[i]
		if s.ExitCode != want || s.Output["findings"] == nil {
			t.Errorf("step %q: exit %d, output keys %v", s.Command, s.ExitCode, s.Output)
		}
	}
}

// Every command speaks --format json, the ones that write files included.
func TestFormatJSONEverywhere(t *testing.T) {
	root := simBundle(t, "h100-ndr")
	exp := filepath.Join(t.TempDir(), "expect.json")
	out, stderr, code := run(t, "baseline", "--root", root, "--format", "json", "--out", exp)
	if code != 0 || out != "" {
		t.Fatalf("baseline: exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	// The JSON expectation is read by --expect (JSON is YAML).
	if doc, code := checkJSON(t, "--root", root, "--expect", exp); code != 0 || len(doc.Findings) != 0 {
		t.Fatalf("check against the JSON baseline: exit %d %v", code, findingKeys(doc))
	}
	fab := filepath.Join(t.TempDir(), "fab")
	out, stderr, code = run(t, "sim", "fabric", "--out", fab, "--fault", "narrow:leaf3[4]", "--format", "json")
	var sf struct {
		Net, Plan string
		Faults    []string
	}
	if err := json.Unmarshal([]byte(out), &sf); code != 0 || err != nil || sf.Net != filepath.Join(fab, "net") || len(sf.Faults) != 1 {
		t.Fatalf("sim fabric: exit %d %v %+v %s", code, err, sf, stderr)
	}
}
