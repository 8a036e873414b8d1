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
// and remedies; the caller sets subject, summary and evidence. Placeholders
// in the remedies (<dev>, <port>, <pci>, <netdev>, <host>) are filled from
// the subject where it names them, so the next command can be pasted. An
// unknown ID panics: IDs are literals checked by tests.
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
		Causes:   slices.Clone(m.Causes),
		Remedy:   FillPlaceholders(m.Remedy, subj),
	}
}

// FillPlaceholders returns the remedies with <dev>, <port>, <pci>, <netdev>
// and <host> replaced by the subject's values where it has them.
func FillPlaceholders(remedy []string, s Subject) []string {
	var pairs []string
	add := func(k, v string) {
		if v != "" {
			pairs = append(pairs, k, v)
		}
	}
	add("<dev>", s.Device)
	if s.Port > 0 {
		add("<port>", strconv.Itoa(s.Port))
	}
	add("<pci>", s.PCI)
	add("<netdev>", s.NetDev)
	add("<host>", s.Host)
	if len(pairs) == 0 {
		return slices.Clone(remedy)
	}
	r := strings.NewReplacer(pairs...)
	out := make([]string, len(remedy))
	for i, x := range remedy {
		out[i] = r.Replace(x)
	}
	return out
}
