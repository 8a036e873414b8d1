// Package host holds what is read from a node besides its RDMA devices and
// PCI tree: its network interfaces, a job's resource limit and the
// /dev/infiniband entries. internal/source/gather fills them in;
// internal/rules/host judges them.
package host

// Interface is one network interface of sys/class/net.
type Interface struct {
	Name string `json:"name"`
	// OperState is operstate ("up", "down", "unknown" for lo).
	OperState string `json:"operstate"`
	// Flags is the flags attribute (IFF_UP = 0x1), -1 when unreadable.
	Flags int64 `json:"flags"`
}

// Up reports whether the interface is administratively up and not
// operationally down (lo reports operstate "unknown").
func (i Interface) Up() bool {
	if i.OperState == "down" || i.OperState == "lowerlayerdown" || i.OperState == "notpresent" {
		return false
	}
	return i.Flags < 0 || i.Flags&1 == 1
}

// Limit is one resource limit ("Max locked memory" of proc/<pid>/limits).
type Limit struct {
	// Source is the file or "getrlimit".
	Source string `json:"source"`
	// Soft and Hard in bytes; Unlimited* mark "unlimited".
	Soft, Hard                   uint64
	SoftUnlimited, HardUnlimited bool
	// HardUnknown says the source shows the soft limit only (`ulimit
	// -a`); Hard is then not read.
	HardUnknown bool `json:",omitempty"`
}

// DevEntry is one /dev/infiniband entry and whether it could be opened.
type DevEntry struct {
	// Path is root-relative: "dev/infiniband/uverbs0".
	Path string `json:"path"`
	// Exists and Openable; Err says why not.
	Exists   bool   `json:"exists"`
	Openable bool   `json:"openable"`
	Err      string `json:"error,omitempty"`
}
