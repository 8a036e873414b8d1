package fabric

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
)

// Plan is the intended cabling: links between named ports, with the
// expected width and speed where the plan gives them.
type Plan struct {
	Source string     `json:"source"`
	Links  []PlanLink `json:"links"`
}

// PlanEnd names a port in the plan: a node (description, ibnetdiscover ID
// or GUID) and a port number.
type PlanEnd struct {
	Node string `json:"node"`
	Port int    `json:"port"`
}

// String renders the end as node[port].
func (e PlanEnd) String() string { return fmt.Sprintf("%s[%d]", e.Node, e.Port) }

// PlanLink is one planned cable.
type PlanLink struct {
	A     PlanEnd  `json:"a"`
	B     PlanEnd  `json:"b"`
	Width int      `json:"width,omitempty"`
	Speed ib.Speed `json:"speed,omitempty"`
	Line  int      `json:"line"`
}

// netSpeeds maps ibsim's net-file s= values (IB speed bits) to speeds.
var netSpeeds = map[int]ib.Speed{1: ib.SpeedSDR, 2: ib.SpeedDDR, 4: ib.SpeedQDR}

// ParsePlan reads a cabling plan: an ibnetdiscover-format topology (which
// includes ibsim net files, with w=/s=), or lines
//
//	nodeA portA nodeB portB [4xHDR]
//
// where a node is a description, an ibnetdiscover ID or a GUID, quoted
// ("node01 HCA-1") when it holds spaces; '#' starts a comment.
func ParsePlan(r io.Reader, src string) (*Plan, error) {
	b, err := io.ReadAll(io.LimitReader(r, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if k, score := ibdiags.Detect(string(b)); k == ibdiags.KindNetDiscover && score >= 30 || bytes.Contains(b, []byte("\n[")) || bytes.HasPrefix(b, []byte("[")) {
		top, err := ibdiags.ParseNetDiscover(bytes.NewReader(b), src)
		if err != nil {
			return nil, err
		}
		return planFromTopology(top, src), nil
	}
	return parsePlanLines(b, src)
}

func planFromTopology(top *ibdiags.Topology, src string) *Plan {
	p := &Plan{Source: src}
	name := map[string]string{}
	for _, n := range top.Nodes {
		name[n.ID] = n.ID
		if n.Desc != "" {
			name[n.ID] = n.Desc
		}
	}
	type key struct{ a, b PlanEnd }
	seen := map[key]bool{}
	for _, n := range top.Nodes {
		for _, tp := range n.Ports {
			rn := name[tp.RemoteID]
			if rn == "" {
				rn = tp.RemoteID
				if tp.RemoteDesc != "" {
					rn = tp.RemoteDesc
				}
			}
			a, b := PlanEnd{name[n.ID], tp.Port}, PlanEnd{rn, tp.RemotePort}
			if planLess(b, a) {
				a, b = b, a
			}
			if seen[key{a, b}] {
				continue
			}
			seen[key{a, b}] = true
			l := PlanLink{A: a, B: b, Width: tp.Width, Speed: tp.Speed, Line: tp.Line}
			// ibsim net-file settings; a link with only one of them has
			// ibsim's default for the other (4X, SDR: ibsim's sim_net.c).
			if tp.NetWidth != 0 || tp.NetSpeed != 0 {
				l.Width, l.Speed = 4, ib.SpeedSDR
			}
			if tp.NetWidth != 0 {
				l.Width = tp.NetWidth
			}
			if sp, ok := netSpeeds[tp.NetSpeed]; ok {
				l.Speed = sp
			}
			p.Links = append(p.Links, l)
		}
	}
	return p
}

func planLess(a, b PlanEnd) bool {
	if a.Node != b.Node {
		return a.Node < b.Node
	}
	return a.Port < b.Port
}

// ErrPlan is wrapped by plan parse errors.
var ErrPlan = errors.New("bad plan line")

func parsePlanLines(b []byte, src string) (*Plan, error) {
	p := &Plan{Source: src}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	used := map[PlanEnd]int{}
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 && strings.Count(line[:i], `"`)%2 == 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		f, err := splitQuoted(line)
		if err != nil || (len(f) != 4 && len(f) != 5) || f[0] == "" || f[2] == "" {
			return nil, &ibdiags.ParseError{Source: src, Line: n, Input: line, Err: fmt.Errorf("%w: want `nodeA portA nodeB portB [4xHDR]`", ErrPlan)}
		}
		pa, err1 := strconv.Atoi(f[1])
		pb, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || pa < 1 || pa > 255 || pb < 1 || pb > 255 {
			return nil, &ibdiags.ParseError{Source: src, Line: n, Input: line, Err: fmt.Errorf("%w: ports must be 1-255", ErrPlan)}
		}
		l := PlanLink{A: PlanEnd{f[0], pa}, B: PlanEnd{f[2], pb}, Line: n}
		if len(f) == 5 {
			w, sp, ok := parseRateToken(f[4])
			if !ok {
				return nil, &ibdiags.ParseError{Source: src, Line: n, Input: line, Err: fmt.Errorf("%w: bad rate %q (want like 4xHDR)", ErrPlan, f[4])}
			}
			l.Width, l.Speed = w, sp
		}
		for _, e := range []PlanEnd{l.A, l.B} {
			if prev, dup := used[e]; dup {
				return nil, &ibdiags.ParseError{Source: src, Line: n, Input: line, Err: fmt.Errorf("%w: port %s already cabled on line %d", ErrPlan, e, prev)}
			}
			used[e] = n
		}
		if planLess(l.B, l.A) {
			l.A, l.B = l.B, l.A
		}
		p.Links = append(p.Links, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if len(p.Links) == 0 {
		return nil, &ibdiags.ParseError{Source: src, Err: fmt.Errorf("%w: no links", ibdiags.ErrNoData)}
	}
	return p, nil
}

func parseRateToken(s string) (int, ib.Speed, bool) {
	w, sp, ok := strings.Cut(strings.ToLower(s), "x")
	n, err := strconv.Atoi(w)
	if !ok || err != nil {
		return 0, 0, false
	}
	speed, err := ib.ParseSpeed(sp)
	if err != nil {
		return 0, 0, false
	}
	for _, v := range ib.Widths {
		if v == n {
			return n, speed, true
		}
	}
	return 0, 0, false
}

func splitQuoted(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		if s[0] == '"' {
			i := strings.IndexByte(s[1:], '"')
			if i < 0 {
				return nil, errors.New("unterminated quote")
			}
			out = append(out, s[1:1+i])
			s = s[2+i:]
			continue
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return append(out, s), nil
		}
		out = append(out, s[:i])
		s = s[i:]
	}
}
