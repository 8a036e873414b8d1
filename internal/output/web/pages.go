package web

import (
	"cmp"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// count is one health's number of nodes.
type count struct {
	H Health
	N int
}

type fleetView struct {
	Fleet  Fleet
	Rows   []NodeRow
	Counts []count
	// The filter as asked.
	ID, Group, Health string
	Healths           []Health
	Total             int
	// Map is the tile view (?view=map); Grid is the rows or the tiles.
	Map  bool
	Grid template.HTML
	// TableURL and MapURL are this page's filter in either view.
	TableURL, MapURL string
}

func (s *server) fleet(w http.ResponseWriter, r *http.Request) {
	f, err := s.d.Fleet(r.Context())
	if err != nil {
		s.fail(w, r, "fleet", err)
		return
	}
	q := r.URL.Query()
	v := fleetView{Fleet: f, ID: q.Get("id"), Group: q.Get("group"), Health: q.Get("health"),
		Healths: healthOrder, Total: len(f.Nodes)}
	counts := f.Counts
	if len(counts) == 0 {
		counts = map[Health]int{}
		for _, n := range f.Nodes {
			counts[norm(n.Health)]++
		}
	}
	for _, h := range healthOrder {
		if counts[h] > 0 || h == OK || h == Warning || h == Critical {
			v.Counts = append(v.Counts, count{h, counts[h]})
		}
	}
	for _, n := range f.Nodes {
		if v.ID != "" && !slices.Contains(n.FindingIDs, v.ID) ||
			v.Group != "" && n.Group != v.Group ||
			v.Health != "" && string(norm(n.Health)) != v.Health {
			continue
		}
		v.Rows = append(v.Rows, n)
	}
	slices.SortStableFunc(v.Rows, func(a, b NodeRow) int {
		if c := cmp.Compare(look(b.Health).Rank, look(a.Health).Rank); c != 0 {
			return c
		}
		return strings.Compare(a.Host, b.Host)
	})
	v.Map = q.Get("view") == "map"
	v.TableURL, v.MapURL = fleetURL(q, ""), fleetURL(q, "map")
	if v.Map {
		v.Grid = fleetMap(v.Rows)
	} else {
		v.Grid = fleetRows(v.Rows)
	}
	s.render(w, r, "fleet", "Fleet", "fleet", true, v)
}

// fleetURL is the fleet page with the query q in the view given.
func fleetURL(q url.Values, view string) string {
	q2 := url.Values{}
	for _, k := range []string{"id", "group", "health", "wall"} {
		if v := q.Get(k); v != "" {
			q2.Set(k, v)
		}
	}
	if view != "" {
		q2.Set("view", view)
	}
	if len(q2) == 0 {
		return "/"
	}
	return "/?" + q2.Encode()
}

// findingItem is a finding on the node page with its anchor.
type findingItem struct {
	FindingView
	Anchor  string
	Subject string
	For     time.Duration
}

type nodeView struct {
	Node     Node
	Findings []findingItem
	Open     int
	Charts   []template.HTML
}

func (s *server) node(w http.ResponseWriter, r *http.Request) {
	host := r.PathValue("host")
	n, err := s.d.Node(r.Context(), host)
	if err != nil {
		s.fail(w, r, "node "+host, err)
		return
	}
	now := s.o.Now()
	v := nodeView{Node: n}
	fs := slices.Clone(n.Findings)
	// Open before closed, then the worst first, then the oldest.
	slices.SortStableFunc(fs, func(a, b FindingView) int {
		if c := cmp.Compare(boolInt(!a.Closed.IsZero()), boolInt(!b.Closed.IsZero())); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Severity.Rank(), a.Severity.Rank()); c != 0 {
			return c
		}
		return a.Opened.Compare(b.Opened)
	})
	seen := map[string]int{}
	for _, f := range fs {
		end := f.Closed
		if end.IsZero() {
			end = now
			v.Open++
		}
		v.Findings = append(v.Findings, findingItem{FindingView: f, Anchor: findingAnchor(f.ID, seen[f.ID]),
			Subject: SubjectText(f.Subject), For: end.Sub(f.Opened)})
		seen[f.ID]++
	}
	for _, sr := range n.Series {
		v.Charts = append(v.Charts, lineChart(sr))
	}
	s.render(w, r, "node", n.Host, "", false, v)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SubjectText names what a finding is about in a few words
// ("mlx5_0, port 1, netdev ib0").
func SubjectText(s finding.Subject) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+v)
		}
	}
	add("", s.Device)
	if s.Port > 0 {
		add("port ", strconv.Itoa(s.Port))
	}
	add("netdev ", s.NetDev)
	add("PCI ", s.PCI)
	add("GPU ", s.GPU)
	if s.Device == "" {
		add("", s.NodeDesc)
		add("GUID ", s.NodeGUID)
	}
	add("rank ", s.Rank)
	add("file ", s.File)
	if p := s.Peer; p != nil {
		peer := SubjectText(*p)
		if peer == "" && p.LID > 0 {
			peer = "LID " + strconv.FormatUint(uint64(p.LID), 10)
		}
		add("peer ", peer)
	}
	return strings.Join(parts, ", ")
}

type fabricView struct {
	Fabric Fabric
	SVG    template.HTML
	// Load is true when the links are coloured by route load.
	Load, HasLoad bool
	// Troubled are the links that are not plainly healthy.
	Troubled []Link
	Leaves   []leafSummary
	Switches int
	Bands    []loadLegend
}

type leafSummary struct {
	Switch
	Worst  Health
	Counts []count
}

func (s *server) fabric(w http.ResponseWriter, r *http.Request) {
	f, err := s.d.Fabric(r.Context())
	if err != nil {
		s.fail(w, r, "fabric", err)
		return
	}
	v := fabricView{Fabric: f, Load: r.URL.Query().Get("color") == "load"}
	for _, l := range f.Links {
		if l.LoadAB > 0 || l.LoadBA > 0 {
			v.HasLoad = true
		}
		if norm(l.Health) != OK || l.Degraded || l.ErrorRate > 0 {
			v.Troubled = append(v.Troubled, l)
		}
	}
	slices.SortStableFunc(v.Troubled, func(a, b Link) int {
		if c := cmp.Compare(look(b.Health).Rank, look(a.Health).Rank); c != 0 {
			return c
		}
		if c := cmp.Compare(b.ErrorRate, a.ErrorRate); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for i, t := range f.Tiers {
		v.Switches += len(t)
		if i == 0 {
			for _, sw := range t {
				v.Leaves = append(v.Leaves, summarise(sw))
			}
		}
	}
	v.Load = v.Load && v.HasLoad
	if v.Load {
		top := 0
		for _, l := range f.Links {
			top = max(top, l.LoadAB, l.LoadBA)
		}
		v.Bands = loadBands(top)
	}
	v.SVG = fabricSVG(f, v.Load)
	s.render(w, r, "fabric", "Fabric", "fabric", true, v)
}

// summarise counts a leaf's hosts per health.
func summarise(sw Switch) leafSummary {
	ls := leafSummary{Switch: sw, Worst: OK}
	if len(sw.Hosts) == 0 {
		ls.Worst = Unknown
	}
	n := map[Health]int{}
	for _, h := range sw.Hosts {
		n[norm(h.Health)]++
		ls.Worst = Worst(ls.Worst, h.Health)
	}
	for _, h := range healthOrder {
		if n[h] > 0 {
			ls.Counts = append(ls.Counts, count{h, n[h]})
		}
	}
	return ls
}

// counterRow is one counter with both ends' values.
type counterRow struct {
	Name string
	A, B string
}

type linkView struct {
	Link     Link
	Counters []counterRow
}

func (s *server) link(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f, err := s.d.Fabric(r.Context())
	if err != nil {
		s.fail(w, r, "fabric", err)
		return
	}
	i := slices.IndexFunc(f.Links, func(l Link) bool { return l.ID == id })
	if i < 0 {
		s.fail(w, r, "link "+id, ErrNotFound)
		return
	}
	l := f.Links[i]
	v := linkView{Link: l}
	names := map[string]bool{}
	for k := range l.A.Counters {
		names[k] = true
	}
	for k := range l.B.Counters {
		names[k] = true
	}
	val := func(m map[string]uint64, k string) string {
		if x, ok := m[k]; ok {
			return strconv.FormatUint(x, 10)
		}
		return "—"
	}
	for _, k := range sortedKeys(names) {
		v.Counters = append(v.Counters, counterRow{k, val(l.A.Counters, k), val(l.B.Counters, k)})
	}
	s.render(w, r, "link", "Link "+l.A.Name+" port "+strconv.Itoa(l.A.Port)+" – "+l.B.Name+" port "+strconv.Itoa(l.B.Port), "fabric", false, v)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// hostItem is a host port on a leaf's page; Known says the node has a
// page.
type hostItem struct {
	HostLink
	Known bool
}

type leafView struct {
	Switch leafSummary
	Tier   int
	Links  []Link
	Hosts  []hostItem
}

func (s *server) leaf(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f, err := s.d.Fabric(r.Context())
	if err != nil {
		s.fail(w, r, "fabric", err)
		return
	}
	v := leafView{Tier: -1}
	for t, tier := range f.Tiers {
		for _, sw := range tier {
			if sw.ID == id {
				v.Switch, v.Tier = summarise(sw), t+1
			}
		}
	}
	if v.Tier < 0 {
		s.fail(w, r, "switch "+id, ErrNotFound)
		return
	}
	for _, l := range f.Links {
		if l.A.ID == id || l.B.ID == id {
			v.Links = append(v.Links, l)
		}
	}
	known := s.knownHosts(r.Context())
	for _, h := range v.Switch.Hosts {
		v.Hosts = append(v.Hosts, hostItem{h, known[h.Host]})
	}
	slices.SortStableFunc(v.Hosts, func(a, b hostItem) int {
		if c := cmp.Compare(look(b.Health).Rank, look(a.Health).Rank); c != 0 {
			return c
		}
		return strings.Compare(a.Host, b.Host)
	})
	name := v.Switch.Name
	if name == "" {
		name = id
	}
	s.render(w, r, "leaf", "Switch "+name, "fabric", false, v)
}

// knownHosts are the hosts with a node page; a host the fabric shows but
// the fleet does not have is written without a link.
func (s *server) knownHosts(ctx context.Context) map[string]bool {
	out := map[string]bool{}
	f, err := s.d.Fleet(ctx)
	if err != nil {
		return out
	}
	for _, n := range f.Nodes {
		out[n.Host] = true
	}
	return out
}

func (s *server) perfRuns(w http.ResponseWriter, r *http.Request) {
	runs, err := s.d.PerfRuns(r.Context())
	if err != nil {
		s.fail(w, r, "perf runs", err)
		return
	}
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b PerfRunRef) int { return b.Started.Compare(a.Started) })
	s.render(w, r, "perf", "Pairwise bandwidth", "perf", true, runs)
}

// heatCell is one matrix cell: its text and health.
type heatCell struct {
	Text   string
	Title  string
	Health Health
	Self   bool
}

type heatRow struct {
	Host    string
	Known   bool
	Culprit bool
	Cells   []heatCell
}

type runView struct {
	Run      PerfRun
	Ref      float64
	Rows     []heatRow
	Culprits []hostItem
	Measured int
	Slow     int
}

func (s *server) perfRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	run, err := s.d.PerfRun(r.Context(), id)
	if err != nil {
		s.fail(w, r, "perf run "+id, err)
		return
	}
	known := s.knownHosts(r.Context())
	v := runView{Run: run, Ref: run.Expected}
	if v.Ref <= 0 {
		for _, row := range run.Gbps {
			for _, x := range row {
				v.Ref = max(v.Ref, x)
			}
		}
	}
	for i, h := range run.Hosts {
		row := heatRow{Host: h, Known: known[h], Culprit: slices.Contains(run.Culprits, h)}
		for j, to := range run.Hosts {
			c := heatCell{Text: "—", Health: Unknown, Title: h + " → " + to + ": not measured"}
			switch {
			case i == j:
				c = heatCell{Text: "·", Health: Unknown, Self: true, Title: h + " to itself"}
			case i < len(run.Gbps) && j < len(run.Gbps[i]) && run.Gbps[i][j] >= 0:
				x := run.Gbps[i][j]
				c.Health = bandHealth(x, v.Ref)
				// A slow pair carries its icon too, not only its colour.
				c.Text = strconv.FormatFloat(x, 'f', 0, 64)
				if c.Health != OK {
					c.Text = look(c.Health).Icon + " " + c.Text
				}
				c.Title = fmt.Sprintf("%s → %s: %.1f Gb/s (%s)", h, to, x, look(c.Health).Word)
				v.Measured++
				if c.Health != OK {
					v.Slow++
				}
			}
			row.Cells = append(row.Cells, c)
		}
		v.Rows = append(v.Rows, row)
	}
	for _, c := range run.Culprits {
		v.Culprits = append(v.Culprits, hostItem{HostLink{Host: c, Health: Critical}, known[c]})
	}
	s.render(w, r, "run", "Run "+run.ID, "perf", false, v)
}

// bandHealth judges a measured bandwidth against the reference: at least
// 90% ok, at least 70% warning, below that critical.
func bandHealth(x, ref float64) Health {
	switch {
	case ref <= 0:
		return Unknown
	case x >= 0.9*ref:
		return OK
	case x >= 0.7*ref:
		return Warning
	}
	return Critical
}

type timelineView struct {
	TL     Timeline
	Since  string
	Host   string
	SVG    template.HTML
	Open   int
	Spans  []string
	Events []Event
	Known  map[string]bool
}

// sinceChoices are the windows the timeline form offers.
var sinceChoices = []string{"1h", "6h", "24h", "7d", "30d"}

func (s *server) timeline(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	now := s.o.Now()
	sinceArg := q.Get("since")
	if sinceArg == "" {
		sinceArg = "24h"
	}
	since, err := parseSince(sinceArg, now)
	if err != nil {
		plain(w, http.StatusBadRequest, err.Error())
		return
	}
	host := q.Get("host")
	tl, err := s.d.Timeline(r.Context(), since, host)
	if err != nil {
		s.fail(w, r, "timeline", err)
		return
	}
	if tl.Since.IsZero() {
		tl.Since = since
	}
	if tl.Until.IsZero() {
		tl.Until = now
	}
	v := timelineView{TL: tl, Since: sinceArg, Host: host, Spans: sinceChoices, Known: s.knownHosts(r.Context())}
	v.Events = slices.Clone(tl.Events)
	slices.SortStableFunc(v.Events, func(a, b Event) int {
		if c := strings.Compare(a.Host, b.Host); c != 0 {
			return c
		}
		if c := a.Opened.Compare(b.Opened); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, e := range v.Events {
		if e.Closed.IsZero() {
			v.Open++
		}
	}
	title, summary := "Timeline", "whole fleet"
	if host != "" {
		title, summary = title+" of "+host, "all of "+host
	}
	v.SVG = timelineSVG(tl, v.Events, summary)
	s.render(w, r, "timeline", title, "timeline", true, v)
}

// parseSince reads the timeline's window: a duration back from now
// ("90m", "24h", "7d") or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err == nil && n > 0 && n <= 3660 {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("since=%q: want a duration back from now (90m, 24h, 7d) or an RFC 3339 time", s)
}
