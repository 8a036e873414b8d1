package sim

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Faults for the doctor's checks that the node model has no field for:
// port module and firmware health messages in the kernel log, a job's
// environment and locked-memory limit under proc/<pid>/. They are
// registered after the base table (this file's init runs after
// fault.go's).
func init() {
	faultKinds = append(faultKinds,
		FaultKind{Name: "module-event", Syntax: "module-event:DEV=" + strings.Join(moduleEventNames(), "|"), Example: "module-event:mlx5_2=high-temp", target: true, value: true,
			Description: "mlx5 port module event in the kernel log (events.c): a cable unplug, or an error such as high temperature or power budget exceeded",
			check:       checkAll(checkName, checkModuleEvent), apply: applyModuleEvent},
		FaultKind{Name: "mlx5-health", Syntax: "mlx5-health:DEV", Example: "mlx5-health:mlx5_3", target: true,
			Description: "mlx5 firmware health failure in the kernel log (health.c): missed health counter, syndrome, then a command timeout (cmd.c)",
			check:       checkName, apply: applyHealth},
		FaultKind{Name: "environ", Syntax: "environ:PID/NAME=VALUE", Example: "environ:4242/NCCL_IB_HCA=mlx5_1", target: true, value: true,
			Description: "a variable in proc/PID/environ (NUL-separated, as the kernel shows it), for doctor --pid PID",
			check:       checkEnviron, apply: applyEnviron},
		FaultKind{Name: "memlock", Syntax: "memlock:PID|self=BYTES|unlimited", Example: "memlock:4242=65536", target: true, value: true,
			Description: "RLIMIT_MEMLOCK (soft and hard) in proc/PID/limits, rendered as fs/proc/base.c does",
			check:       checkMemlock, apply: applyMemlock},
	)
}

// moduleEvents maps the fault values to the driver's texts
// (drivers/net/ethernet/mellanox/mlx5/core/events.c mlx5_port_module_event).
var moduleEvents = []struct {
	name, text string
	isErr      bool
}{
	{"unplugged", "Cable unplugged", false},
	{"plugged", "Cable plugged", false},
	{"power-budget", "Power budget exceeded", true},
	{"long-range", "Long Range for non MLNX cable", true},
	{"bus-stuck", "Bus stuck(I2C or data shorted)", true},
	{"no-eeprom", "No EEPROM/retry timeout", true},
	{"part-number", "Enforce part number list", true},
	{"unknown-id", "Unknown identifier", true},
	{"high-temp", "High Temperature", true},
	{"bad-cable", "Bad or shorted cable/module", true},
}

func moduleEventNames() []string {
	var out []string
	for _, e := range moduleEvents {
		out = append(out, e.name)
	}
	return out
}

func checkModuleEvent(f Fault) error {
	if slices.Contains(moduleEventNames(), f.Value) {
		return nil
	}
	return fmt.Errorf("module event %q: want one of %s", f.Value, strings.Join(moduleEventNames(), ", "))
}

func applyModuleEvent(n *Node, f Fault) error {
	d := n.Device(f.Target)
	if d == nil || d.PCI == nil {
		return fmt.Errorf("no RDMA device %q (have %s)", f.Target, n.deviceNames())
	}
	for _, e := range moduleEvents {
		if e.name != f.Value {
			continue
		}
		if e.isErr {
			// Newer kernels log module errors through mlx5_core_err.
			n.Log(3, "mlx5_core %s: mlx5_port_module_event:1101:(pid 0): Port module event[error]: module 0, Cable error, %s", d.PCI.Addr, e.text)
		} else {
			n.Log(6, "mlx5_core %s: Port module event: module 0, %s", d.PCI.Addr, e.text)
		}
	}
	return nil
}

func applyHealth(n *Node, f Fault) error {
	d := n.Device(f.Target)
	if d == nil || d.PCI == nil {
		return fmt.Errorf("no RDMA device %q (have %s)", f.Target, n.deviceNames())
	}
	n.Log(3, "mlx5_core %s: poll_health:800:(pid 0): device's health compromised - reached miss count", d.PCI.Addr)
	n.Log(3, "mlx5_core %s: print_health_info:426:(pid 0): synd 0x8: unrecoverable hardware error", d.PCI.Addr)
	n.Log(3, "mlx5_core %s: wait_func:1171:(pid 2311): ACCESS_REG(0x805) timeout. Will cause a leak of a command resource", d.PCI.Addr)
	return nil
}

// checkProcTarget accepts a PID or "self".
func checkProcTarget(t string) error {
	if t == "self" {
		return nil
	}
	if v, err := strconv.Atoi(t); err != nil || v < 1 || strconv.Itoa(v) != t {
		return fmt.Errorf("%q is not a process id or self", t)
	}
	return nil
}

func checkEnviron(f Fault) error {
	pid, name, ok := strings.Cut(f.Target, "/")
	if !ok || name == "" || strings.ContainsAny(name, "/=") {
		return fmt.Errorf("target %q: want PID/NAME, e.g. 4242/NCCL_IB_HCA", f.Target)
	}
	return checkProcTarget(pid)
}

func applyEnviron(n *Node, f Fault) error {
	pid, name, _ := strings.Cut(f.Target, "/")
	p := "proc/" + pid + "/environ"
	var vars [][]byte
	if old := n.Files[p]; len(old) > 0 {
		for _, kv := range bytes.Split(bytes.TrimSuffix(old, []byte{0}), []byte{0}) {
			if !bytes.HasPrefix(kv, []byte(name+"=")) {
				vars = append(vars, kv)
			}
		}
	}
	vars = append(vars, []byte(name+"="+f.Value))
	n.SetFile(p, append(bytes.Join(vars, []byte{0}), 0))
	return nil
}

func checkMemlock(f Fault) error {
	if err := checkProcTarget(f.Target); err != nil {
		return err
	}
	if f.Value == "unlimited" {
		return nil
	}
	return checkUint(f)
}

// applyMemlock writes proc/PID/limits with the kernel's layout
// (fs/proc/base.c proc_pid_limits, "%-25s %-20s %-20s %-10s\n").
func applyMemlock(n *Node, f Fault) error {
	rows := [][4]string{
		{"Limit", "Soft Limit", "Hard Limit", "Units"},
		{"Max cpu time", "unlimited", "unlimited", "seconds"},
		{"Max file size", "unlimited", "unlimited", "bytes"},
		{"Max data size", "unlimited", "unlimited", "bytes"},
		{"Max stack size", "8388608", "unlimited", "bytes"},
		{"Max core file size", "0", "unlimited", "bytes"},
		{"Max resident set", "unlimited", "unlimited", "bytes"},
		{"Max processes", "2062563", "2062563", "processes"},
		{"Max open files", "1048576", "1048576", "files"},
		{"Max locked memory", f.Value, f.Value, "bytes"},
		{"Max address space", "unlimited", "unlimited", "bytes"},
		{"Max file locks", "unlimited", "unlimited", "locks"},
		{"Max pending signals", "2062563", "2062563", "signals"},
		{"Max msgqueue size", "819200", "819200", "bytes"},
		{"Max nice priority", "0", "0", ""},
		{"Max realtime priority", "0", "0", ""},
		{"Max realtime timeout", "unlimited", "unlimited", "us"},
	}
	var b strings.Builder
	for _, r := range rows {
		if r[3] == "" {
			fmt.Fprintf(&b, "%-25s %-20s %-20s\n", r[0], r[1], r[2])
		} else {
			fmt.Fprintf(&b, "%-25s %-20s %-20s %-10s\n", r[0], r[1], r[2], r[3])
		}
	}
	n.SetFile("proc/"+f.Target+"/limits", []byte(b.String()))
	return nil
}
