package sysfs

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

const classIB = layout.ClassInfiniband

// readDir lists a directory; a missing one gives nil and no gap.
func (r *reader) readDir(dir string) []fs.DirEntry {
	r.touch(dir)
	ents, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		r.fail(dir, err)
		return nil
	}
	r.listed[dir] = true
	return ents
}

func (r *reader) readDevices() error {
	for _, e := range r.readDir(classIB) {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		r.snap.Devices = append(r.snap.Devices, r.readDevice(e.Name()))
	}
	return nil
}

func (r *reader) readDevice(name string) snapshot.Device {
	dir := path.Join(classIB, name)
	d := snapshot.Device{
		Name:         name,
		FWVersion:    strings.TrimSpace(r.readString(dir + "/fw_ver")),
		HCAType:      strings.TrimSpace(r.readString(dir + "/hca_type")),
		BoardID:      strings.TrimSpace(r.readString(dir + "/board_id")),
		HWRev:        strings.TrimSpace(r.readString(dir + "/hw_rev")),
		NodeDesc:     r.readString(dir + "/node_desc"),
		NodeGUID:     r.readGUID(dir + "/node_guid"),
		SysImageGUID: r.readGUID(dir + "/sys_image_guid"),
		Ports:        []snapshot.Port{},
	}
	if nt := parse(r, dir+"/node_type", ParseNodeType); nt != nil {
		d.NodeType = *nt
	}
	if real, ok := r.resolve(dir + "/device"); ok {
		if a, ok := r.addPCIChain(real); ok {
			d.PCI = a
		}
	}
	d.HWCounters = r.readHWCounters(dir + "/hw_counters")
	for _, e := range r.readDir(dir + "/ports") {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n < 0 || n > 255 {
			r.gap(dir+"/ports/"+e.Name(), fmt.Errorf("port directory name %q is not a port number", e.Name()))
			continue
		}
		d.Ports = append(d.Ports, r.readPort(name, n))
	}
	if len(d.Ports) == 0 {
		// Not judged is not healthy: without ports nothing of the device
		// was read.
		r.missing(dir+"/ports", "no ports: the kernel lists at least one for every RDMA device")
	}
	return d
}

// missing records a gap for a file or directory the kernel always
// creates (drivers/infiniband/core/sysfs.c), unless its read already
// left one.
func (r *reader) missing(path, why string) {
	if !r.gaps[path] {
		r.gap(path, errors.New(why))
	}
}

// readGUID reads node_guid-style attributes ("b83f:d203:0012:3456") and
// renders them as ib.GUIDString ("0xb83fd20300123456"), the form the
// fabric tools and every ibdoctor output use.
func (r *reader) readGUID(p string) string {
	g := parse(r, p, ib.NormalizeGUID)
	if g == nil {
		return ""
	}
	return *g
}

// ParseNodeType parses node_type, "%u: %s\n" ("1: CA"), into its name.
func ParseNodeType(in string) (string, error) {
	t := strings.TrimSpace(in)
	num, name, ok := strings.Cut(t, ": ")
	if !ok || name == "" {
		return "", fmt.Errorf("%w: node type %q (want \"<n>: <name>\")", ib.ErrMalformed, in)
	}
	if _, err := strconv.ParseUint(num, 10, 8); err != nil {
		return "", fmt.Errorf("%w: node type %q (want \"<n>: <name>\")", ib.ErrMalformed, in)
	}
	return name, nil
}

// resolve evaluates symlinks; a missing link gives ok=false without a gap.
func (r *reader) resolve(p string) (string, bool) {
	real, err := rootfs.EvalSymlinks(r.fsys, p)
	if err != nil {
		r.fail(p, err)
		return "", false
	}
	return real, true
}

func (r *reader) readPort(dev string, n int) snapshot.Port {
	dir := fmt.Sprintf("%s/%s/ports/%d", classIB, dev, n)
	p := snapshot.Port{Device: dev, Number: n}
	if ll := parse(r, dir+"/link_layer", ib.ParseLinkLayer); ll != nil {
		p.LinkLayer = *ll
	}
	p.State = parse(r, dir+"/state", ib.ParsePortState)
	p.PhysState = parse(r, dir+"/phys_state", ib.ParsePhysState)
	p.Rate = parse(r, dir+"/rate", ib.ParseRate)
	p.LID = parse(r, dir+"/lid", ParseHex32)
	p.SMLID = parse(r, dir+"/sm_lid", ParseHex32)
	p.SMSL = parse(r, dir+"/sm_sl", parseUint8)
	p.LMC = parse(r, dir+"/lid_mask_count", parseUint8)
	p.CapMask = parse(r, dir+"/cap_mask", ParseHex32)
	for attr, v := range map[string]bool{"state": p.State == nil, "phys_state": p.PhysState == nil, "rate": p.Rate == nil} {
		if v {
			r.missing(dir+"/"+attr, "missing: the kernel creates it for every port")
		}
	}
	p.Counters, p.HasCounters = r.readCounters(dir + "/counters")
	p.HWCounters = r.readHWCounters(dir + "/hw_counters")
	p.GIDs = r.readGIDs(dir)
	p.PKeys, p.HasPKeys = r.readPKeys(dir)
	p.NetDev = portNetDev(p.GIDs)
	return p
}

// portNetDev is the net device the first GID with one names: a RoCE
// port's netdev.
func portNetDev(gids []snapshot.GIDEntry) string {
	for _, g := range gids {
		if g.NetDev != "" {
			return g.NetDev
		}
	}
	return ""
}

// ParseHex32 parses "0x%x" attributes (lid, sm_lid, cap_mask).
func ParseHex32(in string) (uint32, error) {
	t := strings.TrimSpace(in)
	h, ok := strings.CutPrefix(t, "0x")
	if !ok || h == "" {
		return 0, fmt.Errorf("%w: %q (want 0x<hex>)", ib.ErrMalformed, in)
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("%w: %q (want 32-bit 0x<hex>)", ib.ErrMalformed, in)
	}
	return uint32(v), nil
}

func parseUint8(in string) (uint8, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(in), 10, 8)
	if err != nil {
		return 0, fmt.Errorf("%w: %q (want 0–255)", ib.ErrMalformed, in)
	}
	return uint8(v), nil
}

// extCounters are the counters whose width tells the PMA table apart.
var extCounters = []string{"port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets"}

// readCounters reads counters/. The kernel picks one of three tables
// (drivers/infiniband/core/sysfs.c get_counter_table): pma_group_ext (64-bit
// data and packet counters plus unicast_/multicast_ files), pma_group_noietf
// (64-bit, without those files) or the 32-bit pma_group. The files do not
// say which; the reader takes the 64-bit widths when unicast_xmit_packets
// exists (pma_group_ext) or when any data/packet counter holds a value above
// 32 bits (pma_group_noietf seen by its values), and the 32-bit saturating
// widths otherwise. A noietf HCA whose counters are all still below 2^32 is
// read as 32-bit, which only matters once a value sits at exactly 2^32-1.
func (r *reader) readCounters(dir string) ([]snapshot.Counter, bool) {
	r.touch(dir)
	ents, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		r.fail(dir, err)
		return nil, r.gaps[dir]
	}
	r.listed[dir] = true
	r.counters = true
	defer func() { r.counters = false }()
	out := make([]snapshot.Counter, 0, len(ents))
	ext := false
	for _, e := range ents {
		name := e.Name()
		if name == "unicast_xmit_packets" {
			ext = true
		}
		v := parse(r, dir+"/"+name, ib.ParseCounter)
		if v == nil {
			continue
		}
		if *v > math.MaxUint32 && slices.Contains(extCounters, name) {
			ext = true
		}
		out = append(out, snapshot.Counter{Name: name, Value: *v})
	}
	for i := range out {
		out[i].Spec = ib.PortCounterSpec(out[i].Name, ext)
	}
	return out, true
}

// readHWCounters reads a hw_counters/ directory, whose names depend on the
// driver and its capabilities. lifespan is the refresh interval in ms, a
// setting rather than a counter, and is left out.
func (r *reader) readHWCounters(dir string) []snapshot.Counter {
	var out []snapshot.Counter
	r.counters = true
	defer func() { r.counters = false }()
	for _, e := range r.readDir(dir) {
		name := e.Name()
		spec := ib.HWCounterSpec(name)
		if spec.Kind == ib.KindSetting || e.IsDir() {
			continue
		}
		if v := parse(r, dir+"/"+name, ib.ParseCounter); v != nil {
			out = append(out, snapshot.Counter{Name: name, Value: *v, Spec: spec})
		}
	}
	return out
}

// readGIDs reads the populated slots of gids/ with their gid_attrs. The
// kernel prints the zero GID for unused slots and fails reads of their
// gid_attrs with EINVAL; an attribute that cannot be read is absent, not a
// gap (IB ports have no ndevs at all).
func (r *reader) readGIDs(dir string) []snapshot.GIDEntry {
	var out []snapshot.GIDEntry
	for _, e := range r.readDir(dir + "/gids") {
		i, err := strconv.Atoi(e.Name())
		if err != nil || i < 0 {
			continue
		}
		g := parse(r, dir+"/gids/"+e.Name(), ib.ParseGID)
		if g == nil || g.IsZero() {
			continue
		}
		ent := snapshot.GIDEntry{Index: i, GID: *g}
		if b, err := rootfs.ReadAttr(r.fsys, dir+"/gid_attrs/types/"+e.Name()); err == nil {
			t, err := ib.ParseGIDType(string(b))
			if err != nil {
				r.gap(dir+"/gid_attrs/types/"+e.Name(), err)
			}
			ent.Type = t
		}
		if b, err := rootfs.ReadAttr(r.fsys, dir+"/gid_attrs/ndevs/"+e.Name()); err == nil {
			ent.NetDev = strings.TrimSpace(string(b))
		}
		out = append(out, ent)
	}
	return out
}

// readPKeys reads the non-zero entries of pkeys/ in index order; the
// kernel prints every slot as "0x%04x" and unused slots as 0x0000
// (drivers/infiniband/core/sysfs.c show_port_pkey). ok is false when the
// directory could not be listed.
func (r *reader) readPKeys(dir string) ([]uint16, bool) {
	ents, err := fs.ReadDir(r.fsys, dir+"/pkeys")
	if err != nil {
		r.fail(dir+"/pkeys", err)
		return nil, false
	}
	r.listed[dir+"/pkeys"] = true
	type slot struct {
		i int
		k uint16
	}
	var slots []slot
	for _, e := range ents {
		i, err := strconv.Atoi(e.Name())
		if err != nil || i < 0 {
			continue
		}
		k := parse(r, dir+"/pkeys/"+e.Name(), ParsePKey)
		if k == nil || *k == 0 {
			continue
		}
		slots = append(slots, slot{i, *k})
	}
	slices.SortFunc(slots, func(a, b slot) int { return a.i - b.i })
	out := make([]uint16, len(slots))
	for j, s := range slots {
		out[j] = s.k
	}
	return out, true
}

// ParsePKey parses a pkeys/<i> file, "0x%04x".
func ParsePKey(in string) (uint16, error) {
	v, err := ParseHex32(in)
	if err != nil {
		return 0, err
	}
	if v > math.MaxUint16 {
		return 0, fmt.Errorf("%w: P_Key %q exceeds 16 bits", ib.ErrMalformed, strings.TrimSpace(in))
	}
	return uint16(v), nil
}

// addPCIChain registers the PCI function a resolved device path names and
// every bridge above it. real is root-relative
// ("sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"); the deepest
// component that is a PCI address is the function (a virtio net device
// resolves below its PCI function). ok is false for non-PCI devices.
func (r *reader) addPCIChain(real string) (pcie.Address, bool) {
	rel, ok := strings.CutPrefix(real, "sys/devices/")
	if !ok {
		return "", false
	}
	parts := strings.Split(rel, "/")
	if !strings.HasPrefix(parts[0], "pci") {
		return "", false
	}
	var last pcie.Address
	for i := 1; i < len(parts); i++ {
		a, err := pcie.ParseAddress(parts[i])
		if err != nil || string(a) != parts[i] {
			continue
		}
		if !r.pci[a] {
			r.pci[a] = true
			r.pciPath = append(r.pciPath, pciRef{addr: a, path: strings.Join(parts[:i+1], "/"), parent: last})
		}
		last = a
	}
	if last == "" {
		return "", false
	}
	return last, true
}
