package sysfs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

const classNet = layout.ClassNet

// ARPHRD types of sys/class/net/<dev>/type.
const (
	arphrdEther      = 1
	arphrdInfiniBand = 32
)

// netExtra is what port mapping needs beyond snapshot.NetDev.
type netExtra struct {
	pciPath string // function directory below sys/devices, "" if none
	devPort *int   // dev_port
	devID   *int   // dev_id (hex), IPoIB's port on older kernels
}

// readNetDevs reads the interfaces of sys/class/net that have a device
// link or that a port's GID table names (a bond or VLAN carrying RoCE).
func (r *reader) readNetDevs() error {
	wanted := map[string]bool{}
	for _, d := range r.snap.Devices {
		for _, p := range d.Ports {
			for _, g := range p.GIDs {
				if g.NetDev != "" {
					wanted[g.NetDev] = true
				}
			}
		}
	}
	r.netInfo = map[string]netExtra{}
	for _, e := range r.readDir(classNet) {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		name := e.Name()
		dir := classNet + "/" + name
		var extra netExtra
		nd := snapshot.NetDev{Name: name}
		real, hasDev := r.resolve(dir + "/device")
		if !hasDev && !wanted[name] {
			continue
		}
		if hasDev {
			if a, ok := r.addPCIChain(real); ok {
				nd.PCI = a
				extra.pciPath = r.pciPathOf(a)
			}
		}
		r.readNetAttrs(dir, &nd)
		extra.devPort = parse(r, dir+"/dev_port", parseInt)
		extra.devID = parse(r, dir+"/dev_id", parseHexInt)
		r.snap.NetDevs = append(r.snap.NetDevs, nd)
		r.netInfo[name] = extra
	}
	return nil
}

func (r *reader) pciPathOf(a pcie.Address) string {
	for _, p := range r.pciPath {
		if p.addr == a {
			return p.path
		}
	}
	return ""
}

// readNetAttrs reads the interface attributes.
func (r *reader) readNetAttrs(dir string, nd *snapshot.NetDev) {
	r.readNetState(dir, nd)
	r.readNetConfig(dir, nd)
}

// readNetState reads what changes when the link goes up or down:
// operstate, carrier and carrier_changes. carrier fails with EINVAL while
// an interface is down; that is no gap unless it is up.
func (r *reader) readNetState(dir string, nd *snapshot.NetDev) {
	nd.OperState = strings.TrimSpace(r.readString(dir + "/operstate"))
	nd.CarrierChanges = parse(r, dir+"/carrier_changes", parseUint64)
	if nd.OperState == "up" {
		nd.Carrier = parse(r, dir+"/carrier", parseBool01)
	} else {
		nd.Carrier = parseQuiet(r, dir+"/carrier", parseBool01)
	}
}

// readNetConfig reads what changes only when the interface is
// reconfigured or its link renegotiated: MTU, type, address and speed
// (which, like carrier, fails while the interface is down).
func (r *reader) readNetConfig(dir string, nd *snapshot.NetDev) {
	nd.MTU = parse(r, dir+"/mtu", parseInt)
	nd.Type = parse(r, dir+"/type", parseInt)
	nd.Address = strings.TrimSpace(r.readString(dir + "/address"))
	if nd.OperState == "up" {
		nd.Speed = parse(r, dir+"/speed", parseInt)
	} else {
		nd.Speed = parseQuiet(r, dir+"/speed", parseInt)
	}
}

// parseQuiet is parse for attributes whose read errors are expected: any
// failure leaves the value unset without a gap.
func parseQuiet[T any](r *reader, path string, p func(string) (T, error)) *T {
	b, err := rootfs.ReadAttr(r.fsys, path)
	if err != nil {
		return nil
	}
	v, err := p(string(b))
	if err != nil {
		return nil
	}
	return &v
}

func parseInt(in string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(in))
	if err != nil {
		return 0, fmt.Errorf("%w: %q (want a decimal integer)", ib.ErrMalformed, in)
	}
	return n, nil
}

func parseHexInt(in string) (int, error) {
	v, err := ParseHex32(in)
	return int(v), err
}

func parseUint64(in string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(in), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %q (want an unsigned decimal)", ib.ErrMalformed, in)
	}
	return n, nil
}

func parseBool01(in string) (bool, error) {
	switch strings.TrimSpace(in) {
	case "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, fmt.Errorf("%w: %q (want 0 or 1)", ib.ErrMalformed, in)
}

// mapPortNetDevs fills Port.NetDev where the GID table did not: the
// interfaces under the port's PCI function (sys/devices/<fn>/net/) of the
// port's kind (Ethernet for RoCE, ARPHRD_INFINIBAND for IPoIB), picking the
// one whose dev_port (or, on older kernels, dev_id) is the port number − 1
// when the function has several; child interfaces (ib0.8001) sort after
// their parent and lose ties.
func (r *reader) mapPortNetDevs() {
	for di := range r.snap.Devices {
		d := &r.snap.Devices[di]
		if d.PCI == "" {
			continue
		}
		fn := r.pciPathOf(d.PCI)
		var cands []string
		for name, x := range r.netInfo {
			if x.pciPath == fn && fn != "" {
				cands = append(cands, name)
			}
		}
		slices.Sort(cands)
		for pi := range d.Ports {
			p := &d.Ports[pi]
			if p.NetDev != "" {
				continue
			}
			want := arphrdEther
			if p.LinkLayer == ib.LinkLayerInfiniBand {
				want = arphrdInfiniBand
			}
			var kind []string
			for _, c := range cands {
				if nd := r.snapNetDev(c); nd != nil && (nd.Type == nil || *nd.Type == want) {
					kind = append(kind, c)
				}
			}
			p.NetDev = pickByPort(kind, p.Number, r.netInfo)
		}
	}
}

func pickByPort(cands []string, port int, info map[string]netExtra) string {
	for _, c := range cands {
		if x := info[c]; x.devPort != nil && *x.devPort == port-1 {
			return c
		}
	}
	for _, c := range cands {
		if x := info[c]; x.devID != nil && *x.devID == port-1 {
			return c
		}
	}
	if len(cands) == 1 {
		return cands[0]
	}
	return ""
}

func (r *reader) snapNetDev(name string) *snapshot.NetDev {
	for i := range r.snap.NetDevs {
		if r.snap.NetDevs[i].Name == name {
			return &r.snap.NetDevs[i]
		}
	}
	return nil
}
