package host

import (
	"fmt"
	"strconv"
	"strings"

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

// xid79Lead starts the summary of the gpu.xid finding of an Xid 79.
const xid79Lead = "Xid 79 on "

// IsGPULoss says whether f reports a GPU lost from the PCIe bus: an Xid
// 79 (gpu.xid) or gpu.fallen_off_bus.
func IsGPULoss(f *finding.Finding) bool {
	return f.ID == "gpu.fallen_off_bus" || f.ID == "gpu.xid" && strings.HasPrefix(f.Summary, xid79Lead)
}

// GPUKey is the PCI device a GPU finding names, in one form
// ("0000:01:00": domain, bus and device, lower case), "" when it names
// none: the kernel writes "0000:01:00.0" or "PCI:0000:01:00", nvidia-smi
// "00000000:01:00.0".
func GPUKey(s finding.Subject) string {
	a := s.PCI
	if a == "" {
		a = s.GPU
	}
	a = strings.ToLower(strings.TrimPrefix(a, "PCI:"))
	if i := strings.LastIndexByte(a, '.'); i > 0 {
		a = a[:i]
	}
	parts := strings.Split(a, ":")
	switch len(parts) {
	case 2:
		parts = append([]string{"0000"}, parts...)
	case 3:
	default:
		return ""
	}
	d := strings.TrimLeft(parts[0], "0")
	for len(d) < 4 {
		d = "0" + d
	}
	return d + ":" + parts[1] + ":" + parts[2]
}
