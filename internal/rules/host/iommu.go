package host

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// IOMMUMode is what the kernel command line says about DMA remapping.
type IOMMUMode string

// IOMMU modes.
const (
	// IOMMUUnset: the command line says nothing; the kernel's build
	// configuration decides, which the command line does not show.
	IOMMUUnset IOMMUMode = "unset"
	// IOMMUPassthrough: iommu=pt or iommu.passthrough=1 (identity mapping
	// for DMA: peer-to-peer reads go straight through).
	IOMMUPassthrough IOMMUMode = "passthrough"
	// IOMMUOff: intel_iommu=off, amd_iommu=off or iommu=off.
	IOMMUOff IOMMUMode = "off"
	// IOMMUTranslated: intel_iommu=on (or iommu.passthrough=0) without a
	// passthrough parameter: every DMA address is translated.
	IOMMUTranslated IOMMUMode = "translated"
)

// ParseIOMMUMode reads the IOMMU parameters of a kernel command line
// (Documentation/admin-guide/kernel-parameters.txt: iommu=, intel_iommu=,
// amd_iommu=, iommu.passthrough=). Passthrough and off win over on: the
// kernel applies iommu=pt on top of intel_iommu=on. It returns the mode
// and the parameters that decided it.
func ParseIOMMUMode(cmdline string) (IOMMUMode, []string) {
	var on, pt, off []string
	for _, p := range strings.Fields(cmdline) {
		k, v, _ := strings.Cut(p, "=")
		opts := strings.Split(v, ",")
		has := func(o string) bool {
			for _, x := range opts {
				if x == o {
					return true
				}
			}
			return false
		}
		switch k {
		case "iommu":
			switch {
			case has("pt"):
				pt = append(pt, p)
			case has("off"):
				off = append(off, p)
			case has("nopt"), has("force"):
				on = append(on, p)
			}
		case "iommu.passthrough":
			switch v {
			case "1", "y", "Y", "on":
				pt = append(pt, p)
			case "0", "n", "N", "off":
				on = append(on, p)
			}
		case "intel_iommu":
			switch {
			case has("off"):
				off = append(off, p)
			case has("on"):
				on = append(on, p)
			}
		case "amd_iommu":
			if has("off") {
				off = append(off, p)
			}
		}
	}
	switch {
	case len(pt) > 0:
		return IOMMUPassthrough, pt
	case len(off) > 0:
		return IOMMUOff, off
	case len(on) > 0:
		return IOMMUTranslated, on
	}
	return IOMMUUnset, nil
}

// checkIOMMU warns when the command line puts the IOMMU in translated
// mode on a node with GPUs and RDMA devices: GPUDirect RDMA's
// peer-to-peer reads then go through address translation (or fail), which
// NVIDIA's GPUDirect RDMA and NCCL documentation advise against on bare
// metal. With sys/class/iommu listed and empty the IOMMU did not come up
// (firmware without DMAR/IVRS tables): nothing is translated.
func checkIOMMU(in *Input) []finding.Finding {
	s := in.Snap
	if in.Cmdline == nil || len(s.GPUs()) == 0 || len(s.Devices) == 0 {
		return nil
	}
	mode, params := ParseIOMMUMode(*in.Cmdline)
	if mode != IOMMUTranslated || in.IOMMUs != nil && len(in.IOMMUs) == 0 {
		return nil
	}
	ev := []finding.Evidence{{Source: "proc/cmdline", Value: *in.Cmdline}}
	if len(in.IOMMUs) > 0 {
		ev = append(ev, finding.Evidence{Source: "sys/class/iommu", Value: strings.Join(in.IOMMUs, " ")})
	}
	return []finding.Finding{catalog.New("host.iommu_translated", finding.Subject{Host: s.Host},
		fmt.Sprintf("the IOMMU translates DMA (%s without iommu=pt): GPUDirect RDMA between %d GPUs and %d RDMA devices goes through address translation", strings.Join(params, " "), len(s.GPUs()), len(s.Devices)),
		ev...)}
}
