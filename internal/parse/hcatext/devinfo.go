package hcatext

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// DevinfoAbsent reads ibv_devinfo's errors about devices
// (libibverbs/examples/devinfo.c): "No IB devices found" when the verbs
// library lists none (dev ""), "IB device 'mlx5_4' wasn't found" for a
// device asked for with -d.
func DevinfoAbsent(t string) (dev string, ok bool) {
	if t == "No IB devices found" || t == "0 HCAs found:" {
		return "", true // "0 HCAs found:" is ibv_devinfo -l's way to say it
	}
	rest, ok := strings.CutPrefix(t, "IB device '")
	if !ok {
		return "", false
	}
	dev, ok = strings.CutSuffix(rest, "' wasn't found")
	if !ok || dev == "" || strings.ContainsAny(dev, " /'") {
		return "", false
	}
	return dev, true
}

// VerbsWarning reads a warning libibverbs prints when it cannot use a
// device (rdma-core libibverbs/init.c and dynamic_driver.c): "no userspace
// device-specific driver found for /sys/class/infiniband_verbs/uverbs0"
// (the kernel has the device, no installed provider library claims it:
// Kind VerbsNoProvider, Name "uverbs0"), "couldn't load driver
// 'libmlx5-rdmav34.so': …" (a provider named in /etc/libibverbs.d did not
// load: VerbsLoadFailed, Name the driver), "couldn't open config directory
// '/etc/libibverbs.d'." (VerbsNoConfig, Name the directory), "Driver
// bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for
// device /sys/class/infiniband/bnxt_re2" (the provider's ABI range does
// not hold the kernel driver's: VerbsABIMismatch, Name the device, or the
// driver when no device is named). Every line starts
// "libibverbs: Warning: ".
func VerbsWarning(t string) (VerbsWarn, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(t), "libibverbs: Warning: ")
	if !ok {
		return VerbsWarn{}, false
	}
	quoted := func(s string) string {
		s = strings.TrimPrefix(s, "'")
		if i := strings.IndexByte(s, '\''); i > 0 {
			return s[:i]
		}
		return ""
	}
	switch {
	case strings.HasPrefix(rest, "no userspace device-specific driver found for "):
		path := strings.TrimSpace(strings.TrimPrefix(rest, "no userspace device-specific driver found for "))
		name := path[strings.LastIndexByte(path, '/')+1:]
		if name == "" || strings.ContainsAny(name, " '") {
			return VerbsWarn{}, false
		}
		return VerbsWarn{Kind: VerbsNoProvider, Name: name}, true
	case strings.HasPrefix(rest, "Driver ") && strings.Contains(rest, " does not support the kernel ABI of "):
		drv, tail, _ := strings.Cut(strings.TrimPrefix(rest, "Driver "), " ")
		if !strings.HasPrefix(tail, "does not support the kernel ABI of ") || drv == "" {
			return VerbsWarn{}, false
		}
		name := drv
		if _, path, ok := strings.Cut(tail, " for device "); ok {
			if d := strings.TrimSpace(path[strings.LastIndexByte(path, '/')+1:]); d != "" && !strings.ContainsAny(d, " '") {
				name = d
			}
		}
		return VerbsWarn{Kind: VerbsABIMismatch, Name: name}, true
	case strings.HasPrefix(rest, "couldn't load driver '"):
		if name := quoted(strings.TrimPrefix(rest, "couldn't load driver ")); name != "" {
			return VerbsWarn{Kind: VerbsLoadFailed, Name: name}, true
		}
	case strings.HasPrefix(rest, "couldn't open config directory '"):
		if name := quoted(strings.TrimPrefix(rest, "couldn't open config directory ")); name != "" {
			return VerbsWarn{Kind: VerbsNoConfig, Name: name}, true
		}
	}
	return VerbsWarn{}, false
}

// ParseDevinfo parses `ibv_devinfo` and `ibv_devinfo -v` output: "hca_id:"
// blocks with "port:" sub-blocks. States are keyed on the number in
// parentheses ("PORT_ACTIVE (4)"); with -v the rate comes from
// active_width and active_speed ("4X (2)", "25.0 Gbps (32)") and the GID
// table is read. The many capability fields of -v are accepted unread.
func ParseDevinfo(rd io.Reader, source string) (*Result, error) {
	r := newResult(source)
	dev, port := "", 0
	width := map[string]int{} // keyed dev/port: Ports may move as they grow
	speed := map[string]ib.Speed{}
	vendor := ""
	err := r.scanLines(rd, func(n int, line string) {
		t := strings.TrimSpace(line)
		if t == "" {
			return
		}
		k, v, isKV := keyValue(t)
		if isKV && k == "hca_id" {
			if v == "" || strings.ContainsAny(v, " /'") {
				r.skip(n, line, "malformed hca_id")
				dev = ""
				return
			}
			dev, port, vendor = v, 0, ""
			r.device(dev)
			return
		}
		if d, ok := DevinfoAbsent(t); ok {
			r.Absent = append(r.Absent, Absent{Device: d, Line: Line{N: n, Text: t}})
			return
		}
		if w, ok := VerbsWarning(t); ok {
			w.Line = Line{N: n, Text: t}
			r.Verbs = append(r.Verbs, w)
			return
		}
		if why, ok := isNoise(t); ok {
			r.skip(n, line, "%s", why)
			return
		}
		if dev == "" && isKV && k == "port" {
			// A paste that starts at a port block: the device is not
			// named, its port is still judged.
			dev, port, vendor = unnamedDevice, 0, ""
			r.device(dev)
			r.Fragments = append(r.Fragments, dev)
			r.skip(n, line, "a port block without its hca_id line: the device is read as %q", unnamedDevice)
		}
		if dev == "" {
			r.skip(n, line, "outside any hca_id block")
			return
		}
		if !isKV {
			return // a capability flag of -v ("BAD_PKEY_CNTR")
		}
		d := r.device(dev)
		if k == "port" {
			p, err := strconv.Atoi(v)
			if err != nil || p < 0 || p > 255 {
				r.skip(n, line, "malformed port number")
				port = 0
				return
			}
			port = p
			r.port(dev, port)
			return
		}
		var err error
		if port == 0 && devinfoPortKey(k) {
			// A filtered paste (ibv_devinfo -v | grep …) lost the "port:"
			// line: the first port is the only one it can be.
			port = 1
			r.port(dev, port)
			r.skip(n, line, "port fields without a \"port:\" line (a filtered paste?): read as port 1")
		}
		if port == 0 {
			err = r.devinfoDevice(d, k, v, n, line, &vendor)
		} else {
			p := r.port(dev, port)
			err = r.devinfoPort(p, k, v, n, line, width, speed)
		}
		if err != nil {
			r.skip(n, line, "%v", err)
		}
	})
	for i := range r.Snap.Devices {
		for j := range r.Snap.Devices[i].Ports {
			p := &r.Snap.Devices[i].Ports[j]
			key := p.Device + "/" + strconv.Itoa(p.Number)
			if w, s := width[key], speed[key]; w > 0 && s > 0 {
				rt := ib.NewRate(w, s)
				p.Rate = &rt
			}
		}
	}
	return r.finish(err)
}

// unnamedDevice names the device of a port block pasted without the
// "hca_id:" line above it.
const unnamedDevice = "unnamed"

func (r *Result) devinfoDevice(d *snapshot.Device, k, v string, n int, line string, vendor *string) error {
	switch k {
	case "fw_ver":
		d.FWVersion = v
		r.note(devPath(d.Name, "fw_ver"), n, line)
	case "node_guid":
		g, err := parseGUID(v)
		d.NodeGUID = g
		return err
	case "sys_image_guid":
		g, err := parseGUID(v)
		d.SysImageGUID = g
		return err
	case "vendor_id":
		*vendor = v
	case "vendor_part_id":
		if _, err := strconv.ParseUint(v, 10, 32); err != nil {
			return fmt.Errorf("bad vendor_part_id %q", v)
		}
		// sysfs hca_type of mlx4/mlx5 is "MT<part>", as ibstat prints it.
		if *vendor == "0x02c9" {
			d.HCAType = "MT" + v
		} else {
			d.HCAType = *vendor + ":" + v
		}
	case "hw_ver":
		d.HWRev = v
	case "board_id":
		d.BoardID = v
	case "phys_port_cnt":
		if _, err := strconv.ParseUint(v, 10, 8); err != nil {
			return fmt.Errorf("bad phys_port_cnt %q", v)
		}
	}
	return nil // transport and the capability fields of -v
}

// devinfoPortKey says whether a key only appears under "port:".
func devinfoPortKey(k string) bool {
	switch k {
	case "state", "phys_state", "active_width", "active_speed", "link_layer", "port_lid", "sm_lid", "port_lmc", "active_mtu", "max_mtu":
		return true
	}
	return false
}

// parenNumber reads the number in "PORT_ACTIVE (4)".
func parenNumber(v string, maxN uint64) (uint64, error) {
	i := strings.LastIndexByte(v, '(')
	if i < 0 || !strings.HasSuffix(v, ")") {
		return 0, fmt.Errorf("no (number) in %q", v)
	}
	x, err := strconv.ParseUint(v[i+1:len(v)-1], 10, 16)
	if err != nil || x > maxN {
		return 0, fmt.Errorf("bad number in %q", v)
	}
	return x, nil
}

func (r *Result) devinfoPort(p *snapshot.Port, k, v string, n int, line string, width map[string]int, speed map[string]ib.Speed) error {
	key := p.Device + "/" + strconv.Itoa(p.Number)
	switch {
	case k == "state":
		x, err := parenNumber(v, 5)
		if err != nil || x == 0 {
			// "PORT_ACTIVE" without its number, "4", "active".
			i, ok := readState(v, portStateAliases)
			if !ok {
				return fmt.Errorf("bad port state %q", v)
			}
			x = uint64(i)
		}
		st := ib.PortState(x)
		p.State = &st
		r.note(portPath(p.Device, p.Number, "state"), n, line)
	case k == "phys_state":
		x, err := parenNumber(v, 7)
		if err != nil || x == 0 {
			i, ok := readState(v, physStateAliases)
			if !ok {
				return fmt.Errorf("bad phys_state %q", v)
			}
			x = uint64(i)
		}
		ph := ib.PhysState(x)
		p.PhysState = &ph
		r.note(portPath(p.Device, p.Number, "phys_state"), n, line)
	case k == "sm_lid":
		x, err := parseUint(v, 16)
		if err != nil {
			return err
		}
		p.SMLID = u32(x)
		r.note(portPath(p.Device, p.Number, "sm_lid"), n, line)
	case k == "port_lid":
		x, err := parseUint(v, 16)
		if err != nil {
			return err
		}
		p.LID = u32(x)
	case k == "port_lmc":
		x, err := parseUint(v, 8)
		if err != nil {
			return err
		}
		p.LMC = u8(x)
	case k == "sm_sl":
		x, err := parseUint(v, 4)
		if err != nil {
			return err
		}
		p.SMSL = u8(x)
	case k == "link_layer":
		ll, err := ib.ParseLinkLayer(v)
		if err != nil {
			return err
		}
		p.LinkLayer = ll
		r.note(portPath(p.Device, p.Number, "link_layer"), n, line)
	case k == "active_width":
		if x, err := parenNumber(v, 1<<15); err == nil && x == 0 {
			return nil // "invalid width (0)" of a port that is down
		}
		ws, _, _ := strings.Cut(v, "X")
		w, err := strconv.Atoi(ws)
		if err != nil || !validWidth(w) {
			return fmt.Errorf("bad active_width %q", v)
		}
		width[key] = w
	case k == "active_speed":
		x, err := parenNumber(v, 1<<15)
		if err != nil {
			return err
		}
		if x == 0 {
			return nil // "invalid speed (0)" of a port that is down
		}
		sp := ib.Speed(x)
		if sp.LaneDeciGbps() == 0 {
			return fmt.Errorf("unknown lane speed %q", v)
		}
		speed[key] = sp
		r.note(portPath(p.Device, p.Number, "rate"), n, line)
	case k == "active_mtu" || k == "max_mtu":
		mtu, err := parseIBMTU(v)
		if err != nil {
			return err
		}
		if k == "active_mtu" {
			p.ActiveMTU = &mtu
		} else {
			p.MaxMTU = &mtu
		}
		r.note(portPath(p.Device, p.Number, k), n, line)
	case strings.HasPrefix(k, "GID["):
		return r.devinfoGID(p, k, v)
	}
	return nil
}

// ibMTUs are enum ibv_mtu (IBV_MTU_256 = 1 … IBV_MTU_4096 = 5) in bytes.
var ibMTUs = []int{1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096}

// parseIBMTU reads ibv_devinfo's "4096 (5)": the bytes and the enum, which
// must agree; a bare "4096" is accepted.
func parseIBMTU(v string) (int, error) {
	num, _, _ := strings.Cut(v, " ")
	b, err := strconv.Atoi(num)
	if err != nil || !slices.Contains(ibMTUs[1:], b) {
		return 0, fmt.Errorf("bad MTU %q (want 256, 512, 1024, 2048 or 4096)", v)
	}
	if strings.Contains(v, "(") {
		x, err := parenNumber(v, uint64(len(ibMTUs)-1))
		if err != nil || x == 0 || ibMTUs[x] != b {
			return 0, fmt.Errorf("bad MTU %q: the enum in parentheses does not match", v)
		}
	}
	return b, nil
}

func validWidth(w int) bool {
	for _, x := range ib.Widths {
		if x == w {
			return true
		}
	}
	return false
}

// devinfoGID reads "GID[  3]:	::ffff:10.0.0.1, RoCE v2".
func (r *Result) devinfoGID(p *snapshot.Port, k, v string) error {
	idx, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(k, "GID["), "]")))
	if err != nil || idx < 0 || idx > 1<<16 {
		return fmt.Errorf("bad GID index %q", k)
	}
	gs, ts, hasType := strings.Cut(v, ",")
	g, err := ib.ParseGID(gs)
	if err != nil {
		return err
	}
	e := snapshot.GIDEntry{Index: idx, GID: g}
	if hasType {
		if e.Type, err = ib.ParseGIDType(ts); err != nil {
			return err
		}
	}
	p.GIDs = append(p.GIDs, e)
	return nil
}
