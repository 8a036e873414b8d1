// Package portinfo judges pasted PortInfo dumps (smpquery portinfo,
// ibportstate; parsed by internal/parse/portinfo): a port that is not
// Active, a width or lane speed below what the port has enabled and
// supports, and an MTU below the port's capability. Only the last dump of
// each port is judged (ibportstate prints it before and after a change).
package portinfo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/portinfo"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Result is what the rules found.
type Result struct {
	Findings []finding.Finding
	Notes    []string
	// Ports counts the PortInfo dumps judged, Active those Active.
	Ports, Active int
}

// Check judges the PortInfo dumps of res; file names the paste.
func Check(res *portinfo.Result, file string) Result {
	var out Result
	last := map[string]int{}
	for i, b := range res.Blocks {
		if _, hasState := b.Get("LinkState"); b.What == "Port info" || b.What == "" && hasState {
			last[key(b)] = i
		}
	}
	for i, b := range res.Blocks {
		j, ok := last[key(b)]
		if !ok || b.What == "MLNX ext Port info" {
			continue
		}
		if j != i {
			out.Notes = append(out.Notes, fmt.Sprintf("%s:%d: %s is printed again below; the later dump is judged", file, b.Line, name(b)))
			continue
		}
		out.Ports++
		c := check{b: b, file: file, ext: mlnxExt(res, i)}
		c.subj = finding.Subject{File: file, LinkLayer: "InfiniBand"}
		if b.LID > 0 && b.LID <= 0xBFFF {
			c.subj.LID = uint32(b.LID)
		}
		if b.Port >= 0 {
			c.subj.Port = b.Port
		}
		if c.state() {
			out.Active++
			c.width()
			c.speed()
			c.mtu()
		}
		out.Findings = append(out.Findings, c.out...)
	}
	catalog.Sort(out.Findings)
	return out
}

func key(b *portinfo.Block) string {
	return fmt.Sprintf("%s|%d|%d", peerOf(b), b.LID, b.Port)
}

// peerOf tells ibportstate's peer dump from the port's own.
func peerOf(b *portinfo.Block) string {
	if strings.HasPrefix(b.Label, "Peer") {
		return "peer"
	}
	return ""
}

func name(b *portinfo.Block) string {
	s := "the port"
	if b.LID >= 0 && b.Port >= 0 {
		s = fmt.Sprintf("LID %d port %d", b.LID, b.Port)
	} else if b.Port >= 0 {
		s = fmt.Sprintf("port %d", b.Port)
	}
	if peerOf(b) != "" {
		s = "the peer of the queried port (" + s + ")"
	}
	return s
}

// mlnxExt returns the "# MLNX ext Port info" dump of block i's port: the
// one that follows it, else the port's last one (ibportstate prints it
// with the first dump only).
func mlnxExt(res *portinfo.Result, i int) *portinfo.Block {
	if i+1 < len(res.Blocks) && res.Blocks[i+1].What == "MLNX ext Port info" {
		return res.Blocks[i+1]
	}
	var found *portinfo.Block
	for _, b := range res.Blocks {
		if b.What == "MLNX ext Port info" && key(b) == key(res.Blocks[i]) {
			found = b
		}
	}
	return found
}

type check struct {
	b    *portinfo.Block
	ext  *portinfo.Block
	file string
	subj finding.Subject
	out  []finding.Finding
}

func (c *check) add(id, summary string, fs ...portinfo.Field) *finding.Finding {
	ev := make([]finding.Evidence, len(fs))
	for i, f := range fs {
		ev[i] = finding.Evidence{Source: fmt.Sprintf("%s:%d", c.file, f.Line), Value: f.Key + ": " + f.Value}
	}
	c.out = append(c.out, catalog.New(id, c.subj, summary, ev...))
	return &c.out[len(c.out)-1]
}

// stateName drops the number some versions print first ("4: Active").
func stateName(v string) string {
	if _, rest, ok := strings.Cut(v, ": "); ok {
		return strings.TrimSpace(rest)
	}
	return v
}

// state judges LinkState and PhysLinkState; it returns whether the port
// is Active (or its state was not pasted).
func (c *check) state() bool {
	ls, ok := c.b.Get("LinkState")
	if !ok {
		return true
	}
	st := strings.ToLower(stateName(ls.Value))
	if st == "active" {
		return true
	}
	ph, hasPh := c.b.Get("PhysLinkState")
	phys := strings.ToLower(stateName(ph.Value))
	fs := []portinfo.Field{ls}
	if hasPh {
		fs = append(fs, ph)
	}
	n := name(c.b)
	switch {
	case strings.HasPrefix(phys, "polling"):
		c.add("port.polling", fmt.Sprintf("%s: LinkState %s, PhysLinkState %s: no link partner", n, ls.Value, ph.Value), fs...)
	case strings.HasPrefix(phys, "disabled"):
		c.add("port.disabled", fmt.Sprintf("%s: LinkState %s, PhysLinkState %s: the port is disabled", n, ls.Value, ph.Value), fs...)
	case st == "initialize" || st == "init" || st == "armed":
		c.add("port.init_no_sm", fmt.Sprintf("%s: LinkState %s with the physical link up: no subnet manager has brought the port to Active", n, ls.Value), fs...)
	default:
		c.add("port.down", fmt.Sprintf("%s: LinkState %s", n, ls.Value), fs...)
	}
	return false
}

// widths reads "1X or 4X" into lane counts.
func widths(v string) []int {
	var out []int
	for _, w := range strings.Split(v, " or ") {
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(w), "X")); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// common returns the largest value in both a and b, 0 when none.
func common(a, b []float64) float64 {
	best := 0.0
	for _, x := range a {
		for _, y := range b {
			if x == y && x > best {
				best = x
			}
		}
	}
	return best
}

func floats(is []int) []float64 {
	out := make([]float64, len(is))
	for i, v := range is {
		out[i] = float64(v)
	}
	return out
}

func (c *check) width() {
	act, ok1 := c.b.Get("LinkWidthActive")
	en, ok2 := c.b.Get("LinkWidthEnabled")
	sup, ok3 := c.b.Get("LinkWidthSupported")
	if !ok1 || !ok2 || !ok3 {
		return
	}
	a := widths(act.Value)
	best := common(floats(widths(en.Value)), floats(widths(sup.Value)))
	if len(a) != 1 || best == 0 || float64(a[0]) >= best {
		return
	}
	f := c.add("port.width_degraded", fmt.Sprintf("%s: LinkWidthActive %s while the port has %gX enabled and supported: lanes failed to train, or the peer or the cable has fewer", name(c.b), act.Value, best), act, en, sup)
	f.Severity = finding.Warning // one end's view: the peer may be narrower
}

// gbps reads "2.5 Gbps or 5.0 Gbps" into lane rates.
func gbps(v string) []float64 {
	var out []float64
	for _, w := range strings.Split(v, " or ") {
		w = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(w), "Gbps"))
		if x, err := strconv.ParseFloat(w, 64); err == nil && x > 0 {
			out = append(out, x)
		}
	}
	return out
}

// fdr10 is FDR10's lane rate: Mellanox's MLNX ext PortInfo shows it as
// LinkSpeedActive 0x01, beside "No Extended Speed".
const fdr10 = 10.3125

func (c *check) speed() {
	act, ok := c.b.Get("LinkSpeedActive")
	if !ok {
		return
	}
	evs := []portinfo.Field{act}
	cur := 0.0
	if v := gbps(act.Value); len(v) == 1 {
		cur = v[0]
	}
	for _, k := range []string{"LinkSpeedExtActive", "LinkSpeedExtActive2"} {
		if f, ok := c.b.Get(k); ok {
			if v := gbps(f.Value); len(v) == 1 && v[0] > cur {
				cur = v[0]
				evs = append(evs, f)
			}
		}
	}
	if c.ext != nil {
		if f, ok := c.ext.Get("LinkSpeedActive"); ok && f.Value == "0x01" && cur < fdr10 {
			cur = fdr10
			evs = append(evs, f)
		}
	}
	if cur == 0 {
		return
	}
	best := 0.0
	for _, pair := range [][2]string{{"LinkSpeedEnabled", "LinkSpeedSupported"}, {"LinkSpeedExtEnabled", "LinkSpeedExtSupported"}, {"LinkSpeedExtEnabled2", "LinkSpeedExtSupported2"}} {
		en, ok1 := c.b.Get(pair[0])
		sup, ok2 := c.b.Get(pair[1])
		if !ok1 || !ok2 {
			continue
		}
		if b := common(gbps(en.Value), gbps(sup.Value)); b > best {
			best = b
			if b > cur {
				evs = append(evs, en, sup)
			}
		}
	}
	if best == 0 || cur >= best {
		return
	}
	f := c.add("port.speed_degraded", fmt.Sprintf("%s: the lane runs at %g Gb/s while the port has %g Gb/s enabled and supported: auto-negotiation fell back (the peer, the cable or signal quality)", name(c.b), cur, best), evs...)
	f.Severity = finding.Warning // one end's view: the peer may be slower
}

func (c *check) mtu() {
	nb, ok1 := c.b.Get("NeighborMTU")
	cp, ok2 := c.b.Get("MtuCap")
	if !ok1 || !ok2 {
		return
	}
	n, err1 := strconv.Atoi(nb.Value)
	m, err2 := strconv.Atoi(cp.Value)
	if err1 != nil || err2 != nil || n >= m {
		return
	}
	c.add("port.ib_mtu_reduced", fmt.Sprintf("%s: NeighborMTU %d below the port's MtuCap %d: the subnet manager or the peer set a smaller MTU", name(c.b), n, m), nb, cp)
}
