package analyze

import (
	"slices"
	"sort"
)

// doc holds the lines of a file that the analysis of its outputs reads,
// each at its number in the file: every line of a paste, or the lines of
// the outputs of a streamed file that were kept to be judged whole.
type doc struct {
	parts []part // in order of their lines, not overlapping
	// above holds lines right above a part that no part holds (an
	// ethtool -S prompt names the netdev of the output under it).
	above map[int]string
}

// part is lines start… of a file; shared says ls is another doc's too
// (copied before a line of it is changed).
type part struct {
	start  int
	ls     []string
	shared bool
}

// at returns the part that holds line n, nil when none does.
func (d *doc) at(n int) *part {
	i := sort.Search(len(d.parts), func(i int) bool { return d.parts[i].start+len(d.parts[i].ls) > n })
	if i == len(d.parts) || d.parts[i].start > n {
		return nil
	}
	return &d.parts[i]
}

// line returns line n, "" when it is not held.
func (d *doc) line(n int) string {
	if p := d.at(n); p != nil {
		return p.ls[n-p.start]
	}
	return d.above[n]
}

// set replaces line n, which d holds.
func (d *doc) set(n int, l string) {
	if p := d.at(n); p != nil {
		if p.shared {
			p.ls, p.shared = slices.Clone(p.ls), false
		}
		p.ls[n-p.start] = l
	}
}

// lines returns the lines of sp, which one part holds.
func (d *doc) lines(sp Span) []string {
	p := d.at(sp.Start)
	if p == nil {
		return nil
	}
	return p.ls[sp.Start-p.start : min(sp.End-p.start+1, len(p.ls))]
}

// end is the number of the last line held.
func (d *doc) end() int {
	if len(d.parts) == 0 {
		return 0
	}
	p := d.parts[len(d.parts)-1]
	return p.start + len(p.ls) - 1
}

// clone copies d, to change lines of the copy: a part's lines are
// copied when one of them is changed, so that changing a line of one
// output does not copy every other output's.
func (d *doc) clone() *doc {
	c := &doc{parts: make([]part, len(d.parts)), above: d.above}
	for i, p := range d.parts {
		c.parts[i] = part{start: p.start, ls: p.ls, shared: true}
	}
	return c
}
