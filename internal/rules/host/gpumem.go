package host

import (
	"fmt"

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
		name := "the GPU"
		if g.PCI != "" {
			name = "GPU " + string(g.PCI)
		}
		if g.Name != "" {
			name += " (" + g.Name + ")"
		}
		subj := finding.Subject{PCI: string(g.PCI), GPU: string(g.PCI), File: source}
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
