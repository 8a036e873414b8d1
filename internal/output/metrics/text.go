package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
)

// family is one metric family: its name, help and label names, its
// client_golang descriptor (for Collect) and what AppendText writes of it
// that does not change from one rendering to the next.
type family struct {
	name, help string
	labels     []string
	desc       *prometheus.Desc
	// order are the indices of labels sorted by name: the exposition
	// writes labels in that order and sorts series by their values in it.
	order []int
	// prefix[i] is what precedes the value of label order[i]:
	// `{name="` for the first, `,name="` for the others.
	prefix []string
	// helpText is the help escaped as the text format wants it.
	helpText string
}

func newFamily(name, help string, labels []string) *family {
	f := &family{name: name, help: help, labels: labels, desc: prometheus.NewDesc(name, help, labels, nil)}
	f.order = make([]int, len(labels))
	for i := range f.order {
		f.order[i] = i
	}
	slices.SortFunc(f.order, func(a, b int) int { return strings.Compare(labels[a], labels[b]) })
	for i, j := range f.order {
		sep := ","
		if i == 0 {
			sep = "{"
		}
		f.prefix = append(f.prefix, sep+labels[j]+`="`)
	}
	f.helpText = string(appendEscaped(nil, help, false))
	return f
}

// textSink collects the series of one AppendText rendering, grouped by
// family name in the order they were first sent; its slices are reused
// by the next rendering.
type textSink struct {
	byName map[string]*textGroup
	groups []*textGroup
	vals   []string // the label values of every row, row after row
	pool   []*textGroup
}

// textGroup is the series of one family name. The first family sent
// under a name decides its help and type; series of another family with
// that name and another help or type are dropped, as client_golang's
// registry drops them.
type textGroup struct {
	fam     *family
	counter bool
	rows    []textRow
}

type textRow struct {
	fam   *family
	start int // first label value in textSink.vals
	v     float64
}

func (t *textSink) gauge(f *family, v float64, l ...string)   { t.add(f, false, v, l) }
func (t *textSink) counter(f *family, v float64, l ...string) { t.add(f, true, v, l) }

func (t *textSink) add(f *family, counter bool, v float64, l []string) {
	if len(l) != len(f.labels) {
		return // client_golang refuses such a metric
	}
	g := t.byName[f.name]
	if g == nil {
		if n := len(t.pool); n > 0 {
			g, t.pool = t.pool[n-1], t.pool[:n-1]
		} else {
			g = &textGroup{}
		}
		g.fam, g.counter, g.rows = f, counter, g.rows[:0]
		t.byName[f.name] = g
		t.groups = append(t.groups, g)
	} else if g.counter != counter || g.fam != f && g.fam.help != f.help {
		return
	}
	start := len(t.vals)
	for _, s := range l {
		if !utf8.ValidString(s) {
			// client_golang would refuse the whole scrape.
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
		t.vals = append(t.vals, s)
	}
	g.rows = append(g.rows, textRow{fam: f, start: start, v: v})
}

// AppendText appends the latest state to b in the Prometheus text
// exposition format (version 0.0.4), exactly as client_golang's registry
// and expfmt render Collect: families sorted by name, the series of a
// family sorted by their label values (labels in name order), a series
// sent twice kept once (the first), HELP and TYPE before each family.
func (c *Collector) AppendText(b []byte) []byte {
	c.textMu.Lock()
	defer c.textMu.Unlock()
	t := &c.text
	if t.byName == nil {
		t.byName = map[string]*textGroup{}
	}
	c.collect(t)
	slices.SortFunc(t.groups, func(a, b *textGroup) int { return strings.Compare(a.fam.name, b.fam.name) })
	for _, g := range t.groups {
		slices.SortStableFunc(g.rows, t.compare)
		b = t.appendGroup(b, g)
	}
	// Keep the memory for the next rendering, not the strings.
	clear(t.vals)
	t.vals = t.vals[:0]
	for _, g := range t.groups {
		clear(g.rows)
		t.pool = append(t.pool, g)
	}
	clear(t.groups)
	t.groups = t.groups[:0]
	clear(t.byName)
	return b
}

// compare orders two rows of a group as client_golang's metric sorter
// does: by label count, then by label values in label name order.
func (t *textSink) compare(a, b textRow) int {
	if n, m := len(a.fam.labels), len(b.fam.labels); n != m {
		return n - m
	}
	for i := range a.fam.order {
		if c := strings.Compare(t.vals[a.start+a.fam.order[i]], t.vals[b.start+b.fam.order[i]]); c != 0 {
			return c
		}
	}
	return 0
}

// same reports whether two rows are one series: the same label names and
// values.
func (t *textSink) same(a, b textRow) bool {
	if t.compare(a, b) != 0 {
		return false
	}
	for i := range a.fam.order {
		if a.fam.labels[a.fam.order[i]] != b.fam.labels[b.fam.order[i]] {
			return false
		}
	}
	return true
}

func (t *textSink) appendGroup(b []byte, g *textGroup) []byte {
	f := g.fam
	b = append(b, "# HELP "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = append(b, f.helpText...)
	b = append(b, "\n# TYPE "...)
	b = append(b, f.name...)
	if g.counter {
		b = append(b, " counter\n"...)
	} else {
		b = append(b, " gauge\n"...)
	}
	for i, r := range g.rows {
		if i > 0 && t.same(g.rows[i-1], r) {
			continue // sent before: client_golang keeps the first
		}
		b = append(b, f.name...)
		for j, k := range r.fam.order {
			b = append(b, r.fam.prefix[j]...)
			b = appendEscaped(b, t.vals[r.start+k], true)
			b = append(b, '"')
		}
		if len(r.fam.order) > 0 {
			b = append(b, '}')
		}
		b = append(b, ' ')
		b = appendFloat(b, r.v)
		b = append(b, '\n')
	}
	return b
}

// appendEscaped appends s escaped as the text format wants it: backslash
// and newline always, the double quote in label values.
func appendEscaped(b []byte, s string, quote bool) []byte {
	// Label values seldom need escaping: copy them whole unless one of
	// the three bytes is there (a plain loop: ContainsAny builds a set
	// each call, and this runs for every label of every series).
	i := 0
	for i < len(s) && s[i] != '\\' && s[i] != '\n' && s[i] != '"' {
		i++
	}
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\\':
			b = append(b, `\\`...)
		case ch == '\n':
			b = append(b, `\n`...)
		case ch == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, ch)
		}
	}
	return b
}

// appendFloat writes a sample value as expfmt does.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case f == 1:
		return append(b, '1')
	case f == 0:
		return append(b, '0')
	case f == -1:
		return append(b, "-1"...)
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, +1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
