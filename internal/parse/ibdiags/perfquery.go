package ibdiags

import (
	"io"
	"strconv"
	"strings"
)

// PerfQuery is perfquery's output: one block per queried port.
type PerfQuery struct {
	Blocks []PerfBlock `json:"blocks"`
}

// PerfBlock is one "# Port counters: Lid 2 port 1 (CapMask: 0x1200)" or
// "# Port extended counters: ..." block with its "Name:.....value" lines.
// Values are as the PMA reports them: PortXmitData/PortRcvData are in
// 4-octet words (perfquery does not convert them).
type PerfBlock struct {
	Extended bool `json:"extended"`
	// Set names an attribute other than PortCounters and
	// PortCountersExtended ("# PortRcvErrorDetails counters: Lid 134
	// port 1" of perfquery -E, PortXmitDiscardDetails of -D …); "" for
	// those two.
	Set string `json:"set,omitempty"`
	LID int    `json:"lid"`
	// Port is the port number; 255 for perfquery -a ("port ALL").
	Port     int               `json:"port"`
	CapMask  uint64            `json:"cap_mask"`
	Counters map[string]uint64 `json:"counters"`
	Line     int               `json:"line"`
	// NoHeader marks a block pasted without its "# Port counters:" line:
	// LID unknown (0), Port read from its PortSelect counter.
	NoHeader bool `json:"no_header,omitempty"`
}

// ParsePerfQuery parses perfquery output (PortCounters and/or
// PortCountersExtended blocks).
func ParsePerfQuery(r io.Reader, src string) (*PerfQuery, error) {
	pq := &PerfQuery{}
	var cur *PerfBlock
	wrapped := false // the last line was a header with its "(" left open
	err := scanLines(r, src, func(n int, raw string) error {
		line := strings.TrimSpace(raw)
		if line == "" {
			return nil
		}
		if h, ok := strings.CutPrefix(line, "# Port"); ok {
			b := PerfBlock{Counters: map[string]uint64{}, Line: n}
			switch {
			case strings.HasPrefix(h, " counters:"):
				h = strings.TrimPrefix(h, " counters:")
			case strings.HasPrefix(h, " extended counters:"):
				b.Extended = true
				h = strings.TrimPrefix(h, " extended counters:")
			case perfSetName("Port" + strings.SplitN(h, " ", 2)[0]):
				// perfquery's other attributes print "# <Attribute>
				// counters: Lid N port P" (infiniband-diags
				// perfquery.c dump_perfcounters / dump_one_mad).
				set, rest, _ := strings.Cut(h, " counters:")
				b.Set, h = "Port"+set, rest
			default:
				return perr(src, n, raw, "unknown perfquery block")
			}
			f := strings.Fields(strings.NewReplacer("(", " ", ")", " ").Replace(h))
			if len(f) < 4 || f[0] != "Lid" || f[2] != "port" {
				return perr(src, n, raw, `want "Lid N port P"`)
			}
			lid, ok1 := parseUint(f[1], 0xffff)
			port, ok2 := parseUint(f[3], 255)
			if f[3] == "ALL" {
				port, ok2 = 255, true
			}
			if !ok1 || !ok2 {
				return perr(src, n, raw, "bad LID or port")
			}
			b.LID, b.Port = int(lid), int(port)
			for i := 4; i+1 < len(f); i++ {
				if f[i] == "CapMask:" {
					v, err := strconv.ParseUint(strings.TrimPrefix(f[i+1], "0x"), 16, 64)
					if err != nil {
						return perr(src, n, raw, "bad CapMask %q", f[i+1])
					}
					b.CapMask = v
				}
			}
			pq.Blocks = append(pq.Blocks, b)
			cur = &pq.Blocks[len(pq.Blocks)-1]
			wrapped = strings.Count(h, "(") > strings.Count(h, ")")
			return nil
		}
		if line[0] == '#' {
			return nil
		}
		name, val, ok := strings.Cut(line, ":")
		if !ok && wrapped && strings.HasSuffix(line, ")") {
			// The end of a block header a mail client wrapped
			// ("(CapMask: 0x1600 CapMask2:" / "0x0000000)").
			wrapped = false
			return nil
		}
		wrapped = false
		if ok && cur == nil && strings.HasPrefix(val, "..") {
			// A block pasted without its "# Port counters: Lid …"
			// line (cut, or the command's own line above it): its
			// port is PortSelect, its LID unknown (0).
			pq.Blocks = append(pq.Blocks, PerfBlock{Counters: map[string]uint64{}, Line: n, NoHeader: true})
			cur = &pq.Blocks[len(pq.Blocks)-1]
		}
		if !ok || cur == nil {
			return perr(src, n, raw, `want "# Port counters:" or "Name:....value"`)
		}
		val = strings.TrimLeft(val, ".")
		var v uint64
		var err error
		if h, ok := strings.CutPrefix(val, "0x"); ok {
			v, err = strconv.ParseUint(h, 16, 64)
		} else {
			v, err = strconv.ParseUint(val, 10, 64)
		}
		if err != nil || name == "" || strings.ContainsAny(name, " \t") {
			return perr(src, n, raw, "bad counter line")
		}
		if _, dup := cur.Counters[name]; dup {
			return perr(src, n, raw, "counter %s repeated in one block", name)
		}
		cur.Counters[name] = v
		if name == "PortSelect" && cur.NoHeader && v <= 255 {
			cur.Port = int(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(pq.Blocks) == 0 {
		return nil, noData(src, "perfquery block")
	}
	return pq, nil
}

// perfSetName says whether s is a perfquery attribute name other than
// PortCounters ("PortRcvErrorDetails", "PortXmitDiscardDetails",
// "PortVLXmitWaitCounters" …): one word of letters.
func perfSetName(s string) bool {
	if len(s) <= len("Port") || s == "Port" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// PerfQueryHeader matches the line perfquery prints above each block:
// "# Port counters: Lid 2 port 1 …", "# Port extended counters: …", and
// its other attributes' "# PortRcvErrorDetails counters: Lid 134 port 1".
func PerfQueryHeader(t string) bool {
	h, ok := strings.CutPrefix(t, "# Port")
	if !ok {
		return false
	}
	if strings.HasPrefix(h, " counters: Lid ") || strings.HasPrefix(h, " extended counters: Lid ") {
		return true
	}
	set, rest, ok := strings.Cut(h, " counters: Lid ")
	return ok && rest != "" && perfSetName("Port"+set)
}
