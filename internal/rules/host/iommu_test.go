package host

import (
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

func TestParseIOMMUMode(t *testing.T) {
	tests := []struct {
		cmdline string
		want    IOMMUMode
		params  []string
	}{
		{"BOOT_IMAGE=/vmlinuz ro quiet", IOMMUUnset, nil},
		{"ro intel_iommu=on iommu=pt", IOMMUPassthrough, []string{"iommu=pt"}},
		{"ro iommu=pt intel_iommu=on", IOMMUPassthrough, []string{"iommu=pt"}},
		{"ro intel_iommu=on", IOMMUTranslated, []string{"intel_iommu=on"}},
		{"ro intel_iommu=on,sm_on", IOMMUTranslated, []string{"intel_iommu=on,sm_on"}},
		{"ro iommu.passthrough=0", IOMMUTranslated, []string{"iommu.passthrough=0"}},
		{"ro iommu.passthrough=1 intel_iommu=on", IOMMUPassthrough, []string{"iommu.passthrough=1"}},
		{"ro intel_iommu=off", IOMMUOff, []string{"intel_iommu=off"}},
		{"ro amd_iommu=off", IOMMUOff, []string{"amd_iommu=off"}},
		{"ro iommu=off", IOMMUOff, []string{"iommu=off"}},
		// Not a parameter of its own: a value that merely mentions it.
		{"ro foo=intel_iommu=on", IOMMUUnset, nil},
	}
	for _, tt := range tests {
		got, params := ParseIOMMUMode(tt.cmdline)
		if got != tt.want || !slices.Equal(params, tt.params) {
			t.Errorf("ParseIOMMUMode(%q) = %s %v, want %s %v", tt.cmdline, got, params, tt.want, tt.params)
		}
	}
}

func TestCheckIOMMU(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name    string
		cmdline *string
		iommus  []string
		noGPU   bool
		fire    bool
	}{
		{name: "translated, units listed", cmdline: str("ro intel_iommu=on"), iommus: []string{"dmar0"}, fire: true},
		{name: "translated, sys/class/iommu not collected", cmdline: str("ro intel_iommu=on"), fire: true},
		{name: "translated on the command line but no unit came up", cmdline: str("ro intel_iommu=on"), iommus: []string{}},
		{name: "passthrough", cmdline: str("ro intel_iommu=on iommu=pt"), iommus: []string{"dmar0"}},
		{name: "off", cmdline: str("ro intel_iommu=off")},
		{name: "not stated: the kernel's configuration decides", cmdline: str("ro quiet"), iommus: []string{"dmar0"}},
		{name: "command line unknown", iommus: []string{"dmar0"}},
		{name: "no GPU: GPUDirect RDMA not in play", cmdline: str("ro intel_iommu=on"), noGPU: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testNode()
			if tt.noGPU {
				s.PCI = slices.DeleteFunc(s.PCI, func(p snapshot.PCIDevice) bool { return p.IsGPU() })
			}
			got := checkIOMMU(&Input{Snap: s, Cmdline: tt.cmdline, IOMMUs: tt.iommus})
			if !tt.fire {
				if len(got) != 0 {
					t.Fatalf("fired: %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].ID != "host.iommu_translated" || got[0].Evidence[0].Value != *tt.cmdline ||
				!strings.Contains(got[0].Summary, "intel_iommu=on without iommu=pt") || len(got[0].Remedy) == 0 {
				t.Fatalf("got %+v", got)
			}
		})
	}
}
