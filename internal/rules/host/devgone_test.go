package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// pcie.device_lost: a driver says its device left the bus, one finding per
// device; critical for a NIC, a warning for an NVMe controller. The ixgbe
// lines are from a linux-pci mail (analyze testdata/realworld-fresh24,
// dmesg-linuxpci-ixgbe-advisory-nonfatal-adapter-removed.txt), the nvme one
// from dmesg-linuxpci-edr-dpc-fatal-malftlp-nvme-quoted.txt; igc as
// igc_main.c igc_rd32 prints it.
func TestCheckDeviceGone(t *testing.T) {
	for _, tt := range []struct {
		name string
		log  []string
		want []string
	}{
		{"ixgbe adapter removed at probe", []string{
			"ixgbe 0000:05:00.0: enabling device (0000 -> 0002)",
			"ixgbe 0000:05:00.0: Adapter removed",
		}, []string{`pcie.device_lost critical: ixgbe 0000:05:00.0 fell off the PCIe bus: ixgbe says "Adapter removed" (its register reads return all ones): a network adapter, unusable until it is back on the bus`}},
		{"igc link lost, twice: one finding", []string{
			"igc 0000:0b:00.0 enp11s0: PCIe link lost, device now detached",
			"igc 0000:0b:00.0 enp11s0: PCIe link lost, device now detached",
		}, []string{`pcie.device_lost critical: igc 0000:0b:00.0 fell off the PCIe bus: igc says "PCIe link lost"`}},
		{"mlx5 PCI channel offline", []string{
			"mlx5_core 0004:01:00.0: mlx5_error_sw_reset:252:(pid 1618): PCI channel offline, stop waiting for NIC IFC",
		}, []string{`pcie.device_lost critical: mlx5_core 0004:01:00.0 fell off the PCIe bus: mlx5_core says "PCI channel offline" (the PCI core took the device offline`}},
		{"nvme disabled after reset: a warning", []string{
			"nvme nvme1: I/O 22 QID 0 timeout, disable controller",
			"nvme nvme1: Disabling device after reset failure: -5",
		}, []string{`pcie.device_lost warning: NVMe controller nvme1 is gone: "Disabling device after reset failure: -5"`}},
		{"probe lines alone: nothing", []string{
			"ixgbe 0000:05:00.0: enabling device (0000 -> 0002)",
			"ixgbe 0000:05:00.0: Intel(R) 10 Gigabit Network Connection",
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) { checkFindings(t, judge(checkDeviceGone, tt.log...), tt.want) })
	}
}

// An NVMe controller's finding names how to find its PCI address: the
// log names the controller only, and the catalog's lspci line asks for
// an address.
func TestDeviceGoneNVMeRemedy(t *testing.T) {
	fs := checkDeviceGone(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf("nvme nvme1: Disabling device after reset failure: -5")})
	if len(fs) != 1 || len(fs[0].Remedy) == 0 || !strings.HasPrefix(fs[0].Remedy[0], "readlink -f /sys/class/nvme/nvme1/device") {
		t.Fatalf("remedies %q", fs[0].Remedy)
	}
	for _, r := range fs[0].Remedy {
		if strings.Contains(r, "<pci>") {
			t.Errorf("unfilled address in %q", r)
		}
	}
}
