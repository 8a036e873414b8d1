package democluster

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	simfabric "github.com/ibdoctor/ibdoctor/internal/sim/fabric"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

// The fabric: the nodes' InfiniBand HCAs (mlx5_0..7) cabled to their
// leaf, HostsPerLeaf nodes a leaf, every leaf to each of 2 spines by 2
// cables, NDR. Its host links follow the nodes (a port that is down has
// no cable in the collection, a port at 2X trains at 2X, the nodes'
// error counters are the HCA ports'); the switch links have faults of
// their own.
const (
	spines  = 2
	uplinks = 2
	// smLID is the first spine's LID, where the subnet manager runs;
	// host LIDs start at hostLIDBase.
	smLID       = 1
	hostLIDBase = 0x100
)

// The switch links' faults, by leaf: leaf1's first uplink trains at 1X,
// the symbol errors of leaf2's second grow by 40/s from 30 s, and leaf3's
// last is not cabled.
const (
	narrowLeaf  = "leaf1"
	errorLeaf   = "leaf2"
	missingLeaf = "leaf3"
)

// hostPorts are node n's InfiniBand HCAs with their ports, in order.
func hostPorts(n *simnode.Node) []*simnode.Device {
	var out []*simnode.Device
	for _, d := range n.Devices {
		if len(d.Ports) > 0 && d.Ports[0].LinkLayer == ib.LinkLayerInfiniBand {
			out = append(out, d)
		}
	}
	return out
}

// assignLIDs gives node i's IB ports the LIDs the fabric's subnet manager
// gave them: hostLIDBase + 16i + k, with the SM on the first spine.
func assignLIDs(n *simnode.Node, i int) {
	for k, d := range hostPorts(n) {
		p := d.Ports[0]
		lid := uint16(hostLIDBase + 16*i + k)
		p.AssignedLID, p.AssignedSMLID = lid, smLID
		if p.LID != 0 {
			p.LID, p.SMLID = lid, smLID
		}
	}
}

// pmaNames maps the sysfs counters the fabric reports to the names
// ibqueryerrors prints.
var pmaNames = map[string]string{
	"symbol_error": "SymbolErrorCounter", "link_error_recovery": "LinkErrorRecoveryCounter",
	"link_downed": "LinkDownedCounter", "port_rcv_errors": "PortRcvErrors",
	"port_rcv_remote_physical_errors": "PortRcvRemotePhysicalErrors", "port_xmit_discards": "PortXmitDiscards",
	"local_link_integrity_errors": "LocalLinkIntegrityErrors", "excessive_buffer_overrun_errors": "ExcessiveBufferOverrunErrors",
	"port_xmit_data": "PortXmitData", "port_rcv_data": "PortRcvData", "port_xmit_packets": "PortXmitPkts", "port_rcv_packets": "PortRcvPkts",
}

// buildFabric lays out the fabric as the nodes are now and renders its
// collection.
func (c *Cluster) buildFabric(elapsed time.Duration) (*simfabric.Fabric, simfabric.CollectionOptions, error) {
	leaves := (len(c.nodes) + c.o.HostsPerLeaf - 1) / c.o.HostsPerLeaf
	spec := simfabric.Spec{Spines: spines, Leaves: leaves, HostsPerLeaf: c.o.HostsPerLeaf, Uplinks: uplinks}
	counters := map[simfabric.PortName]map[string]uint64{}
	for i := range leaves * c.o.HostsPerLeaf {
		if i >= len(c.nodes) {
			// An empty slot on the last leaf: a host without HCAs.
			spec.Hosts = append(spec.Hosts, simfabric.Host{Name: fmt.Sprintf("spare%d", i)})
			continue
		}
		n := c.nodes[i].live.Node
		h := simfabric.Host{Name: c.nodes[i].host}
		for _, d := range hostPorts(n) {
			p := d.Ports[0]
			pn := simfabric.PortName{Node: d.NodeDesc, Port: 1}
			h.HCAs = append(h.HCAs, simfabric.HCA{Desc: d.NodeDesc, GUID: d.NodeGUID, LID: int(p.AssignedLID)})
			switch {
			case p.State != ib.StateActive:
				spec.Faults = append(spec.Faults, simfabric.Fault{Kind: simfabric.Missing, Ports: []simfabric.PortName{pn}})
				continue
			case p.Width < p.WidthMax:
				spec.Faults = append(spec.Faults, simfabric.Fault{Kind: simfabric.Narrow, Ports: []simfabric.PortName{pn}, Width: p.Width})
			}
			m := map[string]uint64{}
			for k, v := range p.Counters {
				if name, ok := pmaNames[k]; ok && v > 0 {
					m[name] = v
				}
			}
			counters[pn] = m
		}
		spec.Hosts = append(spec.Hosts, h)
	}
	// A leaf's uplinks are numbered after its host ports, as many as the
	// fullest leaf has.
	down := 0
	for l := range leaves {
		n := 0
		for _, h := range spec.Hosts[l*c.o.HostsPerLeaf : (l+1)*c.o.HostsPerLeaf] {
			n += len(h.HCAs)
		}
		down = max(down, n)
	}
	up := func(leaf string, k int) simfabric.PortName { return simfabric.PortName{Node: leaf, Port: down + k} }
	spec.Faults = append(spec.Faults, simfabric.Fault{Kind: simfabric.Narrow, Ports: []simfabric.PortName{up(narrowLeaf, 1)}})
	if leaves >= 3 {
		spec.Faults = append(spec.Faults, simfabric.Fault{Kind: simfabric.Missing, Ports: []simfabric.PortName{up(missingLeaf, uplinks*spines)}})
	}
	if leaves >= 2 && elapsed > 30*time.Second {
		counters[up(errorLeaf, 2)] = map[string]uint64{"SymbolErrorCounter": uint64((elapsed - 30*time.Second) / time.Second * 40)}
	}
	f, err := simfabric.Build(spec)
	if err != nil {
		return nil, simfabric.CollectionOptions{}, err
	}
	return f, simfabric.CollectionOptions{Taken: time.Now(), Speed: ib.SpeedNDR, Counters: counters}, nil
}

// writeFabric writes the fabric collection as the nodes are now, each
// file replaced atomically, and returns where each host is cabled.
func (c *Cluster) writeFabric(elapsed time.Duration) (map[string]string, error) {
	f, o, err := c.buildFabric(elapsed)
	if err != nil {
		return nil, err
	}
	raw, err := f.Collection(o)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(c.o.Dir, ".fabric-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := fabric.WriteDir(raw, tmp); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.FabricDir, 0o755); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(c.FabricDir, e.Name())); err != nil {
			return nil, err
		}
	}
	return f.HostLeaves(), nil
}
