package hcatext

import (
	"slices"
	"strings"
)

// earlyLinkKeys are the field names of the first `rdma link` output
// (iproute2's rdma tool as first posted to netdev in 2017: "1/1: mlx5_0/1:
// ifname ib0 cap_mask 0x2651e848 lid 0x13 lid_mask_count 0 link_layer
// InfiniBand phys_state 5: LinkUp rate 100 Gb/sec (4X EDR) sm_lid 0x2
// sm_sl 0 state 4: ACTIVE"). Its values hold blanks ("5: LinkUp", "100
// Gb/sec (4X EDR)"), so a field runs to the next of these names, not to
// the next blank.
var earlyLinkKeys = []string{"ifname", "cap_mask", "lid", "lid_mask_count", "link_layer", "phys_state", "rate", "sm_lid", "sm_sl", "state"}

// earlyOnly are the names only the early output prints: a record holding
// one of them is read as that output.
var earlyOnly = []string{"ifname", "cap_mask", "lid_mask_count", "phys_state", "sm_sl"}

// earlyToken is a word of an early record and the line it is on.
type earlyToken struct {
	word string
	n    int
	line string
}

// earlyLink is an early-format record being read: a mail archive or a
// terminal wraps one onto several lines ("… lid_mask_count 0 ",
// "link_layer InfiniBand", "phys_state … state ", "4: ACTIVE").
type earlyLink struct {
	dev  string
	port int
	toks []earlyToken
}

// isEarlyRecord says whether the fields after "1/1: mlx5_0/1:" are the
// early output's.
func isEarlyRecord(f []string) bool {
	return slices.ContainsFunc(f, func(w string) bool { return slices.Contains(earlyOnly, w) })
}

// add appends the words of line n.
func (e *earlyLink) add(f []string, n int, line string) {
	for _, w := range f {
		e.toks = append(e.toks, earlyToken{w, n, line})
	}
}

// wants says whether a line whose words are f goes on the record: it
// starts with a field name, or the record ends on a name or a "4:" whose
// value was wrapped onto this line.
func (e *earlyLink) wants(f []string) bool {
	if e.dev == "" || len(f) == 0 || IsOldRdmaLink(f) {
		return false
	}
	if slices.Contains(earlyLinkKeys, f[0]) {
		return true
	}
	if len(e.toks) == 0 {
		return false
	}
	last := e.toks[len(e.toks)-1].word
	return slices.Contains(earlyLinkKeys, last) || strings.HasSuffix(last, ":") && isNumber(strings.TrimSuffix(last, ":"))
}

// earlyFields maps the early names onto the later `rdma link` ones that
// rdmaField reads; "" is a field with nothing to keep.
var earlyFields = map[string]string{"ifname": "netdev", "lid_mask_count": "lmc", "phys_state": "physical_state",
	"cap_mask": "cap_mask", "sm_sl": "", "lid": "lid", "link_layer": "link_layer", "rate": "rate", "sm_lid": "sm_lid", "state": "state"}

// finish applies the record's fields to its port and empties it.
func (e *earlyLink) finish(r *Result) {
	if e.dev == "" {
		return
	}
	p := r.port(e.dev, e.port)
	for i := 0; i < len(e.toks); {
		k := e.toks[i]
		j := i + 1
		for j < len(e.toks) && !slices.Contains(earlyLinkKeys, e.toks[j].word) {
			j++
		}
		var words []string
		for _, t := range e.toks[i+1 : j] {
			words = append(words, t.word)
		}
		if j > i+1 {
			// The value's evidence is the line it ends on ("4:
			// ACTIVE" wrapped onto the next line: that one).
			k.n, k.line = e.toks[j-1].n, e.toks[j-1].line
		}
		v := strings.Join(words, " ")
		i = j
		name, known := earlyFields[k.word]
		switch {
		case !known:
			r.skip(k.n, k.line, "unknown rdma link field %q", k.word) // words before the first name
		case name == "":
		case v == "":
			r.skip(k.n, k.line, "%q has no value (truncated line?)", k.word)
		case name == "cap_mask":
			x, err := parseUint(v, 32)
			if err != nil {
				r.skip(k.n, k.line, "%v", err)
				continue
			}
			p.CapMask = u32(x)
		default:
			if err := r.rdmaField(p, name, v, k.n, k.line); err != nil {
				r.skip(k.n, k.line, "%v", err)
			}
		}
	}
	*e = earlyLink{}
}

// IsOldRdmaLink says whether the words of a line start a record of the
// older `rdma link` outputs: "1/1: mlx5_0/1: …" (index/port, then
// device/port, each with a colon).
func IsOldRdmaLink(f []string) bool {
	if len(f) < 2 {
		return false
	}
	a, ok := strings.CutSuffix(f[0], ":")
	if !ok {
		return false
	}
	i, pn, ok := strings.Cut(a, "/")
	if !ok || !isNumber(i) || !isNumber(pn) {
		return false
	}
	b, ok := strings.CutSuffix(f[1], ":")
	_, _, ok2 := rdmaName(b)
	return ok && ok2
}
