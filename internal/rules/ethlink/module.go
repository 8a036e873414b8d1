package ethlink

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethmodule"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckModules judges pasted `ethtool -m` transceiver blocks: a module
// that raises an alarm or warning flag (its own comparison of a reading
// with the thresholds in its EEPROM, SFF-8472 / SFF-8636) is
// port.module_alarm, once per module, naming the flags and the readings
// they are about.
func CheckModules(res *ethmodule.Result, file string) []finding.Finding {
	var out []finding.Finding
	for _, m := range res.Modules {
		flags := m.FlagsOn()
		if len(flags) == 0 {
			continue
		}
		name := m.NetDev
		if name == "" {
			name = fmt.Sprintf("the module at line %d", m.Line)
		}
		var alarms, warns []string
		var evs []finding.Evidence
		for _, f := range flags {
			if f.Alarm {
				alarms = append(alarms, f.Key)
				evs = append(evs, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, f.Line), Value: f.Key + ": On"})
			} else {
				warns = append(warns, f.Key)
			}
		}
		var sum string
		if len(alarms) > 0 {
			sum = fmt.Sprintf("%s: transceiver alarm flags On: %s", name, strings.Join(alarms, ", "))
		} else {
			sum = fmt.Sprintf("%s: transceiver warning flags On (no alarm): %s", name, strings.Join(warns, ", "))
			for _, f := range flags {
				evs = append(evs, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, f.Line), Value: f.Key + ": On"})
			}
		}
		var read []string
		for _, k := range []string{"Receiver signal average optical power", "Laser output power", "Laser bias current", "Module temperature"} {
			if f, ok := m.Get(k); ok {
				read = append(read, k+" "+f.Value)
				evs = append(evs, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, f.Line), Value: k + ": " + f.Value})
			}
		}
		if len(read) > 0 {
			sum += " (" + strings.Join(read, ", ") + ")"
		}
		if rx, ok := m.Get("Receiver signal average optical power"); ok && strings.Contains(rx.Value, "-inf") {
			sum += ": the module receives no light: the link cannot come up"
		}
		subj := finding.Subject{NetDev: m.NetDev, File: file, LinkLayer: "Ethernet"}
		f := catalog.New("port.module_alarm", subj, sum, evs...)
		dev := m.NetDev
		if dev == "" {
			dev = "<netdev>"
		}
		f.Remedy = []string{
			"ethtool -m " + dev + " to read the module again (the flags latch until read)",
			"clean the fibre ends and reseat the transceiver; swap it with a known-good one",
			"check the peer's transceiver and that its laser is on (ethtool -m on the peer port), and that both ends use the same optic type (SR, LR)",
		}
		out = append(out, f)
	}
	return out
}
