package host

import (
	"fmt"
	"strconv"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckPastedHandleErrors judges nvidia-smi's "Unable to determine the
// device handle for GPU…" lines: a GPU the driver enumerated but NVML can
// no longer open. "GPU is lost", "Unknown Error" and "Timeout" mean the
// GPU stopped answering on the bus: gpu.fallen_off_bus (critical), one
// finding per GPU. Other errors ("Not Found", "Insufficient Power",
// "Insufficient Permissions") are returned as notes: they are not a lost
// GPU, and the line alone does not say more.
func CheckPastedHandleErrors(errs []nvsmi.HandleError, source string) (out []finding.Finding, notes []string) {
	seen := map[string]bool{}
	for _, h := range errs {
		label, gpu := "the GPU", ""
		switch {
		case h.PCI != "":
			label, gpu = "GPU "+string(h.PCI), string(h.PCI)
			if h.Index >= 0 {
				label = fmt.Sprintf("GPU%d (%s)", h.Index, h.PCI)
			}
		case h.Index >= 0:
			label, gpu = fmt.Sprintf("GPU%d", h.Index), strconv.Itoa(h.Index)
		}
		key := gpu + "\x00" + h.Err
		if seen[key] {
			continue
		}
		seen[key] = true
		if !h.Lost() {
			notes = append(notes, fmt.Sprintf("line %d: nvidia-smi could not open %s (%s): not judged a lost GPU", h.Line, label, h.Err))
			continue
		}
		subj := finding.Subject{PCI: string(h.PCI), GPU: gpu, File: source}
		ev := finding.Evidence{Source: fmt.Sprintf("%s:%d", source, h.Line), Value: h.Text}
		out = append(out, catalog.New("gpu.fallen_off_bus", subj,
			fmt.Sprintf("nvidia-smi cannot reach %s (NVML: %s): the GPU no longer answers on the PCIe bus; every job on it died, and the kernel log shows why (Xid 79, \"fallen off the bus\", AER errors on the port above it)", label, h.Err), ev))
	}
	return out, notes
}
