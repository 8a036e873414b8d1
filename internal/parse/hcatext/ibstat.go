package hcatext

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

// ibstat's state names (infiniband-diags ibstat.c port_state_str and
// port_phy_state_str), indexed by the number the kernel reports.
var (
	ibstatStates = []string{"???", "Down", "Initializing", "Armed", "Active"}
	ibstatPhys   = []string{"No state change", "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest"}
)

func lookupName(names []string, s string) (int, bool) {
	t := strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	for i, n := range names {
		if strings.EqualFold(strings.ReplaceAll(n, " ", ""), t) {
			return i, true
		}
	}
	return 0, false
}

// ParseIBStat parses `ibstat` output ("CA 'mlx5_0'" blocks with "Port N:"
// sub-blocks). Rate is printed in Gb/s only, so ports get a rate without
// width and lane speed. Lines it does not understand are listed in
// Result.Skipped; ErrNoData when no CA block was found.
func ParseIBStat(rd io.Reader, source string) (*Result, error) {
	r := newResult(source)
	dev, port := "", 0
	err := r.scanLines(rd, func(n int, line string) {
		t := strings.TrimSpace(line)
		if t == "" {
			return
		}
		if name, ok := strings.CutPrefix(t, "CA '"); ok {
			// "CA 'mlx4_0'" — people glue notes after it ("CA 'mlx4_0'
			// <-- the first HCA", a stray "'"): the name ends at its quote.
			name, _, ok = strings.Cut(name, "'")
			if !ok || name == "" || strings.ContainsAny(name, " /") {
				r.skip(n, line, "malformed CA header")
				dev = ""
				return
			}
			dev, port = name, 0
			r.device(dev)
			return
		}
		if why, ok := isNoise(t); ok {
			r.skip(n, line, "%s", why)
			return
		}
		ps, isPort := strings.CutPrefix(t, "Port ")
		isPort = isPort && strings.HasSuffix(ps, ":")
		if dev == "" && isPort {
			// A fragment that starts at a port block ("...", "Port 1:",
			// "State: Down"): the device is not named, its port is still
			// judged.
			dev, port = unnamedDevice, 0
			r.device(dev)
			r.Fragments = append(r.Fragments, dev)
			r.skip(n, line, "a port block without its CA '…' line: the device is read as %q", unnamedDevice)
		}
		if k, _, ok := keyValue(t); ok && !isPort && (dev == "" || dev == unnamedDevice && port > 0) && k == "State" && (dev == "" || r.Snap.Port(dev, port).State != nil) {
			// Port fields without any header ("ibstat | grep -i state"):
			// each "State:" starts the next port of an unnamed device.
			if dev == "" {
				dev = unnamedDevice
				r.device(dev)
				r.Fragments = append(r.Fragments, dev)
			}
			port++
			r.port(dev, port)
			r.skip(n, line, "port fields without a \"Port N:\" line (a filtered paste?): read as port %d of device %q", port, unnamedDevice)
		}
		if dev == "" {
			r.skip(n, line, "outside any CA block")
			return
		}
		if isPort {
			p, err := strconv.Atoi(strings.TrimSuffix(ps, ":"))
			if err != nil || p < 0 || p > 255 {
				r.skip(n, line, "malformed port header")
				port = 0
				return
			}
			port = p
			r.port(dev, port)
			return
		}
		k, v, ok := keyValue(t)
		if !ok {
			r.skip(n, line, "not a \"Key: value\" line")
			return
		}
		if err := r.ibstatField(dev, port, k, v, n, line); err != nil {
			r.skip(n, line, "%v", err)
		}
	})
	return r.finish(err)
}

func (r *Result) ibstatField(dev string, port int, k, v string, n int, line string) error {
	d := r.device(dev)
	switch k {
	case "CA type":
		d.HCAType = v
		return nil
	case "Number of ports":
		_, err := strconv.ParseUint(v, 10, 8)
		return err
	case "Firmware version":
		d.FWVersion = v
		r.note(devPath(dev, "fw_ver"), n, line)
		return nil
	case "Hardware version":
		d.HWRev = v
		return nil
	case "Node GUID":
		g, err := parseGUID(v)
		d.NodeGUID = g
		return err
	case "System image GUID":
		g, err := parseGUID(v)
		d.SysImageGUID = g
		return err
	}
	if port == 0 {
		return fmt.Errorf("unknown device field %q", k)
	}
	p := r.port(dev, port)
	switch k {
	case "State":
		i, ok := readState(v, portStateAliases)
		if !ok {
			return fmt.Errorf("unknown port state %q", v)
		}
		st := ib.PortState(i)
		p.State = &st
		r.note(portPath(dev, port, "state"), n, line)
	case "Physical state":
		i, ok := readState(v, physStateAliases)
		if !ok {
			return fmt.Errorf("unknown physical state %q", v)
		}
		ph := ib.PhysState(i)
		p.PhysState = &ph
		r.note(portPath(dev, port, "phys_state"), n, line)
	case "Rate":
		deci, err := parseDeciGbps(v)
		if err != nil {
			return err
		}
		p.Rate = &ib.Rate{DeciGbps: deci}
		r.note(portPath(dev, port, "rate"), n, line)
	case "Base lid":
		x, err := parseUint(v, 16)
		if err != nil {
			return err
		}
		p.LID = u32(x)
	case "SM lid":
		x, err := parseUint(v, 16)
		if err != nil {
			return err
		}
		p.SMLID = u32(x)
		r.note(portPath(dev, port, "sm_lid"), n, line)
	case "LMC":
		x, err := parseUint(v, 3)
		if err != nil {
			return err
		}
		p.LMC = u8(x)
	case "Capability mask":
		x, err := parseUint(v, 32)
		if err != nil {
			return err
		}
		p.CapMask = u32(x)
	case "Port GUID":
		_, err := parseGUID(v)
		return err
	case "Link layer":
		ll, err := ib.ParseLinkLayer(v)
		if err != nil {
			return err
		}
		p.LinkLayer = ll
		r.note(portPath(dev, port, "link_layer"), n, line)
	case "Transport":
		// WinOF's ibstat (Windows) ends each port with "Transport: IB"
		// after "Link layer: IB": the link layer again, where it was
		// printed.
		if p.LinkLayer == "" {
			if ll, err := ib.ParseLinkLayer(v); err == nil {
				p.LinkLayer = ll
				r.note(portPath(dev, port, "link_layer"), n, line)
			}
		}
	default:
		return fmt.Errorf("unknown port field %q", k)
	}
	return nil
}

// parseUint reads a decimal or 0x-hex number of at most bits bits.
func parseUint(s string, bits int) (uint64, error) {
	t := strings.TrimSpace(s)
	base := 10
	if h, ok := strings.CutPrefix(t, "0x"); ok {
		t, base = h, 16
	}
	v, err := strconv.ParseUint(t, base, bits)
	if err != nil {
		return 0, fmt.Errorf("bad number %q (at most %d bits)", s, bits)
	}
	return v, nil
}

// parseDeciGbps reads "200", "2.5" or "13.64" Gb/s into tenths (rounded).
func parseDeciGbps(s string) (int, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || f > 100000 {
		return 0, fmt.Errorf("bad rate %q", s)
	}
	return int(f*10 + 0.5), nil
}
