package job

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
)

// HostOf is the host a CA belongs to by its node description: the first
// word ("gpu017 mlx5_0" → "gpu017", "gpu017 HCA-1" → "gpu017"), as
// OpenSM and the mlx5 driver write it (hostname, then the device).
func HostOf(desc string) string {
	f := strings.Fields(desc)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// Place maps host names to their HCA ports in the fabric: every CA whose
// description names the host (see HostOf), or, for hosts in hcaMap, the
// CAs listed there (by description, GUID or LID). A CA gives one rail: its
// first cabled port with a LID. Rails are in the order of the CAs'
// descriptions, so "mlx5_0" is rail 0 on every host. Hosts found nowhere
// are returned in missing.
func Place(g *routing.Graph, names []string, hcaMap map[string][]string) (hosts []Host, missing []string) {
	f := g.Subnet()
	byHost := map[string][]int{}
	for i := range f.Nodes {
		if f.Nodes[i].Type == routing.CA {
			h := HostOf(f.Nodes[i].Desc)
			byHost[h] = append(byHost[h], i)
		}
	}
	for _, name := range names {
		cas := byHost[name]
		if spec, ok := hcaMap[name]; ok {
			cas = nil
			for _, s := range spec {
				if i, ok := findCA(g, s); ok {
					cas = append(cas, i)
				}
			}
		}
		slices.SortFunc(cas, func(a, b int) int { return cmp.Compare(f.Nodes[a].Desc, f.Nodes[b].Desc) })
		h := Host{Name: name}
		for _, ca := range cas {
			if r, ok := rail(g, ca); ok {
				h.Rails = append(h.Rails, r)
			}
		}
		if len(h.Rails) == 0 {
			missing = append(missing, name)
			continue
		}
		hosts = append(hosts, h)
	}
	return hosts, missing
}

// findCA finds a CA by description, GUID (0x…) or LID.
func findCA(g *routing.Graph, s string) (int, bool) {
	f := g.Subnet()
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		if v > 0 && v <= 0xffff && !strings.HasPrefix(s, "0x") {
			if o, ok := g.Owner(uint16(v)); ok && f.Nodes[o.Node].Type == routing.CA {
				return o.Node, true
			}
		}
		for i := range f.Nodes {
			if f.Nodes[i].Type == routing.CA && f.Nodes[i].GUID == v {
				return i, true
			}
		}
	}
	for i := range f.Nodes {
		if f.Nodes[i].Type == routing.CA && f.Nodes[i].Desc == s {
			return i, true
		}
	}
	return 0, false
}

// rail is a CA's first cabled port with a LID.
func rail(g *routing.Graph, ca int) (Rail, bool) {
	n := &g.Subnet().Nodes[ca]
	for p := 1; p < len(n.Ports); p++ {
		if n.Ports[p].LID == 0 {
			continue
		}
		if _, ok := g.Peer(routing.PortRef{Node: ca, Port: p}); ok {
			return Rail{Node: ca, Port: p, LID: n.Ports[p].LID, Name: n.Name()}, true
		}
	}
	return Rail{}, false
}

// ParseHCAMap reads a host → HCA map: one host per line followed by its
// CAs (descriptions in double quotes, GUIDs or LIDs), '#' comments.
//
//	gpu017 "gpu017 mlx5_0" "gpu017 mlx5_1"
//	gpu018 0x0002c90300a1b2c3 0x0002c90300a1b2c4
func ParseHCAMap(text, source string) (map[string][]string, error) {
	out := map[string][]string{}
	for n, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f, err := fields(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", source, n+1, err)
		}
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("%s line %d: %q names no HCA (want: host HCA...)", source, n+1, strings.TrimSpace(line))
		}
		out[f[0]] = append(out[f[0]], f[1:]...)
	}
	return out, nil
}

// fields splits at blanks, keeping double-quoted words whole.
func fields(s string) ([]string, error) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("unterminated quote")
			}
			out = append(out, s[1:end+1])
			s = s[end+2:]
			continue
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out, nil
}

// DefaultCongested is the predicted fraction below which a placement is
// reported as congested: a ring whose slowest flow shares a link with one
// other flow runs at half speed.
const DefaultCongested = 0.75

// Check turns a prediction into findings: fabric.job_congested when the
// predicted fraction is below congested (0: DefaultCongested), with the
// hot links and, when given, the proposal's fraction as the remedy's
// figure; fabric.route_missing for flows whose route breaks.
func Check(r *Result, proposed *Result, congested float64) []finding.Finding {
	if congested <= 0 {
		congested = DefaultCongested
	}
	var out []finding.Finding
	if len(r.Broken) > 0 {
		f := finding.Finding{
			ID: "fabric.route_missing", Severity: finding.Critical,
			Summary: fmt.Sprintf("%d of the job's %d flows have no route in the forwarding tables", len(r.Broken), r.Flows),
		}
		for _, b := range r.Broken[:min(len(r.Broken), 10)] {
			f.Evidence = append(f.Evidence, finding.Evidence{Source: "forwarding tables", Value: b})
		}
		out = append(out, f)
	}
	if r.Fraction < congested {
		cause := fmt.Sprintf("up to %d flows share one link on the static routes", r.MaxLoad)
		if len(r.Hot) > 0 && r.Hot[0].Degraded != "" {
			cause = fmt.Sprintf("its most constrained link, %s → %s, is degraded (%s)", r.Hot[0].From, r.Hot[0].To, r.Hot[0].Degraded)
		}
		f := finding.Finding{
			ID: "fabric.job_congested", Severity: finding.Warning,
			Summary: fmt.Sprintf("the %s of %d hosts is predicted to reach %.0f%% of a contention-free fabric: %s",
				r.Pattern, len(r.Hosts), 100*r.Fraction, cause),
		}
		f.Evidence = append(f.Evidence, finding.Evidence{Source: "slowest flow", Value: r.Slowest})
		for _, h := range r.Hot[:min(len(r.Hot), 5)] {
			v := fmt.Sprintf("%d flows at %.0f%% of the fabric's rate each (hosts %s)", h.Flows, 100*h.Share, strings.Join(h.Hosts, ","))
			if h.Degraded != "" {
				v += "; degraded: " + h.Degraded
			}
			f.Evidence = append(f.Evidence, finding.Evidence{Source: h.From + " → " + h.To, Value: v})
		}
		if proposed != nil && proposed.Fraction > r.Fraction {
			f.Remedy = append(f.Remedy, fmt.Sprintf("run the job in the proposed host order, written by ibdoctor fabric job --out-hostfile better.txt: predicted %.0f%%", 100*proposed.Fraction))
		}
		if r.Relief != nil {
			rem := "repair the degraded link, or " + r.Relief.String()
			if len(f.Remedy) > 0 {
				rem = "or " + rem
			}
			f.Remedy = append(f.Remedy, rem)
		}
		out = append(out, f)
	}
	return out
}

// Bisection is the effective bisection bandwidth of a fabric under its
// static routes: over random pairings of the CA ports (each port sends to
// its partner, both directions), the fraction of flows that get the full
// line rate (no other flow on any link of their route).
type Bisection struct {
	Samples int     `json:"samples"`
	Ports   int     `json:"ports"`
	Mean    float64 `json:"mean"`
	Min     float64 `json:"min"`
	Median  float64 `json:"median"`
	// Worst is the link most often the bottleneck, with how many flows it
	// carried in the worst sample.
	Worst string `json:"worst_link,omitempty"`
}

// EffectiveBisection samples random bisections of every cabled CA port
// with a LID. seed makes it reproducible.
func EffectiveBisection(g *routing.Graph, samples int, seed uint64) (*Bisection, error) {
	f := g.Subnet()
	var ports []Rail
	for i := range f.Nodes {
		if f.Nodes[i].Type != routing.CA {
			continue
		}
		for p := 1; p < len(f.Nodes[i].Ports); p++ {
			if f.Nodes[i].Ports[p].LID == 0 {
				continue
			}
			if _, ok := g.Peer(routing.PortRef{Node: i, Port: p}); ok {
				ports = append(ports, Rail{Node: i, Port: p, LID: f.Nodes[i].Ports[p].LID})
			}
		}
	}
	if len(ports) < 2 {
		return nil, fmt.Errorf("fewer than two cabled CA ports with a LID")
	}
	if samples <= 0 {
		samples = 20
	}
	rng := rand.New(rand.NewPCG(seed, 0x1bd0c70))
	b := &Bisection{Samples: samples, Ports: len(ports)}
	idx := newLinkIndex(f)
	load := make([]int32, idx.size)
	blame := make([]int32, idx.size)
	var fracs []float64
	worstLoad := int32(0)
	var routes [][]int32
	for range samples {
		perm := rng.Perm(len(ports))
		clear(load)
		routes = routes[:0]
		for i := 0; i+1 < len(perm); i += 2 {
			a, c := ports[perm[i]], ports[perm[i+1]]
			for _, d := range [][2]Rail{{a, c}, {c, a}} {
				r, err := g.Path(d[0].LID, d[1].LID)
				if err != nil {
					routes = append(routes, nil)
					continue
				}
				ls := idx.route(r)
				routes = append(routes, ls)
				for _, l := range ls {
					load[l]++
				}
			}
		}
		full := 0
		for _, ls := range routes {
			ok := ls != nil
			for _, l := range ls {
				if load[l] > 1 {
					ok = false
					blame[l]++
					worstLoad = max(worstLoad, load[l])
				}
			}
			if ok {
				full++
			}
		}
		fracs = append(fracs, float64(full)/float64(len(routes)))
	}
	slices.Sort(fracs)
	for _, v := range fracs {
		b.Mean += v
	}
	b.Mean /= float64(len(fracs))
	b.Min, b.Median = fracs[0], fracs[len(fracs)/2]
	worst, most := -1, int32(0)
	for l, n := range blame {
		if n > most {
			worst, most = l, n
		}
	}
	if worst >= 0 {
		from := idx.ref(int32(worst))
		to, _ := g.Peer(from)
		b.Worst = fmt.Sprintf("%s → %s (the bottleneck of %d flows over the samples; the most flows on one link: %d)", portName(f, from), portName(f, to), most, worstLoad)
	}
	return b, nil
}

// linkIndex numbers every port of a fabric densely, so that the directed
// link leaving a port is an index into a slice: per-link counters are a
// []int32 instead of a map (a 16k-HCA fabric has about 60k links).
type linkIndex struct {
	base []int32 // first index of node i; base[len] = size
	size int
}

func newLinkIndex(f *routing.Subnet) linkIndex {
	idx := linkIndex{base: make([]int32, len(f.Nodes)+1)}
	for i := range f.Nodes {
		idx.base[i+1] = idx.base[i] + int32(len(f.Nodes[i].Ports))
	}
	idx.size = int(idx.base[len(f.Nodes)])
	return idx
}

// route returns the links a route crosses, by the port each leaves from.
func (x linkIndex) route(r *routing.Route) []int32 {
	out := make([]int32, 0, len(r.Hops))
	for i := 0; i+1 < len(r.Hops); i++ {
		out = append(out, x.base[r.Hops[i].Node]+int32(r.Hops[i].OutPort))
	}
	return out
}

// linkRates are the directed links' rates (by the port each leaves),
// the fabric's rate and the degraded links' reasons.
type linkRates struct {
	rate     []float64
	nominal  float64
	degraded map[int32]string
}

// rates indexes links. The fabric's rate is the most common known rate
// (the higher on a tie); links of unknown rate run at it. Without any
// known rate every link runs at 1. A link below the fabric's rate is
// degraded, whatever else is said of it.
func (x linkIndex) rates(links Links) linkRates {
	lr := linkRates{rate: make([]float64, x.size), nominal: 1, degraded: map[int32]string{}}
	count := map[float64]int{}
	for _, li := range links {
		if li.Gbps > 0 {
			count[li.Gbps]++
		}
	}
	best := 0
	for r, n := range count {
		if n > best || n == best && r > lr.nominal {
			lr.nominal, best = r, n
		}
	}
	for i := range lr.rate {
		lr.rate[i] = lr.nominal
	}
	for ref, li := range links {
		if li.Degraded == "" && li.Gbps > 0 && li.Gbps < lr.nominal {
			li.Degraded = fmt.Sprintf("runs at %s Gb/s, below the fabric's %s Gb/s", gbps(li.Gbps), gbps(lr.nominal))
		}
		if ref.Node < 0 || ref.Node+1 >= len(x.base) {
			continue
		}
		i := x.base[ref.Node] + int32(ref.Port)
		if i >= x.base[ref.Node+1] {
			continue
		}
		if li.Gbps > 0 {
			lr.rate[i] = li.Gbps
		}
		if li.Degraded != "" {
			lr.degraded[i] = li.Degraded
		}
	}
	return lr
}

// share is what each flow on link l gets: its rate over its flows.
func (lr linkRates) share(l int32, load []int32) float64 {
	return lr.rate[l] / float64(max(load[l], 1))
}

// ref turns an index back into a port.
func (x linkIndex) ref(i int32) routing.PortRef {
	n, _ := slices.BinarySearch(x.base, i+1)
	return routing.PortRef{Node: n - 1, Port: int(i - x.base[n-1])}
}
