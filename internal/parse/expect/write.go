package expect

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// FromSnapshot turns a node's current state into an expectation: one entry
// per device with its model, firmware, PCIe link and every port's link
// layer, state and rate. Counters are not part of it. Rates of ports that
// are not ACTIVE are left out: they mean nothing (RoCE reports 40 Gb/s on a
// down port). Notes lists what a reviewer should look at, such as ports
// recorded in a state other than ACTIVE.
func FromSnapshot(s *snapshot.Snapshot) (e *Expectation, notes []string) {
	e = &Expectation{Host: s.Host}
	if v := s.Driver(); v != "" {
		e.DriverVersion = ptr(v)
	}
	for i := range s.Devices {
		d := &s.Devices[i]
		en := DeviceEntry{Name: d.Name}
		if d.HCAType != "" {
			en.HCAType = ptr(d.HCAType)
		}
		if d.FWVersion != "" {
			en.FWVersion = ptr(d.FWVersion)
		}
		if p := s.PCIDevice(d.PCI); p != nil {
			en.PCIe.Speed = p.CurrentLinkSpeed
			en.PCIe.Width = p.CurrentLinkWidth
			if p.CurrentLinkSpeed != nil && p.MaxLinkSpeed != nil && *p.CurrentLinkSpeed < *p.MaxLinkSpeed ||
				p.CurrentLinkWidth != nil && p.MaxLinkWidth != nil && *p.CurrentLinkWidth < *p.MaxLinkWidth {
				notes = append(notes, fmt.Sprintf("%s: PCIe link recorded below its maximum (%s x%d of %s x%d)", d.Name,
					speedStr(p.CurrentLinkSpeed), deref(p.CurrentLinkWidth), speedStr(p.MaxLinkSpeed), deref(p.MaxLinkWidth)))
			}
		}
		for j := range d.Ports {
			p := &d.Ports[j]
			pe := PortEntry{Port: p.Number}
			if p.LinkLayer != "" {
				pe.LinkLayer = ptr(p.LinkLayer)
			}
			pe.State = p.State
			pe.PhysState = p.PhysState
			if p.IsActive() && p.Rate != nil {
				pe.Rate = p.Rate
			}
			if !p.IsActive() && p.State != nil {
				notes = append(notes, fmt.Sprintf("%s port %d is %s now; the baseline expects that (set \"ignore: true\" for an uncabled spare, or ACTIVE if it must be up)", d.Name, p.Number, p.State))
			}
			en.Ports = append(en.Ports, pe)
		}
		e.Devices = append(e.Devices, en)
	}
	return e, notes
}

func ptr[T any](v T) *T { return &v }

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func speedStr[T fmt.Stringer](p *T) string {
	if p == nil {
		return "?"
	}
	return (*p).String()
}

// Write renders an expectation as commented, hand-editable YAML that Parse
// reads back.
func Write(w io.Writer, e *Expectation, generated time.Time, by string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# ibdoctor expectation for %s, written %s by %s.\n", orDash(e.Host), generated.UTC().Format(time.RFC3339), by)
	b.WriteString(`# Review it, then judge the node against it: ibdoctor check --expect FILE
# Entries apply in order; a later entry overrides what an earlier one set.
# "name" takes globs (mlx5_*, mlx5_[0-7]); a glob may say "count: N".
# Leave a field out to not check it; "ignore: true" skips a port entirely.
`)
	fmt.Fprintf(&b, "version: %d\n", Version)
	if e.Host != "" {
		fmt.Fprintf(&b, "host: %s\n", quote(e.Host))
	}
	if e.DriverVersion != nil {
		fmt.Fprintf(&b, "driver_version: %s   # mlx5_core: sys/module/mlx5_core/version, else srcversion\n", quote(*e.DriverVersion))
	}
	b.WriteString("devices:\n")
	for _, d := range e.Devices {
		fmt.Fprintf(&b, "  - name: %s\n", quote(d.Name))
		if d.Count != nil {
			fmt.Fprintf(&b, "    count: %d\n", *d.Count)
		}
		if d.Optional {
			b.WriteString("    optional: true\n")
		}
		if d.HCAType != nil {
			fmt.Fprintf(&b, "    hca_type: %s\n", quote(*d.HCAType))
		}
		if d.FWVersion != nil {
			fmt.Fprintf(&b, "    fw_ver: %s\n", quote(*d.FWVersion))
		}
		if d.PCIe.Speed != nil || d.PCIe.Width != nil {
			b.WriteString("    pcie:\n")
			if d.PCIe.Speed != nil {
				fmt.Fprintf(&b, "      speed: %s   # Gen%d\n", quote(d.PCIe.Speed.String()), d.PCIe.Speed.Gen())
			}
			if d.PCIe.Width != nil {
				fmt.Fprintf(&b, "      width: %d\n", *d.PCIe.Width)
			}
		}
		if len(d.Ports) > 0 {
			b.WriteString("    ports:\n")
		}
		for _, p := range d.Ports {
			fmt.Fprintf(&b, "      - port: %d\n", p.Port)
			if p.Ignore {
				b.WriteString("        ignore: true\n")
			}
			if p.LinkLayer != nil {
				fmt.Fprintf(&b, "        link_layer: %s\n", *p.LinkLayer)
			}
			if p.State != nil {
				fmt.Fprintf(&b, "        state: %s\n", p.State)
			}
			if p.PhysState != nil {
				fmt.Fprintf(&b, "        phys_state: %s\n", quote(p.PhysState.String()))
			}
			if p.Rate != nil {
				fmt.Fprintf(&b, "        rate: %s\n", quote(p.Rate.Sysfs()))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// quote double-quotes a YAML scalar when plain style could misread it.
func quote(s string) string {
	plain := s != "" && !strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`*?") && strings.TrimSpace(s) == s &&
		!strings.HasPrefix(s, "-") && !strings.ContainsFunc(s, unicode.IsControl)
	if plain {
		switch strings.ToLower(s) {
		case "true", "false", "yes", "no", "null", "~", "on", "off":
			plain = false
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			plain = false
		}
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}
