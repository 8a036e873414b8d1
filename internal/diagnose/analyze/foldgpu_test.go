package analyze

import (
	"strings"
	"testing"
)

// TestFoldLostGPUs: nvidia-smi's device-handle error for a GPU whose Xid 79
// the same paste's kernel log shows is one finding (the Xid's), with the
// nvidia-smi line in its evidence; a GPU the kernel log does not name
// keeps its own finding. The lines are those of the T450s notes
// (realworld-fresh18), the second GPU's made from them.
func TestFoldLostGPUs(t *testing.T) {
	text := "[   65.315783] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n" +
		"[   65.315792] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.\n" +
		"\n$ nvidia-smi\n" +
		"Unable to determine the device handle for GPU 0000:01:00.0: Unknown Error\n"
	r := Run([]Input{{Name: "p.txt", Text: text}}, Options{})
	var ids []string
	for _, f := range r.Findings {
		ids = append(ids, f.ID)
	}
	if len(r.Findings) != 1 || r.Findings[0].ID != "gpu.xid" {
		t.Fatalf("findings %v, want one gpu.xid", ids)
	}
	ev := r.Findings[0].Evidence
	if last := ev[len(ev)-1]; !strings.Contains(last.Value, "Unable to determine the device handle") {
		t.Errorf("the nvidia-smi line is not in the Xid's evidence: %+v", ev)
	}

	other := strings.Replace(text, "handle for GPU 0000:01:00.0", "handle for GPU 0000:02:00.0", 1)
	r = Run([]Input{{Name: "p.txt", Text: other}}, Options{})
	ids = ids[:0]
	for _, f := range r.Findings {
		ids = append(ids, f.ID)
	}
	if strings.Join(ids, ",") != "gpu.fallen_off_bus,gpu.xid" && strings.Join(ids, ",") != "gpu.xid,gpu.fallen_off_bus" {
		t.Errorf("another GPU's handle error: findings %v, want gpu.xid and gpu.fallen_off_bus", ids)
	}
}
