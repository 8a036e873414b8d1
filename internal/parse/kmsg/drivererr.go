package kmsg

import "strings"

// KindDriverError is the catch-all of the Classifier: a line of an RDMA,
// RDMA storage, network or NVIDIA GPU driver that reports a failure in a
// wording no row of Patterns knows. It is given only for a record nothing
// else took (no pattern, no crash report, no CQE dump). Driver is the
// driver as the line names it ("mlx5_core", "NVRM"), PCI and Interface the
// device when the line names one, Detail the message after the driver's
// prefix.
const KindDriverError Kind = "driver_error"

// errorDrivers are the first words of the lines of the drivers the
// catch-all reads: the dev_printk driver name ("mlx5_core 0000:3b:00.0:
// …", include/linux/dev_printk.h), the pr_fmt module name ("mlx5_ib: …",
// "ib_core: …") or the prefix the driver prints itself ("NVRM: …",
// "nvidia-peermem: …"). "infiniband" is dev_printk of an RDMA device
// (the class name, drivers/infiniband/core/device.c), "nvme" that of an
// NVMe controller ("nvme nvme0: …", drivers/nvme/host/core.c). They are:
//   - the RDMA stack: its core modules, the HCA and RDMA NIC drivers, and
//     the upper layers that run over RDMA (SRP, iSER, NFS over RDMA,
//     NVMe over RDMA, SMC-R);
//   - the Ethernet NIC drivers of GPU and storage nodes (the RoCE NICs'
//     own netdev drivers, Intel, Broadcom, AWS, Google, Microsoft and
//     others): a failing NIC on a cluster node is the operator's concern
//     even when it carries no RDMA;
//   - NVMe (local and over fabrics), the scratch and checkpoint disks of
//     training nodes;
//   - NVIDIA's GPU driver and its modules.
var errorDrivers = map[string]bool{
	// RDMA core, HCAs and RDMA NICs.
	"mlx5_core": true, "mlx5_ib": true, "mlx4_core": true, "mlx4_en": true, "mlx4_ib": true,
	"ib_core": true, "ib_ipoib": true, "ib_uverbs": true, "ib_umad": true, "ib_cm": true, "rdma_cm": true,
	"rdma_ucm": true, "rdma_rxe": true, "infiniband": true, "bnxt_re": true, "bnxt_en": true, "irdma": true,
	"hns_roce": true, "hns3": true, "efa": true, "qedr": true, "siw": true, "hfi1": true, "qib": true,
	"mana_ib": true, "erdma": true, "vmw_pvrdma": true, "ocrdma": true, "iw_cxgb4": true, "i40iw": true,
	"ionic_rdma": true, "usnic_verbs": true,
	// The older InfiniBand HCA drivers name themselves by module
	// (drivers/infiniband/hw/mthca mthca_main.c DRV_NAME "ib_mthca",
	// hw/qib qib.h QIB_DRV_NAME "ib_qib").
	"ib_mthca": true, "ib_qib": true,
	// Upper layers over RDMA.
	"ib_srp": true, "ib_srpt": true, "ib_iser": true, "ib_isert": true, "rpcrdma": true, "svcrdma": true,
	"nvme_rdma": true, "nvme-rdma": true, "nvmet_rdma": true, "nvmet-rdma": true, "rds_rdma": true, "smc": true,
	// The in-kernel SMB server's SMB Direct transport (fs/smb/server/transport_rdma.c, SUBMOD_NAME
	// "smb_direct" after ksmbd's pr_fmt "ksmbd: "): only its "ksmbd: smb_direct: …" lines are
	// RDMA's (only those are read); ksmbd's other lines are about SMB over TCP.
	"ksmbd": true,
	// Ethernet NICs.
	"ice": true, "i40e": true, "iavf": true, "ixgbe": true, "ixgbevf": true, "igb": true, "igc": true,
	"e1000e": true, "ena": true, "gve": true, "mana": true, "tg3": true, "bnx2x": true, "qede": true, "qed": true,
	"sfc": true, "nfp": true, "cxgb4": true, "be2net": true, "enic": true, "ionic": true, "hinic": true,
	"atlantic": true, "r8169": true,
	// NVMe.
	"nvme": true, "nvme-fabrics": true, "nvme_fabrics": true, "nvmet": true,
	// NVIDIA.
	"NVRM": true, "nvidia": true, "nvidia-peermem": true, "nv_peer_mem": true, "nvidia-nvswitch": true,
	"nvidia-uvm": true, "gdrdrv": true,
}

// classDeviceDrivers are the prefixes of dev_printk lines of a class
// device, not a PCI function: "infiniband mlx5_0: …", "nvme nvme0: …".
var classDeviceDrivers = map[string]bool{"infiniband": true, "nvme": true}

// driverErrorClass reads a record text that no pattern took: the driver,
// device and message of a driver's failure line, ok false for any other
// line. Most lines are rejected by their first bytes.
func driverErrorClass(text string) (ev Event, ok bool) {
	if len(text) < 8 {
		return ev, false
	}
	// A driver name starts with a letter and ends at a space or ':'.
	if c := text[0] | 0x20; c < 'a' || c > 'z' {
		return ev, false
	}
	end := 1
	for end < len(text) && end < 24 && text[end] != ' ' && text[end] != ':' {
		end++
	}
	if end == len(text) || end == 24 {
		return ev, false
	}
	drv := text[:end]
	if strings.HasPrefix(drv, "nvidia-nvswitch") {
		drv = "nvidia-nvswitch" // "nvidia-nvswitch3: …"
	}
	if !errorDrivers[drv] {
		return ev, false
	}
	rest := text[end:]
	ev = Event{Kind: KindDriverError, Driver: drv, IsError: true}
	// "<driver> <bdf>[ <netdev|ibdev>]: ", "<driver>: ", "infiniband <ibdev>: ",
	// "nvme <ctrl>: ".
	if rest[0] == ' ' {
		tok, after, _ := strings.Cut(rest[1:], " ")
		if a := addr(strings.TrimSuffix(tok, ":")); a != "" {
			ev.PCI = a
			if !strings.HasSuffix(tok, ":") {
				// "<bdf> <netdev>: …"
				name, msg, found := strings.Cut(after, ": ")
				if !found || strings.Contains(name, " ") {
					return ev, false
				}
				ev.Interface, after = name, msg
			}
		} else if name, ok := strings.CutSuffix(tok, ":"); ok && classDeviceDrivers[drv] {
			ev.Interface = name
		} else if drv == "nvidia-peermem" && strings.Contains(tok, ":") && strings.HasPrefix(after, "ERROR ") {
			// open-gpu-kernel-modules nvidia-peermem.c peer_err:
			// "nvidia-peermem %s:%d ERROR " before the message.
		} else {
			return ev, false
		}
		rest = after
	} else {
		rest = rest[1:]
	}
	if drv == "NVRM" {
		// "NVRM: GPU 0000:3b:00.0: …", "NVRM: GPU at PCI:0000:3b:00: …".
		if m := reGPUAddr.FindStringSubmatch(text); m != nil {
			ev.PCI = addr(m[1])
		}
	}
	msg := strings.TrimSpace(rest)
	if drv == "ksmbd" && !strings.HasPrefix(msg, "smb_direct: ") {
		return ev, false
	}
	if ev.PCI == "" {
		// The driver core names the function in the message:
		// "ib_mthca: probe of 0000:04:00.0 failed with error -16"
		// (drivers/base/dd.c).
		if tok, ok := strings.CutPrefix(msg, "probe of "); ok {
			tok, _, _ = strings.Cut(tok, " ")
			ev.PCI = addr(tok)
		}
	}
	if !errorWording(msg, nvidiaDriver(drv)) || benignDriverLine(msg) {
		return ev, false
	}
	ev.Detail = msg
	return ev, true
}

// benignDriverLines are failure-worded lines a driver's prefix carries
// that report no fault of the driver, each with who prints it and why it
// is not one: prefixes of the message after the driver's prefix, and
// substrings.
var (
	benignDriverPrefixes = []string{
		// kernel/module/signing.c module_sig_check: "nvidia: module
		// verification failed: signature and/or required key missing -
		// tainting kernel": an unsigned out-of-tree module, loaded.
		"module verification failed",
		// drivers/base/firmware_loader/main.c _request_firmware: "Direct
		// firmware load for %s failed with error %d": an optional file
		// the driver looks for first (-2, ENOENT) before its fallback.
		"Direct firmware load for ",
		// drivers/pci/pcie/aer.c aer_print_error, __aer_print_error and
		// err.c report_error_detected print the device's PCIe errors
		// with its driver's prefix ("AER: PCIe Bus Error: …", "AER:
		// device [15b3:1021] error status/mask=…", "AER: can't recover (no
		// error_detected callback)"; older kernels without "AER: "): the
		// PCIe error rule reads those reports.
		"AER:", "PCIe Bus Error", "device [",
		// drivers/base/firmware_loader/main.c fw_log_firmware_info and
		// _request_firmware: "firmware: failed to load rtl_nic/….fw (-2)"
		// is the loader's line about a file it did not find; a driver that
		// cannot run without it says so in its own line.
		"firmware: failed to load ",
		// drivers/nvme/host/core.c nvme_init_ctrl_finish: "Shutdown
		// timeout set to 10 seconds" reports the controller's RTD3 entry
		// latency, no timeout that happened.
		"Shutdown timeout set to ",
	}
	benignDriverSubstrings = []string{
		// A capability the device or firmware lacks: the driver says so
		// and goes on without it ("not supported", EOPNOTSUPP is errno 95
		// in include/uapi/asm-generic/errno.h).
		"not supported", "-95)", " -95",
	}
)

// benignDriverLine reports whether a failure-worded line of a driver is
// one it prints when nothing is wrong (benignDriverPrefixes).
func benignDriverLine(msg string) bool {
	for _, p := range benignDriverPrefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	for _, p := range benignDriverSubstrings {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// errorWords are the words of a failure, lower case; a match must start a
// word ("terror" is none).
var errorWords = []string{"error", "fail", "timeout", "timed out", "abort", "fatal", "unable to", "cannot", "can't",
	"not responding", "bad ", "corrupt", "lost", "unrecoverable", "syndrome", "err -", "err(-", "err=-", "err: -",
	// NVIDIA's error reports: an Xid in a form the Xid row does not read,
	// and the fall off the bus in another wording. They count only in the
	// lines of NVIDIA's drivers: r8169 prints its chip's "XID 64a" when a
	// port comes up (drivers/net/ethernet/realtek/r8169_main.c).
	"xid", "fallen off"}

// nvidiaOnlyWords is how many words at the end of errorWords count only in
// the lines of NVIDIA's drivers.
const nvidiaOnlyWords = 2

// nvidiaDriver reports whether drv is NVIDIA's GPU driver or one of its
// modules.
func nvidiaDriver(drv string) bool {
	return drv == "NVRM" || strings.HasPrefix(drv, "nvidia") || drv == "nv_peer_mem" || drv == "gdrdrv"
}

// errorWording reports whether msg says something failed: one pass over
// it, trying the words that start with the letter at each word start.
// "fail" that begins "failover" or "failsafe" is no failure (mlx5 lag,
// bonding). nvidia says whether the line is one of NVIDIA's drivers, whose
// words alone the last nvidiaOnlyWords of errorWords are.
func errorWording(msg string, nvidia bool) bool {
	words := errorWords
	if !nvidia {
		words = words[:len(words)-nvidiaOnlyWords]
	}
	for i := 0; i < len(msg); i++ {
		if i > 0 && isAlnum(msg[i-1]) {
			continue
		}
		c := msg[i] | 0x20
		switch c {
		case 'a', 'b', 'c', 'e', 'f', 'l', 'n', 's', 't', 'u', 'x':
		default:
			continue
		}
		for _, w := range words {
			if w[0] != c || !hasPrefixFold(msg[i:], w) {
				continue
			}
			if rest := msg[i+len(w):]; w == "fail" && (hasPrefixFold(rest, "over") || hasPrefixFold(rest, "safe")) {
				continue
			}
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with p (lower case ASCII),
// compared without case.
func hasPrefixFold(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		c := s[j]
		if c >= 'A' && c <= 'Z' {
			c |= 0x20
		}
		if c != p[j] {
			return false
		}
	}
	return true
}

// DriverErrorSubject is the device a KindDriverError event is about: the
// PCI function, else the netdev or RDMA device, else "".
func DriverErrorSubject(e Event) string {
	if e.PCI != "" {
		return string(e.PCI)
	}
	return e.Interface
}

// stackModulePrefixes and stackModules name the kernel modules of the
// RDMA and GPU stack beyond errorDrivers, as the module loader names
// them (underscores for dashes): the RDMA core and its upper layers
// (ib_*, rdma_*, iw_*), every Mellanox/NVIDIA NIC module and MLNX_OFED's
// own (mlx*: mlx5_core, mlx_compat, mlxfw, mlxdevm), NVIDIA's GPU driver
// and its modules, NVMe (MLNX_OFED rebuilds nvme_core and nvme_rdma),
// Lustre's LNet and its network drivers, GPUDirect (nv_peer_mem,
// gdrdrv), the shared-memory modules MPI uses (knem, xpmem), and
// MLNX_OFED's memtrack and auxiliary bus.
var (
	stackModulePrefixes = []string{"ib_", "rdma_", "iw_", "mlx", "nvidia", "nvme"}
	stackModules        = map[string]bool{
		"ko2iblnd": true, "kkfilnd": true, "ksocklnd": true, "lnet": true, "libcfs": true,
		"gdrdrv": true, "knem": true, "xpmem": true, "memtrack": true, "auxiliary": true,
	}
)

// StackModule reports whether the kernel module name (as the module
// loader prints it, or with dashes) is one of the RDMA, GPU, NIC or NVMe
// stack of a cluster node: the drivers the catch-all reads and the
// modules of stackModules.
func StackModule(name string) bool {
	name = strings.ReplaceAll(name, "-", "_")
	if stackModules[name] || errorDrivers[name] || errorDrivers[strings.ReplaceAll(name, "_", "-")] {
		return true
	}
	for _, p := range stackModulePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
