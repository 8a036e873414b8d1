package node

import (
	"fmt"
	"slices"
	"strings"
)

// triageFaultKinds are the faults for the doctor's kernel-log checks that
// the node model has no field for: port module and firmware health
// messages. They follow the base table in faultKinds.
func triageFaultKinds() []FaultKind {
	return []FaultKind{
		{Name: "module-event", Syntax: "module-event:DEV=" + strings.Join(moduleEventNames(), "|"), Example: "module-event:mlx5_2=high-temp", target: true, value: true,
			Description: "mlx5 port module event in the kernel log (events.c): a cable unplug, or an error such as high temperature or power budget exceeded",
			check:       checkAll(checkName, checkModuleEvent), apply: applyModuleEvent},
		{Name: "mlx5-health", Syntax: "mlx5-health:DEV", Example: "mlx5-health:mlx5_3", target: true,
			Description: "mlx5 firmware health failure in the kernel log (health.c): missed health counter, syndrome, then a command timeout (cmd.c)",
			check:       checkName, apply: applyHealth},
	}
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
