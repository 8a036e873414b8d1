package host

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckPastedGPUMemory judges the memory error recovery state that
// `nvidia-smi -q` prints per GPU: a row remapping failure is critical
// (no spare row left: an RMA case), a remap or page retirement pending
// a GPU reset is a warning, rows already remapped for uncorrectable
// errors are info.
func CheckPastedGPUMemory(q *nvsmi.Query, source string) []finding.Finding {
	var out []finding.Finding
	for _, g := range q.GPUs {
		name := "The GPU"
		if g.PCI != "" {
			name = "GPU " + string(g.PCI)
		}
		if g.Name != "" {
			name += " (" + g.Name + ")"
		}
		subj := finding.Subject{PCI: string(g.PCI), GPU: string(g.PCI), File: source}
		if f, ok := fabricFinding(g, name, subj, source); ok {
			out = append(out, f)
		}
		if r := g.Rows; r != nil {
			ev := finding.Evidence{Source: fmt.Sprintf("%s:%d", source, r.Line),
				Value: fmt.Sprintf("Remapped Rows: correctable %s, uncorrectable %s, pending %s, remapping failure %s", num(r.Correctable), num(r.Uncorrectable), yesNo(r.Pending), yesNo(r.Failure))}
			var f finding.Finding
			switch {
			case r.Failure == 1:
				f = catalog.New("gpu.row_remap", subj, fmt.Sprintf("%s: row remapping failed: a memory bank has no spare row left, so new memory errors can no longer be repaired (an RMA case)", name), ev)
				f.Severity = finding.Critical
			case r.Pending == 1:
				f = catalog.New("gpu.row_remap", subj, fmt.Sprintf("%s: row remapping pending (%s rows for uncorrectable, %s for correctable errors): the remap takes effect at the next GPU reset; drain and reset it", name, num(r.Uncorrectable), num(r.Correctable)), ev)
			case r.Uncorrectable > 0:
				f = catalog.New("gpu.row_remap", subj, fmt.Sprintf("%s: %d rows remapped for uncorrectable errors (applied, nothing pending)", name, r.Uncorrectable), ev)
				f.Severity = finding.Info
			default:
				continue
			}
			out = append(out, f)
		}
		if p := g.Pages; p != nil {
			ev := finding.Evidence{Source: fmt.Sprintf("%s:%d", source, p.Line),
				Value: fmt.Sprintf("Retired Pages: single bit %s, double bit %s, pending %s", num(p.SingleBit), num(p.DoubleBit), yesNo(p.Pending))}
			switch {
			case p.Pending == 1:
				out = append(out, catalog.New("gpu.row_remap", subj, fmt.Sprintf("%s: pages pending retirement: they are retired at the next GPU reset or reboot", name), ev))
			case p.DoubleBit > 0:
				f := catalog.New("gpu.row_remap", subj, fmt.Sprintf("%s: %d pages retired for double-bit errors (nothing pending)", name, p.DoubleBit), ev)
				f.Severity = finding.Info
				out = append(out, f)
			}
		}
	}
	return out
}

func num(v int) string {
	if v < 0 {
		return "N/A"
	}
	return fmt.Sprint(v)
}

func yesNo(v int) string {
	switch v {
	case 1:
		return "Yes"
	case 0:
		return "No"
	}
	return "N/A"
}

// fabricFinding judges a GPU's NVLink fabric registration (nvidia-smi
// -q "Fabric": nvmlDeviceGetGpuFabricInfo). A registration that
// completed with a status other than Success, or one that never started,
// leaves the GPU out of the NVLink fabric: CUDA refuses work on it
// (cudaErrorSystemNotReady) or multi-GPU jobs cannot use NVLink
// (gpu.nvlink_fabric, critical); one still in progress is a warning (the
// fabric manager has not placed the GPU yet).
func fabricFinding(g nvsmi.QueryGPU, name string, subj finding.Subject, source string) (finding.Finding, bool) {
	fb := g.Fabric
	if fb == nil {
		return finding.Finding{}, false
	}
	line := fb.Line
	if fb.StatusLine > 0 {
		line = fb.StatusLine // the status is what is judged
	}
	ev := finding.Evidence{Source: fmt.Sprintf("%s:%d", source, line),
		Value: fmt.Sprintf("Fabric: State %s, Status %s, CliqueId %s, ClusterUUID %s", orNA(fb.State), orNA(fb.Status), orNA(fb.CliqueID), orNA(fb.ClusterUUID))}
	ids := ""
	if fb.CliqueID == "0" && strings.Trim(fb.ClusterUUID, "0-") == "" {
		ids = " (CliqueId 0 and a zero ClusterUUID: no NVLink domain assigned)"
	}
	var f finding.Finding
	switch {
	case (strings.EqualFold(fb.State, "Completed") || fb.State == "") && fb.Status != "" && !strings.EqualFold(fb.Status, "Success"):
		// A status other than Success is the registration's end
		// (nvmlGpuFabricInfo's status is set once the state is
		// Completed), also where the paste lost the State line.
		f = catalog.New("gpu.nvlink_fabric", subj, fmt.Sprintf("%s is not in the NVLink fabric: the fabric manager finished its registration with status %q%s; CUDA work on it fails or runs without NVLink, so keep the node out of multi-GPU jobs", name, fb.Status, ids), ev)
	case strings.EqualFold(fb.State, "Not Started"):
		f = catalog.New("gpu.nvlink_fabric", subj, fmt.Sprintf("%s is not in the NVLink fabric: its registration has not started (fabric manager not running or not reaching the NVSwitches)%s; CUDA reports the system not ready", name, ids), ev)
	case strings.EqualFold(fb.State, "In Progress"):
		f = catalog.New("gpu.nvlink_fabric", subj, fmt.Sprintf("%s is still registering with the NVLink fabric (State In Progress): CUDA work waits or fails until it completes; check again, and if it stays, the fabric manager", name), ev)
		f.Severity = finding.Warning
	default:
		return finding.Finding{}, false
	}
	return f, true
}

func orNA(v string) string {
	if v == "" {
		return "N/A"
	}
	return v
}
