package finding

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Threshold documents one configurable limit of a rule.
type Threshold struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Meaning string `json:"meaning"`
}

// Meta is the catalogue entry of a finding ID: what `ibdoctor rules` prints
// and what New fills into every finding of that ID.
type Meta struct {
	ID string `json:"id"`
	// Severity is the default; a rule may raise or lower it per finding
	// (for example a shortfall of the rate is a warning up to 20%).
	Severity   Severity    `json:"severity"`
	Title      string      `json:"title"`
	Meaning    string      `json:"meaning"`
	Thresholds []Threshold `json:"thresholds,omitempty"`
	Causes     []string    `json:"causes"`
	Remedy     []string    `json:"remedy"`
	// Area groups IDs for the catalogue: node, rdma, roce, pcie, host, nccl,
	// fabric, perf. Step is the runbook order used to rank doctor output.
	Area string `json:"area"`
	Step int    `json:"step"`
}

// Catalog is a set of finding IDs with their metadata.
type Catalog struct {
	metas []Meta
	index map[string]int
}

// NewCatalog builds a catalogue and panics on duplicate or malformed IDs;
// it is called once with literal data, so a panic is a programming error
// caught by every test.
func NewCatalog(metas ...[]Meta) *Catalog {
	c := &Catalog{index: map[string]int{}}
	for _, group := range metas {
		for _, m := range group {
			if _, dup := c.index[m.ID]; dup {
				panic("finding: duplicate ID " + m.ID)
			}
			if !strings.Contains(m.ID, ".") || m.Severity.Rank() == 0 || m.Title == "" {
				panic("finding: incomplete catalogue entry " + m.ID)
			}
			c.index[m.ID] = len(c.metas)
			c.metas = append(c.metas, m)
		}
	}
	return c
}

// All returns every entry sorted by ID.
func (c *Catalog) All() []Meta {
	out := slices.Clone(c.metas)
	slices.SortFunc(out, func(a, b Meta) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Lookup returns the entry of an ID.
func (c *Catalog) Lookup(id string) (Meta, bool) {
	i, ok := c.index[id]
	if !ok {
		return Meta{}, false
	}
	return c.metas[i], true
}

// Step returns the runbook step of an ID (for Sort), 99 when unknown.
func (c *Catalog) Step(id string) int {
	if m, ok := c.Lookup(id); ok {
		return m.Step
	}
	return 99
}

// New starts a finding of a catalogued ID with its default severity, causes
// and remedies; the caller sets subject, summary and evidence. Remedies are
// made runnable for the subject (see FillPlaceholders) and causes and
// remedies of the other link layer are dropped. An unknown ID panics: IDs
// are literals checked by tests.
func (c *Catalog) New(id string, subj Subject, summary string, ev ...Evidence) Finding {
	m, ok := c.Lookup(id)
	if !ok {
		panic(fmt.Sprintf("finding: ID %q is not in the catalogue", id))
	}
	return Finding{
		ID:       id,
		Severity: m.Severity,
		Subject:  subj,
		Summary:  summary,
		Evidence: append([]Evidence(nil), ev...),
		Causes:   ForLinkLayer(m.Causes, subj.LinkLayer),
		Remedy:   FillPlaceholders(m.Remedy, subj),
	}
}

// Fill recomputes f's remedies from the catalogue with values the subject
// does not hold, as placeholder/value pairs ("prio", "3"); rules call it
// when their evidence names such a value.
func (c *Catalog) Fill(f *Finding, kv ...string) {
	if m, ok := c.Lookup(f.ID); ok {
		f.Remedy = FillPlaceholders(m.Remedy, f.Subject, kv...)
	}
}

// Link-layer markers of causes and remedies.
const (
	markIB   = "IB: "
	markRoCE = "RoCE: "
)

// ForLinkLayer keeps the entries that apply to a link layer: an entry
// starting "IB: " only for InfiniBand, "RoCE: " only for Ethernet, with the
// marker removed; both kinds, marked, when the link layer is unknown.
func ForLinkLayer(list []string, linkLayer string) []string {
	out := make([]string, 0, len(list))
	for _, x := range list {
		switch {
		case strings.HasPrefix(x, markIB):
			if linkLayer == "Ethernet" {
				continue
			}
			if linkLayer == "InfiniBand" {
				x = strings.TrimPrefix(x, markIB)
			}
		case strings.HasPrefix(x, markRoCE):
			if linkLayer == "InfiniBand" {
				continue
			}
			if linkLayer == "Ethernet" {
				x = strings.TrimPrefix(x, markRoCE)
			}
		}
		out = append(out, x)
	}
	return out
}

// Placeholders are the values a remedy may name, with how an operator finds
// the value when the finding does not know it.
var Placeholders = map[string]string{
	"dev":       "the RDMA device, as ibstat -l lists it",
	"port":      "the port number on that device",
	"pci":       "the HCA's PCI address (lspci -D -d 15b3:)",
	"netdev":    "the port's network interface (ibdev2netdev, or ls /sys/class/infiniband/*/device/net)",
	"host":      "the node's host name",
	"gpu":       "the GPU index (nvidia-smi -L)",
	"lid":       "the port's LID (Base lid in ibstat; iblinkinfo lists every port's)",
	"guid":      "the node GUID (iblinkinfo or ibnetdiscover lists it)",
	"peer-lid":  "the LID of the switch at the other end of the cable (iblinkinfo shows it next to this port)",
	"peer-port": "the port number of the switch at the other end of the cable (iblinkinfo)",
	"prio":      "the RoCE priority that pauses (ethtool -S on the netdev: the rx_prioN_pause counters that rise)",
	"agent":     "the agent's host:port",
	"bridges":   "the PCIe switch ports between the GPU and its NIC (lspci -t -v shows the tree)",
	"nid":       "the LNet NID of the peer (lnetctl peer show lists them)",
	"ctrl":      "the NVMe controller (nvme list names them)",
}

// FillPlaceholders returns the remedies for a subject: entries of the other
// link layer dropped (see ForLinkLayer), <dev>, <port>, <pci>, <netdev>,
// <host>, <gpu>, <lid>, <guid>, <peer-lid> and <peer-port> replaced by the
// subject's values, other values from kv (placeholder/value pairs without
// the angle brackets). A value that stays unknown is written as a
// metavariable (<lid> → LID) followed by how to find it, so no remedy
// prints a <placeholder> for the shell to read as a redirection.
func FillPlaceholders(remedy []string, s Subject, kv ...string) []string {
	vals := map[string]string{}
	add := func(k, v string) {
		if v != "" {
			vals[k] = v
		}
	}
	add("dev", s.Device)
	if s.Port > 0 {
		add("port", strconv.Itoa(s.Port))
	}
	add("pci", s.PCI)
	add("netdev", s.NetDev)
	add("host", s.Host)
	add("gpu", s.GPU)
	if s.LID > 0 {
		add("lid", strconv.FormatUint(uint64(s.LID), 10))
	}
	add("guid", s.NodeGUID)
	if p := s.Peer; p != nil {
		if p.LID > 0 {
			add("peer-lid", strconv.FormatUint(uint64(p.LID), 10))
		}
		if p.Port > 0 {
			add("peer-port", strconv.Itoa(p.Port))
		}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		add(kv[i], kv[i+1])
	}
	list := ForLinkLayer(remedy, s.LinkLayer)
	for i, x := range list {
		list[i] = fill(x, vals)
	}
	return list
}

// fill replaces the <name> placeholders of one remedy.
func fill(x string, vals map[string]string) string {
	var b strings.Builder
	var unknown []string
	for {
		i := strings.IndexByte(x, '<')
		if i < 0 {
			b.WriteString(x)
			break
		}
		j := strings.IndexByte(x[i:], '>')
		if j < 0 {
			b.WriteString(x)
			break
		}
		name := x[i+1 : i+j]
		how, known := Placeholders[name]
		b.WriteString(x[:i])
		switch v, ok := vals[name]; {
		case ok:
			b.WriteString(v)
		case known:
			meta := metavar(name)
			b.WriteString(meta)
			if !slices.Contains(unknown, meta) {
				unknown = append(unknown, meta)
				unknown = append(unknown, how)
			}
		default:
			b.WriteString(x[i : i+j+1])
		}
		x = x[i+j+1:]
	}
	for i := 0; i < len(unknown); i += 2 {
		sep := "; "
		if i == 0 {
			sep = " — "
		}
		b.WriteString(sep + unknown[i] + ": " + unknown[i+1])
	}
	return b.String()
}

// metavar renders a placeholder name as the metavariable a man page uses:
// "peer-lid" → "PEER_LID".
func metavar(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}
