package host

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// checkDeviceGone reports the devices whose driver says they left the
// PCIe bus (pcie.device_lost), once per device: a NIC whose register reads
// return all ones (ixgbe "Adapter removed", igb/igc "PCIe link lost"), an
// mlx5 NIC whose PCI channel is offline, an
// NVMe controller disabled after a failed reset. Critical for a network
// adapter (it carries a job's traffic, as PCIeCarrier splits them), a
// warning for another device.
func checkDeviceGone(in *Input) []finding.Finding {
	s := in.Snap
	type tally struct {
		e  kmsg.Event
		n  int
		ev []finding.Evidence
	}
	at := map[string]*tally{}
	var keys []string
	for _, e := range in.events() {
		if e.Kind != kmsg.KindDeviceGone {
			continue
		}
		k := string(e.PCI)
		if k == "" {
			k = e.Interface
		}
		t, ok := at[k]
		if !ok {
			t = &tally{e: e}
			at[k] = t
			keys = append(keys, k)
		}
		t.n += e.Weight()
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, k := range keys {
		t := at[k]
		e := t.e
		var f finding.Finding
		if e.Driver == "nvme" {
			msg := fmt.Sprintf("NVMe controller %s is gone: %q (its driver disabled it when it did not come back from a reset, often one after a PCIe error): its namespaces are removed and I/O to them fails", e.Interface, e.Detail)
			f = catalog.New("pcie.device_lost", finding.Subject{Host: s.Host, Device: e.Interface}, msg, t.ev...)
			// The log names the controller, not its PCI function: the
			// catalog's lspci line would ask for an address it lacks.
			f.Remedy = append([]string{fmt.Sprintf("readlink -f /sys/class/nvme/%s/device: the controller's PCI address (gone from the bus: the link is dangling); lspci -vvv -s ADDRESS then shows it missing or reading as all ones (Unknown header type 7f)", e.Interface)}, f.Remedy[1:]...)
		} else {
			tg := pciTarget(s, e.PCI)
			subj := tg.subject(s.Host)
			subj.NetDev = e.Interface
			what := deviceGoneCarrier(e.Driver)
			if what == "" {
				what = "a device"
			}
			why := "its register reads return all ones"
			if e.Driver == "mlx5_core" {
				why = "the PCI core took the device offline after a PCIe error, or it left the bus"
			}
			msg := fmt.Sprintf("%s %s fell off the PCIe bus: %s says %q (%s): %s, unusable until it is back on the bus", e.Driver, tg.longLabel(), e.Driver, e.Detail, why, what)
			f = catalog.New("pcie.device_lost", subj, msg, t.ev...)
		}
		if deviceGoneCarrier(e.Driver) == "" {
			f.Severity = finding.Warning
		}
		out = append(out, f)
	}
	return out
}

// deviceGoneCarrier says what a device of the KindDeviceGone drivers is, as
// PCIeCarrier splits devices: the NIC drivers' are network adapters,
// NVMe's storage ("").
func deviceGoneCarrier(driver string) string {
	switch driver {
	case "ixgbe", "ngbe", "txgbe", "igb", "igc", "fm10k", "mlx5_core":
		return PCIeCarrier("ethernet controller", "")
	}
	return PCIeCarrier("", "")
}
