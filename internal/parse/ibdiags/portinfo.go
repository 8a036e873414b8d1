package ibdiags

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// PortInfo is what the MTU check needs of one `smpquery portinfo LID
// PORT` run: the port's link state and its MTUs.
type PortInfo struct {
	LID  int `json:"lid"`
	Port int `json:"port"`
	// LinkState is "Active", "Down", … as printed.
	LinkState string `json:"link_state,omitempty"`
	// NeighborMTU is the MTU the subnet manager set for the link (the
	// active MTU ibv_devinfo shows on a CA port); MTUCap the largest the
	// port supports. Bytes; 0 when the run did not print them.
	NeighborMTU int `json:"neighbor_mtu,omitempty"`
	MTUCap      int `json:"mtu_cap,omitempty"`
	// Line is the line of the run's "# Port info" header.
	Line int `json:"line"`
}

// ParsePortInfo parses the output of `smpquery portinfo LID PORT` runs,
// concatenated:
//
//	# Port info: Lid 2 port 1
//	LinkState:.......................Active
//	NeighborMTU:.....................2048
//	MtuCap:..........................2048
//
// Fields other than these are skipped; a run that failed prints its
// error (ibwarn, iberror) and is skipped too: the collection records the
// failure. An MTU that is not one of 256…4096 is an error naming the line.
func ParsePortInfo(r io.Reader, src string) ([]PortInfo, error) {
	var out []PortInfo
	var cur *PortInfo
	n := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if h, ok := strings.CutPrefix(line, "# Port info: Lid "); ok {
			lid, port, ok := strings.Cut(h, " port ")
			l, err1 := strconv.Atoi(lid)
			p, err2 := strconv.Atoi(port)
			if !ok || err1 != nil || err2 != nil || l <= 0 || l > 0xffff || p < 0 || p > 254 {
				return nil, perr(src, n, line, "want `# Port info: Lid N port M`")
			}
			out = append(out, PortInfo{LID: l, Port: p, Line: n})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.TrimLeft(val, ".")
		switch key {
		case "LinkState":
			cur.LinkState = val
		case "NeighborMTU", "MtuCap":
			m, err := strconv.Atoi(val)
			if err != nil || !validMTU(m) {
				return nil, perr(src, n, line, "%s %q is not an IB MTU (256, 512, 1024, 2048 or 4096)", key, val)
			}
			if key == "MtuCap" {
				cur.MTUCap = m
			} else {
				cur.NeighborMTU = m
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if len(out) == 0 {
		return nil, noData(src, "`# Port info` blocks")
	}
	return out, nil
}

func validMTU(m int) bool {
	return m == 256 || m == 512 || m == 1024 || m == 2048 || m == 4096
}
