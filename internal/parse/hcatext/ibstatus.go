package hcatext

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// ParseIBStatus parses `ibstatus` output: one "Infiniband device 'mlx5_0'
// port 1 status:" block per port with the sysfs values ("4: ACTIVE",
// "100 Gb/sec (4X EDR)"), so states are keyed on their numbers and the rate
// carries width and lane speed.
func ParseIBStatus(rd io.Reader, source string) (*Result, error) {
	r := newResult(source)
	dev, port := "", 0
	err := r.scanLines(rd, func(n int, line string) {
		t := strings.TrimSpace(line)
		if t == "" {
			return
		}
		if d, p, ok := ibstatusHeader(t); ok {
			dev, port = d, p
			r.port(dev, port)
			return
		}
		if d, ok := IBStatusFatal(t); ok {
			r.Absent = append(r.Absent, Absent{Device: d, Line: Line{N: n, Text: t}})
			return
		}
		if why, ok := isNoise(t); ok {
			r.skip(n, line, "%s", why)
			return
		}
		if dev == "" && strings.HasPrefix(t, "(/sys/class/infiniband/") {
			return // the path of a fatal error, wrapped onto its own line
		}
		if dev == "" {
			r.skip(n, line, "outside any \"Infiniband device\" block")
			return
		}
		k, v, ok := keyValue(t)
		if !ok {
			r.skip(n, line, "not a \"key: value\" line")
			return
		}
		if err := r.ibstatusField(r.port(dev, port), k, v, n, line); err != nil {
			r.skip(n, line, "%v", err)
		}
	})
	return r.finish(err)
}

// IBStatusFatal reads the ibstatus script's fatal errors about devices
// (infiniband-diags/scripts/ibstatus: fatal() echoes "Fatal error: " and
// its words): "Fatal error:  device 'mlx5_0': sys files not found
// (/sys/class/infiniband/mlx5_0/ports)" for a device without a ports
// directory, "device '*'" when /sys/class/infiniband is empty (the
// shell's glob matched nothing), "Fatal error:  No devices" when it does
// not exist. dev is the device named, "" for none at all.
func IBStatusFatal(t string) (dev string, ok bool) {
	rest, ok := strings.CutPrefix(t, "Fatal error:")
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if rest == "No devices" {
		return "", true
	}
	rest, ok = strings.CutPrefix(rest, "device '")
	if !ok {
		return "", false
	}
	dev, rest, ok = strings.Cut(rest, "': sys files not found")
	if !ok || strings.ContainsAny(dev, " /") {
		return "", false
	}
	if dev == "*" {
		dev = ""
	}
	return dev, true
}

// ibstatusHeader reads "Infiniband device 'mlx5_0' port 1 status:".
func ibstatusHeader(t string) (string, int, bool) {
	rest, ok := strings.CutPrefix(t, "Infiniband device '")
	if !ok {
		return "", 0, false
	}
	dev, rest, ok := strings.Cut(rest, "' port ")
	if !ok || dev == "" || strings.ContainsAny(dev, " /'") {
		return "", 0, false
	}
	ps, ok := strings.CutSuffix(rest, " status:")
	if !ok {
		return "", 0, false
	}
	p, err := strconv.Atoi(ps)
	if err != nil || p < 0 || p > 255 {
		return "", 0, false
	}
	return dev, p, true
}

func (r *Result) ibstatusField(p *snapshot.Port, k, v string, n int, line string) error {
	switch k {
	case "default gid":
		g, err := ib.ParseGID(v)
		if err != nil {
			return err
		}
		p.GIDs = []snapshot.GIDEntry{{Index: 0, GID: g}}
	case "base lid":
		x, err := parseUint(v, 16)
		if err != nil {
			return err
		}
		p.LID = u32(x)
	case "sm lid":
		x, err := parseUint(v, 16)
		if err != nil {
			return err
		}
		p.SMLID = u32(x)
		r.note(portPath(p.Device, p.Number, "sm_lid"), n, line)
	case "state":
		st, err := ib.ParsePortStateName(v)
		if err != nil {
			i, ok := readState(v, portStateAliases)
			if !ok {
				return err
			}
			st, err = ib.PortState(i), nil
		}
		p.State = &st
		r.note(portPath(p.Device, p.Number, "state"), n, line)
	case "phys state":
		ph, err := ib.ParsePhysStateName(v)
		if err != nil {
			i, ok := readState(v, physStateAliases)
			if !ok {
				return err
			}
			ph, err = ib.PhysState(i), nil
		}
		p.PhysState = &ph
		r.note(portPath(p.Device, p.Number, "phys_state"), n, line)
	case "rate":
		rt, err := ib.ParseRate(v)
		if err != nil {
			return err
		}
		p.Rate = &rt
		r.note(portPath(p.Device, p.Number, "rate"), n, line)
	case "link_layer":
		ll, err := ib.ParseLinkLayer(v)
		if err != nil {
			return err
		}
		p.LinkLayer = ll
		r.note(portPath(p.Device, p.Number, "link_layer"), n, line)
	default:
		return fmt.Errorf("unknown field %q", k)
	}
	return nil
}
