package node

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// ToolError is the line of an RDMA tool that could not run: Kind is
// "verbs_list_failed", "umad_unavailable", "ca_stat_failed",
// "ca_not_found", "no_verbs_device" or "open_device_failed" (the kinds of hcatext.ToolErrorLine, which the
// parse package names), Device the device it names, Errno the strerror
// text it ends with, Line and Text where it stands in the file.
type ToolError struct {
	Kind   string
	Device string
	Port   int
	Errno  string
	Line   int
	Text   string
}

// enosys is strerror(ENOSYS) as glibc prints it.
const enosys = "Function not implemented"

// CheckToolErrors judges the errors of RDMA tools that could not run
// (read by hcatext.ToolErrorLine):
//
//   - ibv_get_device_list failing with ENOSYS ("Failed to get IB devices
//     list: Function not implemented"): libibverbs returns ENOSYS when
//     /sys/class/infiniband_verbs cannot be opened or its abi_version read,
//     or the kernel's uverbs ABI is outside the library's range (rdma-core
//     libibverbs/init.c find_sysfs_devs, check_abi_version): the ib_uverbs
//     module is not loaded, or sysfs is not mounted where the tool ran.
//     No verbs device is usable there: container.uverbs_missing, critical.
//     Other errnos (ENOMEM …) and perftest's bare line say nothing about
//     the devices and are left unjudged (the note says so).
//   - ibstat's "'X' IB device can't be found": port.missing for X,
//     critical, as ibstatus' "sys files not found".
//   - ibstat's "stat of IB device 'X' failed": the device is listed but
//     its attributes could not be read (libibumad/umad.c get_ca,
//     get_port); port.missing for X as a warning, since the paste does
//     not show whether that function is an RDMA port jobs use.
//   - ibv_devinfo's "Failed to open device": the device is listed but
//     its uverbs character device could not be opened:
//     container.uverbs_missing, critical.
//   - perftest's "Did not detect devices": libibverbs listed none, as
//     ibv_devinfo's "No IB devices found": port.missing, critical.
//   - the umad errors: container.umad_missing, one finding for the paste.
//
// file names the paste; the errors' lines are the file's.
func CheckToolErrors(file string, es []ToolError) (out []finding.Finding, note string) {
	var umad []finding.Evidence
	umadWhy := ""
	var unjudged []string
	seen := map[string]bool{}
	for _, e := range es {
		ev := finding.Evidence{Source: fmt.Sprintf("%s:%d", file, e.Line), Value: e.Text}
		key := e.Kind + "\x00" + e.Device + "\x00" + e.Errno
		if e.Kind != "umad_unavailable" && seen[key] {
			continue
		}
		seen[key] = true
		switch e.Kind {
		case "verbs_list_failed":
			if e.Errno != enosys {
				why := e.Errno
				if why == "" {
					why = "no reason printed"
				}
				unjudged = append(unjudged, fmt.Sprintf("line %d: ibv_get_device_list failed (%s)", e.Line, why))
				continue
			}
			f := catalog.New("container.uverbs_missing", finding.Subject{File: file},
				"libibverbs could not list the RDMA devices (ibv_get_device_list: Function not implemented, ENOSYS): /sys/class/infiniband_verbs or its abi_version could not be read, so the ib_uverbs module is not loaded on the host (a container shares the host's kernel), or sysfs is not mounted where the tool ran; a libibverbs line \"Fatal: kernel ABI version … doesn't match\" above it would mean a uverbs ABI mismatch instead. No process there can use RDMA (NCCL falls back to TCP sockets). Confirm with lsmod | grep -E 'ib_|mlx' and ls /sys/class/infiniband_verbs /dev/infiniband; fix with modprobe ib_uverbs on the host (and docker run --device=/dev/infiniband … for a container)",
				ev)
			f.Severity = finding.Critical
			out = append(out, f)
		case "open_device_failed":
			f := catalog.New("container.uverbs_missing", finding.Subject{File: file},
				"ibv_devinfo lists an RDMA device but could not open it (ibv_open_device failed): its /dev/infiniband/uverbsN is missing or not openable where the tool ran (a container started without --device=/dev/infiniband, a device cgroup that denies it), or the provider could not set up its context. No process there can use that device. Confirm with ls -l /dev/infiniband (uverbsN for each device in /sys/class/infiniband_verbs); fix with docker run --device=/dev/infiniband … or the RDMA device plugin",
				ev)
			f.Severity = finding.Critical
			out = append(out, f)
		case "dpdk_no_verbs_device":
			what := "the NIC it was to probe"
			if e.Device != "" {
				what = "PCI device " + e.Device
			}
			f := catalog.New("container.uverbs_missing", finding.Subject{File: file, Device: e.Device},
				"DPDK's mlx4/mlx5 poll-mode driver found no Verbs device for "+what+" (the PMD drives the NIC through libibverbs): the kernel's ib_uverbs and mlx4_ib/mlx5_ib modules are not loaded, or the VF is not bound to mlx4_core/mlx5_core, or /dev/infiniband is not in the container, so the port cannot be used by the application. Confirm with lsmod | grep -E 'ib_uverbs|mlx._ib', ibv_devinfo -l and ls /sys/class/infiniband_verbs; fix with modprobe ib_uverbs mlx5_ib (mlx4_ib for ConnectX-3) and keep the NIC on the mlx5_core/mlx4_core kernel driver (DPDK's mlx PMDs do not use vfio-pci)",
				ev)
			f.Severity = finding.Critical
			out = append(out, f)
		case "no_verbs_device":
			out = append(out, CheckAbsent(file, []Absent{{Line: e.Line, Text: e.Text, Verbs: true}})...)
		case "ca_not_found":
			out = append(out, CheckAbsent(file, []Absent{{Device: e.Device, Line: e.Line, Text: e.Text}})...)
		case "nhc_port_not_active":
			port := "no InfiniBand or Omni-Path port"
			if e.Device != "" {
				port = "that " + e.Device
				if e.Port > 0 {
					port += fmt.Sprintf(" port %d", e.Port)
				}
				port += " is not"
			}
			f := catalog.New("port.down", finding.Subject{Device: e.Device, Port: e.Port, File: file},
				fmt.Sprintf("the node failed its LBNL NHC health check: check_hw_ib found %s in state ACTIVE with physical state %s as required (lbnl_hw.nhc reads state, phys_state and rate under /sys/class/infiniband/*/ports/*), so the scheduler drains it. A port physically up but not Active (INIT or ARMED) waits for the subnet manager (or, on Omni-Path, the fabric manager) to bring it up; a port down or polling has no link. Confirm with ibstat (or opainfo on Omni-Path) and check that the subnet or fabric manager runs and reaches this port", port, e.Errno),
				ev)
			f.Severity = finding.Critical
			out = append(out, f)
		case "ca_stat_failed":
			why := ""
			if e.Errno != "" {
				why = " (" + e.Errno + ")"
			}
			f := catalog.New("port.missing", finding.Subject{Device: e.Device, File: file},
				fmt.Sprintf("ibstat could not read the attributes of %s%s: /sys/class/infiniband lists it, but a file of the device or of its ports could not be read (a function that is no InfiniBand or RoCE port, such as Azure's accelerated-networking mlx5_an0; a device being reset or removed; a port attribute the driver refuses, such as rate with no cable), and an older ibstat stops there, showing no device after it. Whether jobs use %s the paste cannot tell: check with ls /sys/class/infiniband/%s/ports/*/ and ibstatus, and run ibstat on the other devices by name", e.Device, why, e.Device, e.Device),
				ev)
			f.Severity = finding.Warning
			out = append(out, f)
		case "umad_unavailable":
			if len(umad) < 3 {
				umad = append(umad, ev)
			}
			switch {
			case strings.Contains(e.Text, "is ib_umad module loaded?") || e.Errno == "No such file or directory" && umadWhy == "":
				umadWhy = "The ib_umad module is not loaded (/sys/class/infiniband_mad is absent): modprobe ib_umad on the host"
			case (e.Errno == "Permission denied" || e.Errno == "Operation not permitted") && umadWhy == "":
				umadWhy = "The umad device could not be opened (" + e.Errno + "): run the tool as root, or pass /dev/infiniband/umadN into the container"
			}
		}
	}
	if len(umad) > 0 {
		sum := "the tool could not open the user-MAD interface, so no infiniband-diags query (ibnetdiscover, perfquery, saquery, smpquery) can run from here; verbs traffic does not need it. "
		if umadWhy != "" {
			sum += umadWhy
		} else {
			sum += "Either the ib_umad module is not loaded, /dev/infiniband/umadN was not passed into the container, or the user is not root: tell with lsmod | grep -E 'ib_|mlx' and ls -l /dev/infiniband (the libibmad line printed above it, \"can't open UMAD port\" or \"client_register … failed\", tells this apart from a port without the management class asked for, such as an Ethernet port)"
		}
		out = append(out, catalog.New("container.umad_missing", finding.Subject{File: file}, sum, umad...))
	}
	if len(unjudged) > 0 {
		note = strings.Join(unjudged, "; ") + ": only ENOSYS (Function not implemented) says what is missing"
	}
	return out, note
}
