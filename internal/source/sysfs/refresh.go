package sysfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// Inventory is what decides whether the static parts of a snapshot (device
// identities, GID tables, the PCI chain, the net devices and their links)
// may have changed: the entries of sys/class/infiniband and of
// sys/class/net. Listing them costs two directory reads. A device's ports
// are registered with it (ib_register_device) and go with it, so its
// ports/ is not listed.
func Inventory(fsys fs.FS) string {
	var b strings.Builder
	for _, dir := range []string{classIB, classNet} {
		ents, err := fs.ReadDir(fsys, dir)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", dir, errors.Unwrap(err))
			continue
		}
		b.WriteString(dir)
		for _, e := range ents {
			b.WriteByte(' ')
			b.WriteString(e.Name())
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Refresh re-reads the parts of prev that change from one interval to the
// next — port state, physical state and rate, counters/ and hw_counters/
// (port and device), the operstate, carrier and carrier_changes of the net
// devices and the AER counters of the PCI functions (all of them, or a
// slice as Options.AEREvery says) — and the
// quasi-static attributes (the SM-assigned LID, SM LID, SL and LMC; the
// MTU, type, address and speed of the net devices; the PCIe link speed and
// width), all of them or a slice with change signals as
// Options.QuasiStatic says, and keeps the rest of prev (identities, GID
// tables, the PCI chain, which net devices exist). prev is not modified.
// It is only correct while Inventory is unchanged since prev was read;
// callers re-read everything with Read when it changes, and now and then
// anyway. Gaps of prev on files Refresh re-reads are replaced by what it
// finds.
func Refresh(ctx context.Context, fsys fs.FS, prev *snapshot.Snapshot, opts Options) (*snapshot.Snapshot, error) {
	if prev == nil {
		return nil, errors.New("refresh: no previous snapshot")
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := *prev
	s.Taken = now()
	if opts.Handles != nil {
		opts.Handles.next()
	}
	cached := rootfs.Cache(fsys)
	defer cached.Close()
	r := &reader{ctx: ctx, fsys: cached, snap: &s, gaps: map[string]bool{}, listed: map[string]bool{}, touched: map[string]bool{},
		prevGaps: make(map[string]bool, len(prev.Gaps)), handles: opts.Handles}
	for _, g := range prev.Gaps {
		r.prevGaps[g.Path] = true
	}
	s.Gaps = nil
	every := max(opts.QuasiStatic, 1)
	due := func(i int) bool { return (opts.Pass+i)%every == 0 }
	nport := 0
	s.Devices = slices.Clone(prev.Devices)
	for i := range s.Devices {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d := &s.Devices[i]
		dir := path.Join(classIB, d.Name)
		d.HWCounters = r.rereadHW(dir+"/hw_counters", d.HWCounters)
		if opts.Config {
			r.rereadIdentity(dir, d)
		}
		d.Ports = slices.Clone(d.Ports)
		for j := range d.Ports {
			p := &d.Ports[j]
			pdir := fmt.Sprintf("%s/ports/%d", dir, p.Number)
			state, phys := p.State, p.PhysState
			p.State = parse(r, pdir+"/state", ib.ParsePortState)
			p.PhysState = parse(r, pdir+"/phys_state", ib.ParsePhysState)
			p.Rate = parse(r, pdir+"/rate", ib.ParseRate)
			if due(nport) || !samePtr(state, p.State) || !samePtr(phys, p.PhysState) {
				// The SM assigns these; a port that goes down loses
				// its LID.
				p.LID = parse(r, pdir+"/lid", ParseHex32)
				p.SMLID = parse(r, pdir+"/sm_lid", ParseHex32)
				p.SMSL = parse(r, pdir+"/sm_sl", parseUint8)
				p.LMC = parse(r, pdir+"/lid_mask_count", parseUint8)
			}
			nport++
			for attr, v := range map[string]bool{"state": p.State == nil, "phys_state": p.PhysState == nil, "rate": p.Rate == nil} {
				if v {
					r.missing(pdir+"/"+attr, "missing: the kernel creates it for every port")
				}
			}
			if p.HasCounters {
				p.Counters = r.rereadCounters(pdir+"/counters", p.Counters)
			}
			p.HWCounters = r.rereadHW(pdir+"/hw_counters", p.HWCounters)
			if opts.Config {
				r.rereadPortConfig(pdir, p)
			}
		}
	}
	s.NetDevs = slices.Clone(prev.NetDevs)
	for i := range s.NetDevs {
		nd := &s.NetDevs[i]
		was := *nd
		dir := classNet + "/" + nd.Name
		r.readNetState(dir, nd)
		if due(i) || nd.OperState != was.OperState || !samePtr(nd.Carrier, was.Carrier) || !samePtr(nd.CarrierChanges, was.CarrierChanges) {
			r.readNetConfig(dir, nd)
		}
	}
	s.PCI = slices.Clone(prev.PCI)
	aerEvery := max(opts.AEREvery, 1)
	for i := range s.PCI {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d := &s.PCI[i]
		dir := layout.Devices + "/" + d.Path
		aer := d.AER
		if opts.AERNow || (opts.Pass+i)%aerEvery == 0 {
			d.AER = r.readAER(dir)
		}
		if due(i) || !sameAER(aer, d.AER) {
			d.CurrentLinkSpeed = r.readLinkSpeed(dir + "/current_link_speed")
			d.CurrentLinkWidth = parse(r, dir+"/current_link_width", pcie.ParseWidth)
		}
	}
	// Keep prev's gaps on files not re-read (static attributes); the
	// re-read files have theirs from this read.
	for _, g := range prev.Gaps {
		if !r.touched[g.Path] && !r.gaps[g.Path] {
			s.Gaps = append(s.Gaps, g)
		}
	}
	if s.Gaps == nil {
		s.Gaps = []snapshot.Gap{}
	}
	slices.SortFunc(s.Gaps, func(a, b snapshot.Gap) int { return strings.Compare(a.Path, b.Path) })
	return &s, nil
}

// rereadIdentity reads again a device's identity attributes, as
// readDevice does.
func (r *reader) rereadIdentity(dir string, d *snapshot.Device) {
	r.config = true
	defer func() { r.config = false }()
	d.FWVersion = strings.TrimSpace(r.readString(dir + "/fw_ver"))
	d.HCAType = strings.TrimSpace(r.readString(dir + "/hca_type"))
	d.BoardID = strings.TrimSpace(r.readString(dir + "/board_id"))
	d.HWRev = strings.TrimSpace(r.readString(dir + "/hw_rev"))
	d.NodeDesc = r.readString(dir + "/node_desc")
	d.NodeGUID = r.readGUID(dir + "/node_guid")
	d.SysImageGUID = r.readGUID(dir + "/sys_image_guid")
}

// rereadPortConfig reads again a port's capability mask, GID table (and
// the net device its GIDs name) and P_Key table, as readPort does.
func (r *reader) rereadPortConfig(dir string, p *snapshot.Port) {
	r.config = true
	defer func() { r.config = false }()
	r.touch(dir + "/gids")
	r.touch(dir + "/pkeys")
	p.CapMask = parse(r, dir+"/cap_mask", ParseHex32)
	p.GIDs = r.readGIDs(dir)
	p.PKeys, p.HasPKeys = r.readPKeys(dir)
	// Other ports' net devices (IPoIB) were mapped by the full read.
	if nd := portNetDev(p.GIDs); nd != "" {
		p.NetDev = nd
	}
}

// rereadCounters reads again the counters/ files prev holds (the names do
// not change while the device stays), with their PMA table's widths found
// as readCounters finds them. A file that fails is a gap and is left out.
func (r *reader) rereadCounters(dir string, prev []snapshot.Counter) []snapshot.Counter {
	r.touch(dir)
	out := make([]snapshot.Counter, 0, len(prev))
	ext := false
	for _, c := range prev {
		if c.Name == "unicast_xmit_packets" {
			ext = true
		}
		v, ok := parseValue(r, dir+"/"+c.Name, ib.ParseCounter)
		if !ok {
			continue
		}
		if v > math.MaxUint32 && slices.Contains(extCounters, c.Name) {
			ext = true
		}
		out = append(out, snapshot.Counter{Name: c.Name, Value: v})
	}
	for i := range out {
		out[i].Spec = ib.PortCounterSpec(out[i].Name, ext)
	}
	return out
}

// rereadHW reads again the hw_counters/ files prev holds.
func (r *reader) rereadHW(dir string, prev []snapshot.Counter) []snapshot.Counter {
	r.touch(dir)
	var out []snapshot.Counter
	if len(prev) > 0 {
		out = make([]snapshot.Counter, 0, len(prev))
	}
	for _, c := range prev {
		if v, ok := parseValue(r, dir+"/"+c.Name, ib.ParseCounter); ok {
			out = append(out, snapshot.Counter{Name: c.Name, Value: v, Spec: c.Spec})
		}
	}
	return out
}

// samePtr reports whether two optional values are both absent or equal.
func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// sameAER reports whether two AER readings have the same totals.
func sameAER(a, b *snapshot.AER) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Correctable == b.Correctable && a.NonFatal == b.NonFatal && a.Fatal == b.Fatal
}
