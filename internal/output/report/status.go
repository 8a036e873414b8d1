package report

import (
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// PortStatus is one row of `ibdoctor status`: the port with what an
// operator reads from ibstat + ibstatus + lspci, and its verdict.
type PortStatus struct {
	Device    string        `json:"device"`
	Port      int           `json:"port"`
	LinkLayer ib.LinkLayer  `json:"link_layer"`
	State     *ib.PortState `json:"state"`
	PhysState *ib.PhysState `json:"phys_state"`
	// Rate is null when unreadable, and on a port that is not ACTIVE,
	// whose rate file holds a placeholder.
	Rate     *ib.Rate `json:"rate"`
	RateGbps *float64 `json:"rate_gbps"`
	RateText string   `json:"rate_text"`
	LID      *uint32  `json:"lid,omitempty"`
	SMLID    *uint32  `json:"sm_lid,omitempty"`
	NetDev   string   `json:"netdev,omitempty"`
	// NodeGUID is the HCA's node_guid and PortGUID the port's GUID (the
	// interface ID of GID index 0, as libibumad reads it), both as
	// ib.GUIDString, the form ibnetdiscover prints.
	NodeGUID string `json:"node_guid,omitempty"`
	PortGUID string `json:"port_guid,omitempty"`
	// Peer is the switch port at the other end of the cable, where fabric
	// data names this port (SetPeers).
	Peer *PortPeer `json:"peer,omitempty"`
	// RoCEv2GID is the first RoCE v2 GID of an Ethernet port.
	RoCEv2GID string `json:"rocev2_gid,omitempty"`
	FWVersion string `json:"fw_ver,omitempty"`
	HCAType   string `json:"hca_type,omitempty"`
	PCI       string `json:"pci,omitempty"`
	PCIeLink  string `json:"pcie_link,omitempty"`
	NUMANode  *int   `json:"numa_node,omitempty"`
	// ErrorCounters are the non-zero error counters (counters/ and
	// hw_counters/) since the last reset.
	ErrorCounters map[string]uint64 `json:"error_counters,omitempty"`
	Verdict       string            `json:"verdict"`
	FindingIDs    []string          `json:"findings"`
}

// Status is the JSON document of `ibdoctor status`.
type Status struct {
	Host     string            `json:"host"`
	Taken    string            `json:"taken"`
	Verdict  string            `json:"verdict"`
	Ports    []PortStatus      `json:"ports"`
	Findings []finding.Finding `json:"findings"`
	Gaps     []snapshot.Gap    `json:"gaps"`
}

// NewStatus joins a snapshot with its findings into rows. A finding about a
// whole device (firmware, PCIe) counts for each of its ports.
func NewStatus(s *snapshot.Snapshot, fs []finding.Finding) Status {
	doc := NewDocument(s.Host, fs, s.Gaps)
	st := Status{Host: s.Host, Taken: s.Taken.UTC().Format("2006-01-02T15:04:05Z"), Verdict: doc.Verdict, Findings: doc.Findings, Gaps: doc.Gaps, Ports: []PortStatus{}}
	for i := range s.Devices {
		d := &s.Devices[i]
		pci := s.PCIDevice(d.PCI)
		for j := range d.Ports {
			p := &d.Ports[j]
			row := PortStatus{
				Device: d.Name, Port: p.Number, LinkLayer: p.LinkLayer, State: p.State, PhysState: p.PhysState,
				LID: p.LID, SMLID: p.SMLID, NetDev: p.NetDev, FWVersion: d.FWVersion, HCAType: d.HCAType, PCI: string(d.PCI),
			}
			row.NodeGUID, _ = ib.NormalizeGUID(d.NodeGUID)
			row.PortGUID = portGUID(p)
			if p.LinkLayer == ib.LinkLayerEthernet {
				row.LID, row.SMLID = nil, nil
				row.RoCEv2GID = roceV2GID(p.GIDs)
			}
			row.Rate = p.Rate
			row.RateText = "?"
			if p.Rate != nil {
				g := p.Rate.Gbps()
				row.RateGbps = &g
				row.RateText = p.Rate.String()
				if !p.IsActive() {
					// A port that is not ACTIVE reports a placeholder
					// (RoCE "40 Gb/sec (4X QDR)", IB "10 Gb/sec (4X SDR)").
					row.Rate, row.RateGbps, row.RateText = nil, nil, "-"
				}
			}
			if pci != nil {
				row.PCIeLink = pcieLink(pci)
				row.NUMANode = pci.NUMANode
			}
			for _, c := range p.Counters {
				if c.Spec.Kind == ib.KindError && c.Value > 0 {
					if row.ErrorCounters == nil {
						row.ErrorCounters = map[string]uint64{}
					}
					row.ErrorCounters[c.Name] = c.Value
				}
			}
			for _, c := range p.HWCounters {
				if c.Spec.Kind == ib.KindError && c.Value > 0 {
					if row.ErrorCounters == nil {
						row.ErrorCounters = map[string]uint64{}
					}
					row.ErrorCounters[c.Name] = c.Value
				}
			}
			var worst finding.Severity
			row.FindingIDs = []string{}
			for _, f := range fs {
				if f.Subject.Device != d.Name || (f.Subject.Port != 0 && f.Subject.Port != p.Number) {
					continue
				}
				if !slices.Contains(row.FindingIDs, f.ID) {
					row.FindingIDs = append(row.FindingIDs, f.ID)
				}
				if f.Severity.Rank() > worst.Rank() {
					worst = f.Severity
				}
			}
			row.Verdict = "ok"
			if worst != "" {
				row.Verdict = string(worst)
			} else if p.State == nil {
				// A port whose state could not be read was not judged.
				row.Verdict = "unknown"
			}
			st.Ports = append(st.Ports, row)
		}
	}
	return st
}

// PortPeer is the other end of a port's cable as the fabric tools saw it.
type PortPeer struct {
	// Node is the peer's node description ("leaf2"), NodeGUID its node
	// GUID, Port its port number, LID its LID (a switch's port 0) when
	// known.
	Node     string `json:"node"`
	NodeGUID string `json:"node_guid,omitempty"`
	Port     int    `json:"port"`
	LID      int    `json:"lid,omitempty"`
	// Source is the file the link was read from.
	Source string `json:"source"`
}

// String renders a peer as ibnetdiscover names a port: leaf2[2].
func (p PortPeer) String() string {
	name := p.Node
	if name == "" {
		name = p.NodeGUID
	}
	return name + "[" + strconv.Itoa(p.Port) + "]"
}

// PeerKey is the key SetPeers looks peers up by: the port GUID, which the
// fabric tools print for CA ports.
func PeerKey(portGUID uint64) string { return ib.GUIDString(portGUID) }

// SetPeers fills each row's Peer from peers, keyed by PeerKey.
func (st *Status) SetPeers(peers map[string]PortPeer) {
	for i := range st.Ports {
		r := &st.Ports[i]
		if p, ok := peers[r.PortGUID]; ok && r.PortGUID != "" {
			r.Peer = &p
		}
	}
}

// portGUID is the port GUID: the low 64 bits of GID index 0 (the default
// GID is the subnet prefix followed by the port GUID, IBTA 4.1.1), which is
// what libibumad's umad_get_port reports; "" when index 0 is unreadable.
func portGUID(p *snapshot.Port) string {
	for _, g := range p.GIDs {
		if g.Index == 0 {
			var v uint64
			for _, b := range g.GID[8:] {
				v = v<<8 | uint64(b)
			}
			return ib.GUIDString(v)
		}
	}
	return ""
}

// roceV2GID picks the RoCE v2 GID an operator looks for: the first
// IPv4-mapped one (shown as the IPv4 address), else the first routable
// one, else the link-local one, in compressed IPv6 form.
func roceV2GID(gids []snapshot.GIDEntry) string {
	var routable, local string
	for _, g := range gids {
		if g.Type != ib.GIDTypeRoCEv2 {
			continue
		}
		if v4, ok := g.GID.IPv4(); ok {
			return v4.String()
		}
		a := netip.AddrFrom16(g.GID)
		switch {
		case g.GID.IsLinkLocal():
			if local == "" {
				local = a.String()
			}
		case routable == "":
			routable = a.String()
		}
	}
	if routable != "" {
		return routable
	}
	return local
}

func pcieLink(p *snapshot.PCIDevice) string {
	part := func(sp fmt.Stringer, ok bool, w *int) string {
		s := "?"
		if ok {
			s = sp.String()
		}
		if w != nil {
			s += " x" + strconv.Itoa(*w)
		}
		return s
	}
	cur := "?"
	if p.CurrentLinkSpeed != nil {
		cur = part(shortSpeed(p.CurrentLinkSpeed.Short()), true, p.CurrentLinkWidth)
	} else if p.CurrentLinkWidth != nil {
		cur = part(nil, false, p.CurrentLinkWidth)
	}
	mx := "?"
	if p.MaxLinkSpeed != nil {
		mx = part(shortSpeed(p.MaxLinkSpeed.Short()), true, p.MaxLinkWidth)
	} else if p.MaxLinkWidth != nil {
		mx = part(nil, false, p.MaxLinkWidth)
	}
	return cur + " / " + mx
}

type shortSpeed string

func (s shortSpeed) String() string { return string(s) }

// StatusTable writes the status rows as an aligned table.
func StatusTable(w io.Writer, sty Style, st Status) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// The ERRORS column appears only when some port has a non-zero error
	// counter, to keep the table within a terminal's width.
	withErrs := slices.ContainsFunc(st.Ports, func(r PortStatus) bool { return len(r.ErrorCounters) > 0 })
	// PEER appears only when fabric data named some port's peer.
	withPeer := slices.ContainsFunc(st.Ports, func(r PortStatus) bool { return r.Peer != nil })
	head := "DEVICE\tPORT\tLINK\tSTATE\tPHYS\tRATE\tLID/SM\tPORT GUID\tNETDEV/GID\tFW\tPCIe\tNUMA\t"
	if withPeer {
		head += "PEER\t"
	}
	if withErrs {
		head += "ERRORS\t"
	}
	fmt.Fprintln(tw, head+"VERDICT")
	for _, r := range st.Ports {
		lid := "-"
		if r.LID != nil {
			lid = fmt.Sprintf("0x%x", *r.LID)
			if r.SMLID != nil {
				lid += fmt.Sprintf("/0x%x", *r.SMLID)
			}
		}
		nd := "-"
		if r.NetDev != "" || r.RoCEv2GID != "" {
			nd = strings.Trim(r.NetDev+" "+r.RoCEv2GID, " ")
		}
		numa := "-"
		if r.NUMANode != nil && *r.NUMANode >= 0 {
			numa = strconv.Itoa(*r.NUMANode)
		}
		errs := "-"
		if len(r.ErrorCounters) > 0 {
			keys := make([]string, 0, len(r.ErrorCounters))
			for k := range r.ErrorCounters {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s=%d", k, r.ErrorCounters[k]))
			}
			errs = strings.Join(parts, ",")
		}
		verdict := sty.Green("ok")
		if r.Verdict != "ok" {
			verdict = sty.Severity(finding.Severity(r.Verdict), r.Verdict) + " " + strings.Join(r.FindingIDs, ",")
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t",
			r.Device, r.Port, r.LinkLayer.Short(), strOr(r.State), strOr(r.PhysState), r.RateText, lid, orDash(r.PortGUID), nd,
			orDash(r.FWVersion), compactLink(r.PCIeLink), numa)
		if withPeer {
			peer := "-"
			if r.Peer != nil {
				peer = r.Peer.String()
			}
			fmt.Fprintf(tw, "%s\t", peer)
		}
		if withErrs {
			fmt.Fprintf(tw, "%s\t", errs)
		}
		fmt.Fprintf(tw, "%s\n", verdict)
	}
	return tw.Flush()
}

// compactLink shows "Gen5 x16" when the link runs at its maximum and
// "Gen5 x8 (max Gen5 x16)" otherwise.
func compactLink(link string) string {
	cur, mx, ok := strings.Cut(link, " / ")
	switch {
	case link == "":
		return "-"
	case !ok || cur == mx:
		return cur
	}
	return cur + " (max " + mx + ")"
}

func strOr[T fmt.Stringer](p *T) string {
	if p == nil {
		return "?"
	}
	return (*p).String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
