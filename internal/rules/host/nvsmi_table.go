package host

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// sensorFields are the cells whose "ERR!" alone says a sensor failed, not
// the GPU: a dead fan or power sensor reads ERR! on a working GPU.
var sensorFields = map[string]bool{"Fan": true, "Pwr:Usage/Cap": true, "Temp": true}

// CheckPastedTable judges the plain nvidia-smi table: a GPU with "ERR!"
// in its cells is gpu.nvml_error (critical when more than a sensor field
// fails: the GPU no longer answers NVML), a non-zero "Volatile Uncorr.
// ECC" is gpu.ecc_uncorrectable. Anything else the table shows (load,
// temperature, performance state, processes) is not a fault.
func CheckPastedTable(t *nvsmi.Table, source string) []finding.Finding {
	var out []finding.Finding
	if t.Failure != "" {
		out = append(out, smiFailed(t, source))
	}
	for _, g := range t.GPUs {
		label := fmt.Sprintf("GPU%d", g.Index)
		if g.Name != "" && g.Name != "ERR!" {
			label += " (" + g.Name + ")"
		}
		if g.BusID != "" && g.BusID != "ERR!" {
			label += " at " + g.BusID
		}
		pci := g.BusID
		if pci == "ERR!" {
			pci = ""
		}
		subj := finding.Subject{PCI: pci, GPU: fmt.Sprint(g.Index), File: source}
		ev := finding.Evidence{Source: fmt.Sprintf("%s:%d", source, g.Line), Value: g.Text}
		if len(g.Errs) > 0 {
			sensors := true
			for _, e := range g.Errs {
				sensors = sensors && sensorFields[e]
			}
			f := catalog.New("gpu.nvml_error", subj, fmt.Sprintf("nvidia-smi prints ERR! for %s of %s: NVML could not read %s", strings.Join(g.Errs, ", "), label, pick(len(g.Errs), "that field", "those fields")), ev)
			if sensors {
				f.Summary += "; the GPU answers otherwise: a failed sensor (a broken fan or power sensor), check it with nvidia-smi -q -i " + fmt.Sprint(g.Index)
			} else {
				f.Severity = finding.Critical
				f.Summary += "; the GPU no longer answers the driver (look for an Xid in the kernel log): every job on it is dead, reset it"
			}
			out = append(out, f)
		}
		if g.ECC > 0 {
			out = append(out, catalog.New("gpu.ecc_uncorrectable", subj,
				fmt.Sprintf("%s counted %d uncorrectable ECC %s since the driver loaded (Volatile Uncorr. ECC): the process that hit it was stopped; drain the GPU, check nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER and reset it", label, g.ECC, pick(g.ECC, "error", "errors")), ev))
		}
	}
	return out
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// smiFailed judges nvidia-smi's own failure message: no GPU of the node
// can be used (gpu.smi_failed, critical), with what each message means.
func smiFailed(t *nvsmi.Table, source string) finding.Finding {
	why := "nvidia-smi could not read the GPUs"
	switch {
	case t.Failure == "No devices were found":
		why = "the NVIDIA driver is loaded but sees no GPU: the GPUs fell off the bus (look for Xid 79 in the kernel log), are bound to another driver (vfio-pci, nouveau), or the container was started without GPU access"
	case strings.Contains(t.Failure, "couldn't communicate with the NVIDIA driver"):
		why = "nvidia-smi cannot talk to the NVIDIA kernel driver: the module is not loaded or failed to load (a new kernel without the module rebuilt by DKMS, Secure Boot refusing an unsigned module; dmesg | grep -i nvidia tells), or the GPUs it drove are gone"
	case strings.Contains(t.Failure, "version mismatch"):
		why = "the NVIDIA kernel module loaded is not the version of the user-space library (a driver upgraded without a reboot or module reload): cat /proc/driver/nvidia/version against the library's version"
	case strings.HasPrefix(t.Failure, "Failed to initialize NVML: "):
		why = "NVML could not start (" + strings.TrimPrefix(t.Failure, "Failed to initialize NVML: ") + "): the driver or its device files are not usable here"
	}
	return catalog.New("gpu.smi_failed", finding.Subject{File: source}, why+"; no GPU job can run on this node until it is fixed",
		finding.Evidence{Source: fmt.Sprintf("%s:%d", source, t.FailureLine), Value: t.Failure})
}
