// Package deepep reads the result lines of DeepEP's tests
// (github.com/deepseek-ai/DeepEP, tests/test_internode.py and
// tests/test_low_latency.py):
//
//	[tuning] Best combine: SMs 24, NVL chunk 4, RDMA chunk 32: 62.15 GB/s (RDMA), 205.04 GB/s (NVL)
//	[tuning] SMs 24, NVL chunk 4, RDMA chunk 32: 62.15 GB/s (RDMA), 205.04 GB/s (NVL)
//	[rank 2] Dispatch + combine bandwidth: 0.26 GB/s, avg_t=83610.61 us, min_t=924.03 us, max_t=377962.68 us
//	[rank 4] Dispatch bandwidth: 0.10 GB/s, avg_t=73857.00 us | Combine bandwidth: 1.24 GB/s, avg_t=11727.00 us
//
// Markdown emphasis ("**62.15 GB/s**") is ignored. Judging is the
// caller's job.
package deepep

import (
	"strconv"
	"strings"
)

// Tuning is a test_internode.py tuning line: Op is "" for a trial,
// "combine", "dispatch (BF16)" … for a "Best" line.
type Tuning struct {
	Line    int     `json:"line"`
	Best    bool    `json:"best"`
	Op      string  `json:"op,omitempty"`
	RDMAGBs float64 `json:"rdma_gbs"`
	NVLGBs  float64 `json:"nvl_gbs"`
}

// LowLatency is a test_low_latency.py line of one rank: the bandwidth
// and times of dispatch + combine (Op "dispatch+combine") or of one of
// them. Rank is -1 when the line's "[rank N]" label was cut.
type LowLatency struct {
	Line  int     `json:"line"`
	Rank  int     `json:"rank"`
	Op    string  `json:"op"`
	GBs   float64 `json:"gbs"`
	AvgUS float64 `json:"avg_us"`
	MinUS float64 `json:"min_us,omitempty"`
	MaxUS float64 `json:"max_us,omitempty"`
}

// Hint says cheaply whether l may be a DeepEP result line.
func Hint(l string) bool {
	return strings.Contains(l, "GB/s") && (strings.Contains(l, "[tuning]") || strings.Contains(l, "bandwidth:"))
}

func clean(l string) string {
	return strings.TrimSpace(strings.ReplaceAll(l, "*", ""))
}

// ParseTuning reads a tuning line.
func ParseTuning(l string) (Tuning, bool) {
	t := clean(l)
	i := strings.Index(t, "[tuning] ")
	if i < 0 {
		return Tuning{}, false
	}
	t = t[i+len("[tuning] "):]
	var r Tuning
	if rest, ok := strings.CutPrefix(t, "Best "); ok {
		c := strings.Index(rest, ": SMs ")
		if c < 0 {
			return Tuning{}, false
		}
		r.Best, r.Op, t = true, rest[:c], rest[c+2:]
	}
	if !strings.HasPrefix(t, "SMs ") {
		return Tuning{}, false
	}
	c := strings.LastIndex(t, ": ")
	if c < 0 {
		return Tuning{}, false
	}
	for _, part := range strings.Split(t[c+2:], ",") {
		f := strings.Fields(part)
		if len(f) != 3 || f[1] != "GB/s" {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil || v < 0 || v != v {
			return Tuning{}, false
		}
		switch f[2] {
		case "(RDMA)":
			r.RDMAGBs = v
		case "(NVL)":
			r.NVLGBs = v
		}
	}
	if r.RDMAGBs == 0 && r.NVLGBs == 0 {
		return Tuning{}, false
	}
	return r, true
}

// ParseLowLatency reads a low-latency line: one or two entries (the
// second after " | ").
func ParseLowLatency(l string) ([]LowLatency, bool) {
	t := clean(l)
	rank, e := -1, -1
	if strings.HasPrefix(t, "[rank ") {
		e = strings.IndexByte(t, ']')
		if e < 0 {
			return nil, false
		}
		r, err := strconv.Atoi(strings.TrimSpace(t[len("[rank "):e]))
		if err != nil || r < 0 {
			return nil, false
		}
		rank = r
	} else if !strings.HasPrefix(t, "Dispatch") && !strings.HasPrefix(t, "Combine") {
		return nil, false
	}
	var out []LowLatency
	for _, part := range strings.Split(t[e+1:], "|") {
		op, rest, ok := strings.Cut(part, " bandwidth:")
		if !ok {
			return nil, false
		}
		r := LowLatency{Rank: rank, Op: strings.ToLower(strings.ReplaceAll(strings.TrimSpace(op), " ", ""))}
		for i, f := range strings.Split(rest, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			if i == 0 {
				v, ok := number(strings.TrimSuffix(f, " GB/s"))
				if !ok || !strings.HasSuffix(f, " GB/s") {
					return nil, false
				}
				r.GBs = v
				continue
			}
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			x, ok := number(strings.TrimSuffix(v, " us"))
			if !ok {
				continue
			}
			switch k {
			case "avg_t":
				r.AvgUS = x
			case "min_t":
				r.MinUS = x
			case "max_t":
				r.MaxUS = x
			}
		}
		out = append(out, r)
	}
	return out, len(out) > 0
}

func number(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil && v >= 0 && v == v && v < 1e300
}
