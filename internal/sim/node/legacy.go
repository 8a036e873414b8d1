package node

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// LegacyKernel is the kernel the old-kernel fault simulates: Debian 10's
// 4.19, the first kernel with the AER statistics files.
const LegacyKernel = "4.19.0-27-amd64"

// The formats a 4.19 kernel prints differently (Node.Legacy):
//   - PCIe link speeds without ".0" and "PCIe" ("8 GT/s", "16 GT/s"), and
//     "Unknown speed" for 32 GT/s, which it predates (pci-sysfs.c before
//     pci_speed_string, kernel ≤5.6; NCCL topo.cc keeps a table for them);
//   - AER statistics with the long names of the ABI document's samples
//     (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats, 4.19),
//     including the kernel's "RELAY_NUM Rollover";
//   - port rates without a name for SDR ("10 Gb/sec (4X)") and lane speeds
//     it does not know (NDR, XDR) falling back to SDR in rate_show, so an
//     NDR link reads as 4X SDR;
//   - the AER port message "Corrected error received: <bdf>" with the old
//     severity names (Corrected, Uncorrected (Non-Fatal), Uncorrected
//     (Fatal)).
var (
	legacyCorNames = [32]string{0: "Receiver Error", 6: "Bad TLP", 7: "Bad DLLP", 8: "RELAY_NUM Rollover",
		12: "Replay Timer Timeout", 13: "Advisory Non-Fatal", 14: "Corrected Internal Error", 15: "Header Log Overflow"}
	legacyUncorNames = [32]string{0: "Undefined", 4: "Data Link Protocol", 5: "Surprise Down Error", 12: "Poisoned TLP",
		13: "Flow Control Protocol", 14: "Completion Timeout", 15: "Completer Abort", 16: "Unexpected Completion",
		17: "Receiver Overflow", 18: "Malformed TLP", 19: "ECRC", 20: "Unsupported Request", 21: "ACS Violation",
		22: "Uncorrectable Internal Error", 23: "MC Blocked TLP", 24: "AtomicOp Egress Blocked", 25: "TLP Prefix Blocked Error"}
)

// speedString renders a PCIe link speed as the node's kernel does.
func (n *Node) speedString(s pcie.Speed) string {
	if !n.Legacy {
		return s.String()
	}
	switch s {
	case pcie.Gen1:
		return "2.5 GT/s"
	case pcie.Gen2:
		return "5 GT/s"
	case pcie.Gen3:
		return "8 GT/s"
	case pcie.Gen4:
		return "16 GT/s"
	}
	return "Unknown speed"
}

// rateString renders a port rate as the node's kernel does.
func (n *Node) rateString(r ib.Rate) string {
	if !n.Legacy {
		return r.Sysfs()
	}
	if r.Speed == ib.SpeedSDR || r.Speed.Generation() > ib.SpeedHDR.Generation() {
		// rate_show's default: 2.5 Gb/s per lane, no name.
		d := 25 * r.Width
		if d%10 != 0 {
			return fmt.Sprintf("%d.%d Gb/sec (%dX)", d/10, d%10, r.Width)
		}
		return fmt.Sprintf("%d Gb/sec (%dX)", d/10, r.Width)
	}
	return r.Sysfs()
}

// aerNames are the AER bit names of the node's kernel.
func (n *Node) aerNames() (cor, uncor [32]string) {
	if n.Legacy {
		return legacyCorNames, legacyUncorNames
	}
	return aerCorNames, aerUncorNames
}

func applyOldKernel(n *Node, _ Fault) error {
	n.Legacy = true
	n.Kernel = LegacyKernel
	return nil
}
