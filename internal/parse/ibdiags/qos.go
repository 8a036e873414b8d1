package ibdiags

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SL2VLRow is one row of `smpquery sl2vl`: the VL that packets of each
// service level use when they enter a switch on port In and leave on port
// Out (IBA 7.6.6 SLtoVLMappingTable). For a channel adapter In and Out are
// both 0: one table for the port. VL 15 means the SL is dropped.
type SL2VLRow struct {
	LID  int     `json:"lid"`
	In   int     `json:"in"`
	Out  int     `json:"out"`
	VL   [16]int `json:"vl"`
	Line int     `json:"line"`
}

// VLArbEntry is one (VL, weight) pair of a VL arbitration table.
type VLArbEntry struct {
	VL     int `json:"vl"`
	Weight int `json:"weight"`
}

// VLArbTable is `smpquery vlarb` for one port: the high- and low-priority
// arbitration tables (IBA 7.6.9), with their capacities.
type VLArbTable struct {
	LID     int          `json:"lid"`
	Port    int          `json:"port"`
	LowCap  int          `json:"low_cap"`
	HighCap int          `json:"high_cap"`
	Low     []VLArbEntry `json:"low"`
	High    []VLArbEntry `json:"high"`
	Line    int          `json:"line"`
}

// Weight returns the sum of vl's weights over both tables.
func (t VLArbTable) Weight(vl int) int {
	w := 0
	for _, tab := range [][]VLArbEntry{t.Low, t.High} {
		for _, e := range tab {
			if e.VL == vl {
				w += e.Weight
			}
		}
	}
	return w
}

// ParseSL2VL parses the output of one or more `smpquery sl2vl LID [PORT]`
// runs, concatenated:
//
//	# SL2VL table: Lid 4
//	#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|
//	ports: in  0, out  5: | 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2|15|
func ParseSL2VL(r io.Reader, src string) ([]SL2VLRow, error) {
	var rows []SL2VLRow
	lid := -1
	n := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "ibwarn:") || strings.Contains(line, "smpquery: iberror:"):
			// A failed run prints its error on stdout; the collection
			// records the failure.
			continue
		case strings.HasPrefix(line, "# SL2VL table: Lid "):
			v, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "# SL2VL table: Lid ")))
			if err != nil || v <= 0 || v > 0xffff {
				return nil, perr(src, n, line, "bad LID in SL2VL header")
			}
			lid = v
		case strings.HasPrefix(line, "ports:"):
			if lid < 0 {
				return nil, perr(src, n, line, "SL2VL row before a `# SL2VL table: Lid N` header")
			}
			row, err := parseSL2VLRow(line)
			if err != nil {
				return nil, perr(src, n, line, "%v", err)
			}
			row.LID, row.Line = lid, n
			rows = append(rows, row)
		case strings.HasPrefix(line, "#"):
			continue
		default:
			return nil, perr(src, n, line, "not an smpquery sl2vl line")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if len(rows) == 0 {
		return nil, noData(src, "SL2VL rows")
	}
	return rows, nil
}

func parseSL2VLRow(line string) (SL2VLRow, error) {
	var row SL2VLRow
	head, cells, ok := strings.Cut(line, ":|")
	if !ok {
		// "ports: in  0, out  5: | 0|..." has a space before the bar.
		i := strings.LastIndex(line, ": |")
		if i < 0 {
			return row, fmt.Errorf("want `ports: in N, out M: | v|...`")
		}
		head, cells = line[:i], line[i+3:]
	}
	head = strings.TrimPrefix(head, "ports:")
	in, out, ok := strings.Cut(head, ",")
	if !ok {
		return row, fmt.Errorf("want `in N, out M`")
	}
	var err error
	if row.In, err = portField(in, "in"); err != nil {
		return row, err
	}
	if row.Out, err = portField(out, "out"); err != nil {
		return row, err
	}
	f := strings.Split(strings.TrimSuffix(strings.TrimSpace(cells), "|"), "|")
	if len(f) != 16 {
		return row, fmt.Errorf("want 16 VLs, got %d", len(f))
	}
	for i, s := range f {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 0 || v > 15 {
			return row, fmt.Errorf("bad VL %q for SL %d", strings.TrimSpace(s), i)
		}
		row.VL[i] = v
	}
	return row, nil
}

func portField(s, name string) (int, error) {
	v, ok := strings.CutPrefix(strings.TrimSpace(s), name)
	if !ok {
		return 0, fmt.Errorf("want `%s N`", name)
	}
	p, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || p < 0 || p > 255 {
		return 0, fmt.Errorf("bad %s port %q", name, strings.TrimSpace(v))
	}
	return p, nil
}

// ParseVLArb parses the output of one or more `smpquery vlarb LID [PORT]`
// runs, concatenated:
//
//	# VLArbitration tables: Lid 1 port 1 LowCap 8 HighCap 8
//	# Low priority VL Arbitration Table:
//	VL    : |0x0 |0x1 |0x2 |0x3 |0x0 |0x0 |0x0 |0x0 |
//	WEIGHT: |0x0 |0x40|0x80|0x0 |0x0 |0x0 |0x0 |0x0 |
//	# High priority VL Arbitration Table:
//	...
//
// "# No VLArbitration tables (BSP0): Lid 4 port 0" (a base switch port 0)
// is skipped.
func ParseVLArb(r io.Reader, src string) ([]VLArbTable, error) {
	var out []VLArbTable
	var cur *VLArbTable
	high := false
	var vls []int
	n := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "ibwarn:") || strings.Contains(line, "smpquery: iberror:") || strings.HasPrefix(line, "# No VLArbitration tables"):
			continue
		case strings.HasPrefix(line, "# VLArbitration tables:"):
			var t VLArbTable
			if _, err := fmt.Sscanf(strings.TrimPrefix(line, "# VLArbitration tables:"), " Lid %d port %d LowCap %d HighCap %d", &t.LID, &t.Port, &t.LowCap, &t.HighCap); err != nil ||
				t.LID <= 0 || t.LID > 0xffff || t.Port < 0 || t.Port > 255 || t.LowCap < 0 || t.LowCap > 64 || t.HighCap < 0 || t.HighCap > 64 {
				return nil, perr(src, n, line, "bad VLArbitration header")
			}
			t.Line = n
			out = append(out, t)
			cur = &out[len(out)-1]
			vls = nil
		case strings.HasPrefix(line, "# Low priority"):
			high, vls = false, nil
		case strings.HasPrefix(line, "# High priority"):
			high, vls = true, nil
		case strings.HasPrefix(line, "VL"), strings.HasPrefix(line, "WEIGHT"):
			if cur == nil {
				return nil, perr(src, n, line, "VL arbitration row before a `# VLArbitration tables:` header")
			}
			_, cells, ok := strings.Cut(line, ":")
			if !ok {
				return nil, perr(src, n, line, "want `VL    : |0x0 |...`")
			}
			vals, err := hexCells(cells)
			if err != nil {
				return nil, perr(src, n, line, "%v", err)
			}
			if strings.HasPrefix(line, "VL") {
				for _, v := range vals {
					if v > 15 {
						return nil, perr(src, n, line, "VL %d out of range", v)
					}
				}
				vls = vals
				continue
			}
			if vls == nil || len(vls) != len(vals) {
				return nil, perr(src, n, line, "WEIGHT row without a VL row of the same length")
			}
			entries := make([]VLArbEntry, len(vals))
			for i := range vals {
				if vals[i] > 255 {
					return nil, perr(src, n, line, "weight %d out of range", vals[i])
				}
				entries[i] = VLArbEntry{VL: vls[i], Weight: vals[i]}
			}
			if high {
				cur.High = append(cur.High, entries...)
			} else {
				cur.Low = append(cur.Low, entries...)
			}
			vls = nil
		case strings.HasPrefix(line, "#"):
			continue
		default:
			return nil, perr(src, n, line, "not an smpquery vlarb line")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if len(out) == 0 {
		return nil, noData(src, "VL arbitration tables")
	}
	return out, nil
}

func hexCells(s string) ([]int, error) {
	var out []int
	for _, c := range strings.Split(s, "|") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		v, err := strconv.ParseInt(c, 0, 32)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad value %q", c)
		}
		out = append(out, int(v))
	}
	if len(out) == 0 || len(out) > 64 {
		return nil, fmt.Errorf("want 1-64 values, got %d", len(out))
	}
	return out, nil
}
