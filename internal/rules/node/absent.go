package node

import (
	"fmt"

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
