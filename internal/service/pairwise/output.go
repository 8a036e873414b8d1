package pairwise

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	pairwiserules "github.com/ibdoctor/ibdoctor/internal/rules/pairwise"
)

// Report is the JSON document of `ibdoctor perf pairwise` (and of --out).
type Report struct {
	Matrix   *Matrix           `json:"matrix"`
	Findings []finding.Finding `json:"findings"`
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r Report) error {
	if r.Findings == nil {
		r.Findings = []finding.Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteCSV writes one row per pair: round, a, b, backend, kind, gbps,
// latency_median_us, latency_p99_us, error. Empty cells are values the
// test did not measure.
func WriteCSV(w io.Writer, m *Matrix) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"round", "a", "b", "backend", "kind", "gbps", "latency_median_us", "latency_p99_us", "error"})
	f := func(v float64) string {
		if v == 0 {
			return ""
		}
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	for _, p := range m.Pairs {
		row := []string{strconv.Itoa(p.Round), p.A, p.B, m.Test.Backend, m.Test.Kind, "", "", "", p.Error}
		if r := p.Result; r != nil {
			row[5], row[6], row[7] = f(r.BitsPerSecond/1e9), f(r.LatencyMedianUS), f(r.LatencyP99US)
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// maxMatrixHosts is the largest cluster drawn as a matrix; bigger ones get
// the per-node table only.
const maxMatrixHosts = 40

// TextOptions tune the text rendering.
type TextOptions struct {
	// Color marks cells with ANSI colours (green healthy, yellow within
	// 10% of the slow line, red slow) instead of a trailing '!'.
	Color bool
	// SlowFraction and Reference as given to the culprit rules
	// (internal/rules/pairwise), to mark slow cells.
	SlowFraction float64
	Reference    float64
}

// WriteText writes the heat map (one cell per pair, Gb/s or µs; slow cells
// marked), a per-node table, the round timings and the findings.
func WriteText(w io.Writer, r Report, o TextOptions) error {
	m := r.Matrix
	sc := newScale(m, o)
	fmt.Fprintf(w, "pairwise %s %s test, pattern %s: %d nodes, %d of %d pairs measured in %d rounds\n",
		m.Test.Backend, m.Test.Kind, m.Pattern, len(m.Hosts), countOK(m), m.Planned, len(m.Rounds))
	if m.Interrupted {
		fmt.Fprintln(w, "INTERRUPTED: partial results")
	}
	if len(m.Hosts) <= maxMatrixHosts && len(m.Hosts) > 1 {
		writeMatrix(w, m, sc, o.Color)
	}
	writeNodeTable(w, m, sc)
	if len(m.Rounds) > 0 {
		fmt.Fprintln(w, "\nrounds:")
		for _, rt := range m.Rounds {
			fmt.Fprintf(w, "  round %d: %d pairs in %.2f s\n", rt.Round, rt.Pairs, rt.Seconds)
		}
	}
	fmt.Fprintln(w)
	if len(r.Findings) == 0 {
		fmt.Fprintln(w, "no slow node, pair, link or switch found")
		return nil
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "%-8s %-17s %s\n", strings.ToUpper(string(f.Severity)), f.ID, f.Summary)
		for _, e := range f.Evidence {
			fmt.Fprintf(w, "         %s: %s\n", e.Source, e.Value)
		}
	}
	return nil
}

// scale reads a result as the number the report shows (Gb/s or the
// median round trip in µs) and classes it against the reference.
type scale struct {
	lat       bool
	unit      string
	ref, frac float64
}

func newScale(m *Matrix, o TextOptions) scale {
	sc := scale{lat: m.Test.Kind == KindLat, unit: "Gb/s", ref: reference(m, o), frac: o.SlowFraction}
	if sc.lat {
		sc.unit = "µs (median round trip)"
	}
	if sc.frac <= 0 || sc.frac >= 1 {
		sc.frac = pairwiserules.DefaultSlowFraction
	}
	return sc
}

func (sc scale) val(res *Result) float64 {
	if sc.lat {
		return res.LatencyMedianUS
	}
	return res.BitsPerSecond / 1e9
}

// slow: beyond the slow fraction of the reference; near: within 0.1 of it.
func (sc scale) slow(v float64) bool { return sc.beyond(v, sc.frac) }
func (sc scale) near(v float64) bool { return sc.beyond(v, sc.frac+0.1) }

func (sc scale) beyond(v, frac float64) bool {
	if sc.ref <= 0 {
		return false
	}
	if sc.lat {
		return v > sc.ref/frac
	}
	return v < sc.ref*frac
}

// writeMatrix prints the host × host matrix, one cell per pair.
func writeMatrix(w io.Writer, m *Matrix, sc scale, color bool) {
	cells := map[[2]string]PairResult{}
	for _, p := range m.Pairs {
		cells[[2]string{p.A, p.B}], cells[[2]string{p.B, p.A}] = p, p
	}
	fmt.Fprintf(w, "\n%s, by pair (either direction; columns numbered as rows):\n", sc.unit)
	nameW := 4
	for _, h := range m.Hosts {
		nameW = max(nameW, len(h))
	}
	fmt.Fprintf(w, "%*s ", nameW+4, "")
	for j := range m.Hosts {
		fmt.Fprintf(w, "%8d", j+1)
	}
	fmt.Fprintln(w)
	for i, a := range m.Hosts {
		fmt.Fprintf(w, "%3d %-*s ", i+1, nameW, a)
		for j, b := range m.Hosts {
			p, ok := cells[[2]string{a, b}]
			switch {
			case i == j:
				fmt.Fprintf(w, "%8s", "-")
			case !ok:
				fmt.Fprintf(w, "%8s", ".")
			case p.Result == nil:
				fmt.Fprintf(w, "%8s", "fail")
			default:
				writeCell(w, sc, sc.val(p.Result), color)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "('!' slow, '.' not tested, 'fail' test failed)")
}

func writeCell(w io.Writer, sc scale, v float64, color bool) {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	switch {
	case color && sc.slow(v):
		fmt.Fprintf(w, "%s\x1b[31m%s\x1b[0m", pad(s, 8), s)
	case color && sc.near(v):
		fmt.Fprintf(w, "%s\x1b[33m%s\x1b[0m", pad(s, 8), s)
	case color:
		fmt.Fprintf(w, "%s\x1b[32m%s\x1b[0m", pad(s, 8), s)
	case sc.slow(v):
		fmt.Fprintf(w, "%8s", s+"!")
	default:
		fmt.Fprintf(w, "%8s", s+" ")
	}
}

// writeNodeTable prints each node's pairs, median, worst and failures.
func writeNodeTable(w io.Writer, m *Matrix, sc scale) {
	fmt.Fprintf(w, "\n%-20s %6s %10s %10s %10s\n", "NODE", "PAIRS", "MEDIAN", "WORST", "FAILED")
	for _, h := range m.Hosts {
		var vs []float64
		failed := 0
		for _, p := range m.Pairs {
			if p.A != h && p.B != h {
				continue
			}
			if p.Result == nil {
				failed++
				continue
			}
			vs = append(vs, sc.val(p.Result))
		}
		med, worst := "-", "-"
		if len(vs) > 0 {
			med = strconv.FormatFloat(median(vs), 'f', 2, 64)
			wv := slices.Min(vs)
			if sc.lat {
				wv = slices.Max(vs)
			}
			worst = strconv.FormatFloat(wv, 'f', 2, 64)
		}
		fmt.Fprintf(w, "%-20s %6d %10s %10s %10d\n", h, len(vs)+failed, med, worst, failed)
	}
}

func pad(s string, width int) string {
	return strings.Repeat(" ", max(0, width-len(s)))
}

func countOK(m *Matrix) int {
	n := 0
	for _, p := range m.Pairs {
		if p.Result != nil {
			n++
		}
	}
	return n
}

// reference is the culprit rules' reference in the display unit (Gb/s or
// µs).
func reference(m *Matrix, o TextOptions) float64 {
	ref := pairwiserules.Reference(m.Input(nil), o.Reference)
	if m.Test.Kind == KindLat {
		return ref
	}
	return ref / 1e9
}

// median of v (the mean of the middle two for an even count), 0 when empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
