package routing

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"
)

// TopologyOptions tune WriteIBNetDiscover.
type TopologyOptions struct {
	// Generated is printed in the "Topology file: generated on" header
	// (ctime format, as ibnetdiscover prints its own clock).
	Generated time.Time
	// Rate is the width and speed printed for every link (default
	// "4xHDR", as ibnetdiscover prints LinkWidthActive/LinkSpeedActive).
	Rate string
	// VendorID and DeviceID are printed as vendid=/devid= (defaults
	// 0x2c9 Mellanox, 0xd2f0 Quantum-2 switch / 0x1021 ConnectX-7 HCA).
	VendorID, SwitchDeviceID, CADeviceID uint32
}

// WriteIBNetDiscover writes the fabric as `ibnetdiscover` prints it
// (infiniband-diags ibnetdiscover.c: out_switch/out_switch_port, then
// out_ca/out_ca_port; node names S-/H-<guid>), switches first, then CAs,
// in node order. The initiator is the first CA with a link.
func WriteIBNetDiscover(w io.Writer, f *Subnet, o TopologyOptions) error {
	g, err := New(f)
	if err != nil {
		return err
	}
	if o.Rate == "" {
		o.Rate = "4xHDR"
	}
	if o.VendorID == 0 {
		o.VendorID = 0x2c9
	}
	if o.SwitchDeviceID == 0 {
		o.SwitchDeviceID = 0xd2f0
	}
	if o.CADeviceID == 0 {
		o.CADeviceID = 0x1021
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "#\n# Topology file: generated on %s\n#\n", o.Generated.Format("Mon Jan _2 15:04:05 2006"))
	if init := g.initiator(); init >= 0 {
		n := &f.Nodes[init]
		fmt.Fprintf(bw, "# Initiated from node %016x port %016x\n", n.GUID, n.portGUID(1))
	}
	name := func(n *Node) string {
		if n.Type == Switch {
			return fmt.Sprintf("\"S-%016x\"", n.GUID)
		}
		return fmt.Sprintf("\"H-%016x\"", n.GUID)
	}
	lidOf := func(r PortRef) uint16 {
		n := &f.Nodes[r.Node]
		if n.Type == Switch {
			return n.Ports[0].LID
		}
		return n.Ports[r.Port].LID
	}
	for _, typ := range []NodeType{Switch, CA} {
		for i := range f.Nodes {
			n := &f.Nodes[i]
			if n.Type != typ {
				continue
			}
			dev := o.CADeviceID
			if typ == Switch {
				dev = o.SwitchDeviceID
			}
			fmt.Fprintf(bw, "\nvendid=0x%x\ndevid=0x%x\nsysimgguid=0x%x\n", o.VendorID, dev, n.GUID)
			if typ == Switch {
				fmt.Fprintf(bw, "switchguid=0x%x(%x)\n", n.GUID, n.portGUID(0))
				fmt.Fprintf(bw, "Switch\t%d %s\t\t# \"%s\" base port 0 lid %d lmc %d\n", n.NumPorts(), name(n), n.Desc, n.Ports[0].LID, n.Ports[0].LMC)
			} else {
				fmt.Fprintf(bw, "caguid=0x%x\n", n.GUID)
				fmt.Fprintf(bw, "Ca\t%d %s\t\t# \"%s\"\n", n.NumPorts(), name(n), n.Desc)
			}
			for p := 1; p <= n.NumPorts(); p++ {
				peer, ok := g.Peer(PortRef{i, p})
				if !ok {
					continue
				}
				rn := &f.Nodes[peer.Node]
				if typ == Switch {
					fmt.Fprintf(bw, "[%d]\t%s[%d]", p, name(rn), peer.Port)
					if rn.Type != Switch {
						fmt.Fprintf(bw, "(%x) ", rn.portGUID(peer.Port))
					}
					fmt.Fprintf(bw, "\t\t# \"%s\" lid %d %s\n", rn.Desc, lidOf(peer), o.Rate)
					continue
				}
				fmt.Fprintf(bw, "[%d](%x) \t%s[%d]", p, n.portGUID(p), name(rn), peer.Port)
				if rn.Type != Switch {
					fmt.Fprintf(bw, " (%x) ", rn.portGUID(peer.Port))
				}
				fmt.Fprintf(bw, "\t\t# lid %d lmc %d \"%s\" lid %d %s\n", n.Ports[p].LID, n.Ports[p].LMC, rn.Desc, lidOf(peer), o.Rate)
			}
		}
	}
	return bw.Flush()
}

// initiator is the first CA with a cabled port 1, or -1.
func (g *Graph) initiator() int {
	for i := range g.f.Nodes {
		if g.f.Nodes[i].Type == CA && g.f.Nodes[i].NumPorts() >= 1 && g.peer[g.base[i]+1] >= 0 {
			return i
		}
	}
	return -1
}

// DumpOptions tune WriteDumpFTS.
type DumpOptions struct {
	// Brief is dump_fts -n: no destination column.
	Brief bool
}

// WriteDumpFTS writes every switch's unicast LFT as `dump_fts` prints it
// (infiniband-diags dump_fts.c dump_unicast_tables/dump_lid): a header with
// the directed-route path from the initiator (the first CA with a link), the
// entries with a valid port (0…ports), LMC paths as "path #i out of n", and
// the "N valid lids dumped " trailer. The table top (LinearFDBTop) is the
// last LFT entry.
func WriteDumpFTS(w io.Writer, f *Subnet, o DumpOptions) error {
	g, err := New(f)
	if err != nil {
		return err
	}
	paths := g.drPaths()
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]byte, 0, 160)
	for _, n32 := range g.swNode {
		n := &f.Nodes[n32]
		top := len(n.LFT) - 1
		if top < 0 {
			top = 0
		}
		path := paths[n32]
		if path == "" {
			path = "0"
		}
		fmt.Fprintf(bw, "Unicast lids [0x%x-0x%x] of switch DR path slid 0; dlid 0; %s guid 0x%016x (%s):\n", 0, top, path, n.GUID, n.Desc)
		bw.WriteString("  Lid  Out   Destination\n       Port     Info \n")
		var lastPortLID, basePortLID int
		var portGUID uint64
		count := 0
		for lid := 0; lid < len(n.LFT); lid++ {
			out := n.LFT[lid]
			if int(out) > n.NumPorts() {
				continue
			}
			buf = buf[:0]
			buf = append(buf, "0x"...)
			buf = appendHex(buf, uint64(lid), 4)
			buf = append(buf, ' ')
			buf = appendDec3(buf, out)
			buf = append(buf, ' ')
			if !o.Brief {
				buf = g.appendDest(buf, lid, &lastPortLID, &basePortLID, &portGUID)
			}
			buf = append(buf, '\n')
			bw.Write(buf)
			count++
		}
		fmt.Fprintf(bw, "%d valid lids dumped \n", count)
	}
	return bw.Flush()
}

// appendDest is dump_fts.c dump_lid for a valid entry.
func (g *Graph) appendDest(buf []byte, lid int, lastPortLID, basePortLID *int, portGUID *uint64) []byte {
	if lid <= *lastPortLID {
		buf = append(buf, ": (path #"...)
		buf = strconv.AppendInt(buf, int64(lid-*basePortLID+1), 10)
		buf = append(buf, " out of "...)
		buf = strconv.AppendInt(buf, int64(*lastPortLID-*basePortLID+1), 10)
		if *portGUID == 0 {
			return append(buf, ')')
		}
		buf = append(buf, ": portguid 0x"...)
		buf = appendHex(buf, *portGUID, 16)
		return append(buf, ')')
	}
	*portGUID = 0
	ref, ok := g.Owner(uint16(lid))
	if !ok {
		return append(buf, ": (node info not available fabric scan)"...)
	}
	n := &g.f.Nodes[ref.Node]
	pt := n.Ports[ref.Port]
	if n.Type == Switch {
		pt = n.Ports[0]
	}
	*portGUID = n.portGUID(ref.Port)
	if pt.LMC > 0 {
		*basePortLID = int(pt.LID)
		*lastPortLID = int(pt.LID) + 1<<pt.LMC - 1
	}
	buf = append(buf, ": ("...)
	if n.Type == Switch {
		buf = append(buf, "Switch"...)
	} else {
		buf = append(buf, "Channel Adapter"...)
	}
	buf = append(buf, " portguid 0x"...)
	buf = appendHex(buf, *portGUID, 16)
	buf = append(buf, ": '"...)
	buf = append(buf, n.Desc...)
	return append(buf, "')"...)
}

func appendHex(buf []byte, v uint64, width int) []byte {
	const digits = "0123456789abcdef"
	var tmp [16]byte
	i := len(tmp)
	for v > 0 || i == len(tmp) {
		i--
		tmp[i] = digits[v&0xf]
		v >>= 4
	}
	for pad := width - (len(tmp) - i); pad > 0; pad-- {
		buf = append(buf, '0')
	}
	return append(buf, tmp[i:]...)
}

func appendDec3(buf []byte, v uint8) []byte {
	return append(buf, '0'+v/100, '0'+v/10%10, '0'+v%10)
}

// drPaths returns each switch's directed-route path from the initiator as
// dump_fts prints it ("0,1,5,4": 0, then the output port of every hop), by
// BFS in port order.
func (g *Graph) drPaths() map[int32]string {
	out := map[int32]string{}
	init := g.initiator()
	if init < 0 {
		return out
	}
	type item struct {
		node int32
		path string
	}
	seen := make([]bool, len(g.f.Nodes))
	seen[init] = true
	q := g.peer[g.base[init]+1]
	first := g.portNode[q]
	seen[first] = true
	queue := []item{{first, "0,1"}}
	for h := 0; h < len(queue); h++ {
		it := queue[h]
		if g.sw[it.node] < 0 {
			continue
		}
		out[it.node] = it.path
		n := it.node
		for p := g.base[n] + 1; p < g.base[n+1]; p++ {
			q := g.peer[p]
			if q < 0 || seen[g.portNode[q]] {
				continue
			}
			v := g.portNode[q]
			seen[v] = true
			queue = append(queue, item{v, it.path + "," + strconv.Itoa(int(p-g.base[n]))})
		}
	}
	return out
}

// WriteIBSimNet writes the fabric as an ibsim net file (ibsim-utils
// net-examples format: a `Switch|Hca N "name"` header per node, then
// `[port] "peer"[port]` per cabled port), with node descriptions as names.
// Switches come first, as in the examples; LIDs and tables are not part of
// the format (OpenSM assigns them).
func WriteIBSimNet(w io.Writer, f *Subnet) error {
	g, err := New(f)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, typ := range []NodeType{Switch, CA} {
		for i := range f.Nodes {
			n := &f.Nodes[i]
			if n.Type != typ {
				continue
			}
			kind := "Hca"
			if typ == Switch {
				kind = "Switch"
			}
			fmt.Fprintf(bw, "%s\t%d %q\n", kind, n.NumPorts(), n.Name())
			for p := 1; p <= n.NumPorts(); p++ {
				if peer, ok := g.Peer(PortRef{i, p}); ok {
					fmt.Fprintf(bw, "[%d]\t%q[%d]\n", p, f.Nodes[peer.Node].Name(), peer.Port)
				}
			}
			bw.WriteString("\n")
		}
	}
	return bw.Flush()
}
