package node

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Absent is a pasted tool's line saying an RDMA device does not exist:
// Device is the name it asked for, "" when it found none at all; Line and
// Text are the line's number in the file and its text.
// Verbs says the tool lists devices through libibverbs (ibv_devinfo),
// which also needs the user-space provider and /dev/infiniband.
type Absent struct {
	Device string
	Line   int
	Text   string
	Verbs  bool
}

// CheckAbsent reports the devices a pasted HCA tool says do not exist
// (ibstatus' "Fatal error:  device '*': sys files not found
// (/sys/class/infiniband/*/ports)"): port.missing, critical, since the
// tool was run where an RDMA device is expected and the kernel has none
// registered (or not the one named), so nothing on that host can use the
// fabric. file names the paste; the lines are the file's.
func CheckAbsent(file string, as []Absent) []finding.Finding {
	var out []finding.Finding
	for _, a := range as {
		subj := finding.Subject{Device: a.Device, File: file}
		sum := "the tool found no RDMA device at all: /sys/class/infiniband is empty or absent, so the kernel registered no HCA (driver not loaded or failed to probe, the card not enumerated on PCIe, or a container without the host's RDMA devices)"
		if a.Verbs && a.Device == "" {
			sum = "the tool found no RDMA device at all through libibverbs: the kernel registered no HCA (driver not loaded or failed to probe, the card not enumerated on PCIe), or this process cannot use them (no user-space verbs provider such as libmlx5 installed, or a container without /dev/infiniband); ls /sys/class/infiniband tells which"
		}
		if a.Device != "" {
			sum = fmt.Sprintf("the tool found no RDMA device %s: /sys/class/infiniband/%s/ports does not exist (the device is not registered, was renamed, or its driver failed to probe)", a.Device, a.Device)
		}
		f := catalog.New("port.missing", subj, sum,
			finding.Evidence{Source: fmt.Sprintf("%s:%d", file, a.Line), Value: a.Text})
		f.Severity = finding.Critical
		out = append(out, f)
	}
	return out
}

// VerbsWarn is a libibverbs warning of a pasted tool's output: Kind is
// "no provider" (Name a uverbs device no provider claims), "abi mismatch"
// (Name a device whose provider does not speak its kernel driver's uverbs
// ABI), "load failed"
// (Name a provider library that did not load) or "no config dir" (Name
// the directory); Line and Text where it stands in the file.
type VerbsWarn struct {
	Kind string
	Name string
	Line int
	Text string
}

// CheckVerbsProviders reports the uverbs devices libibverbs found no
// provider for ("libibverbs: Warning: no userspace device-specific driver
// found for /sys/class/infiniband_verbs/uverbs0"): the kernel has them,
// but nothing in user space can open them; and the devices whose provider
// does not support the kernel driver's uverbs ABI ("libibverbs: Warning:
// Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1)
// for device /sys/class/infiniband/bnxt_re2", rdma-core
// libibverbs/init.c): the provider in this image is older or newer than
// the host's kernel driver. listed is how many devices the
// tool still listed: with none, RDMA is unusable where it ran (critical;
// the tool's own "No IB devices found" or "0 HCAs found:" is this
// consequence and is not reported apart); with some, the others are
// lost (a warning). "couldn't load driver" lines alone are common on
// hosts whose driver list names hardware they lack, so they are only
// evidence here.
func CheckVerbsProviders(file string, ws []VerbsWarn, listed int) []finding.Finding {
	sum, fix, note, ev, ok := verbsProviders(file, ws)
	if !ok {
		return nil
	}
	sev := finding.Critical
	if listed == 0 {
		sum += ", and the tool lists no HCA: RDMA is unusable where it ran (NCCL falls back to TCP sockets, MPI and UCX leave RDMA out); " + fix
	} else {
		sev = finding.Warning
		sum += fmt.Sprintf("; %d other device(s) still listed", listed)
	}
	sum += note
	return providerFinding(file, sum, sev, ev)
}

// CheckLogVerbsProviders is CheckVerbsProviders for the warnings in a
// program's own log (an SPDK nvmf_tgt, an MPI rank), which lists no
// devices: noDev is the program's line saying it then found no RDMA
// device ("rdma_create_event_channel() failed, No such device"), nil when
// the log has none. With it RDMA is unusable where the program ran
// (critical); without it the log does not show whether another device
// served (a warning).
func CheckLogVerbsProviders(file string, ws []VerbsWarn, noDev *VerbsWarn) []finding.Finding {
	sum, fix, note, ev, ok := verbsProviders(file, ws)
	if !ok {
		sum, fix, ev, ok = verbsNoConfig(file, ws)
	}
	if !ok {
		return nil
	}
	sev := finding.Warning
	if noDev != nil {
		sev = finding.Critical
		sum += fmt.Sprintf(", and the program then found no RDMA device (line %d): RDMA is unusable where it ran; %s", noDev.Line, fix)
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, noDev.Line), Value: noDev.Text})
	} else {
		sum += "; the log does not show whether the program found another device; " + fix
	}
	sum += note
	return providerFinding(file, sum, sev, ev)
}

func providerFinding(file, sum string, sev finding.Severity, ev []finding.Evidence) []finding.Finding {
	f := catalog.New("host.verbs_provider_missing", finding.Subject{File: file}, sum, ev...)
	f.Severity = sev
	return []finding.Finding{f}
}

// verbsProviders is the summary, remedy and evidence of the provider
// warnings, and a note of providers that did not load; false when none
// loses a device.
func verbsProviders(file string, ws []VerbsWarn) (string, string, string, []finding.Evidence, bool) {
	var devs, abi []string
	var ev, loads []finding.Evidence
	for _, w := range ws {
		e := finding.Evidence{Source: fmt.Sprintf("%s:%d", file, w.Line), Value: w.Text}
		switch w.Kind {
		case "no provider", "abi mismatch":
			if w.Kind == "abi mismatch" {
				abi = append(abi, w.Name)
			} else {
				devs = append(devs, w.Name)
			}
			if len(ev) < 3 && !slices.ContainsFunc(ev, func(x finding.Evidence) bool { return x.Value == e.Value }) {
				ev = append(ev, e)
			}
		default:
			loads = append(loads, e)
		}
	}
	if len(devs)+len(abi) == 0 {
		return "", "", "", nil, false
	}
	slices.Sort(devs)
	devs = slices.Compact(devs)
	slices.Sort(abi)
	abi = slices.Compact(abi)
	what, it := "these RDMA devices", "them"
	if len(devs)+len(abi) == 1 {
		what, it = "this RDMA device", "it"
	}
	var sum, fix string
	switch {
	case len(devs) > 0:
		sum = fmt.Sprintf("libibverbs found no user-space provider (libmlx5 or the like) for %s: the kernel has %s, but no process here can open %s", strings.Join(devs, ", "), what, it)
		if len(abi) > 0 {
			sum += fmt.Sprintf("; the provider of %s does not support the kernel driver's uverbs ABI", strings.Join(abi, ", "))
		}
		fix = "install the provider that matches this libibverbs (ibverbs-providers, rdma-core, or the host's MLNX_OFED user space)"
	default:
		sum = fmt.Sprintf("the user-space verbs provider does not support the kernel driver's uverbs ABI for %s (libibverbs: \"does not support the kernel ABI\"): the kernel has %s, but the provider library here (an image's rdma-core) is older or newer than the host's kernel driver, so no process here can open %s", strings.Join(abi, ", "), what, it)
		fix = "install in the image (or on the host) the rdma-core and provider (libbnxt_re, libmlx5…) that match the host's kernel driver: the distribution release of the host kernel, or the vendor's user-space package of the same release as its driver"
	}
	note := ""
	if len(loads) > 0 {
		note = "; libibverbs also reports a provider it could not load"
	}
	return sum, fix, note, append(ev, loads[:min(len(loads), 2)]...), true
}

// verbsNoConfig is the summary, remedy and evidence of libibverbs'
// "couldn't open config directory '/etc/libibverbs.d'." in a program's
// log (rdma-core libibverbs/init.c read_config): the *.driver files
// there name the provider libraries libibverbs loads, so without the
// directory a dynamically linked libibverbs loads none and the program
// sees no RDMA device; NCCL then falls back to TCP sockets and MPI/UCX
// leave RDMA out. False when no such warning is among ws.
func verbsNoConfig(file string, ws []VerbsWarn) (string, string, []finding.Evidence, bool) {
	for _, w := range ws {
		if w.Kind != "no config dir" {
			continue
		}
		sum := fmt.Sprintf("libibverbs could not open its provider configuration directory %s: the *.driver files there name the provider libraries (libmlx5, libefa, …) it loads, so it loads none and this program sees no RDMA device; an RDMA-capable program (NCCL, MPI, UCX) then runs over TCP sockets", w.Name)
		fix := "install rdma-core's providers (ibverbs-providers, rdma-core) in the image or container, or bind-mount the host's " + w.Name + " and provider libraries into it; ibv_devices there must then list the RDMA devices"
		return sum, fix, []finding.Evidence{{Source: fmt.Sprintf("%s:%d", file, w.Line), Value: w.Text}}, true
	}
	return "", "", nil, false
}
