package ibdiags

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// Saturated is one line of infiniband-exporter (github.com/guilbaults/
// infiniband-exporter, which reads ibqueryerrors) saying a port's error
// counter sits at its maximum: "WARNING - Counters on 0xc42a10300dd0c0e
// port 1 is maxed out on PortRcvErrors".
type Saturated struct {
	GUID    string `json:"guid"`
	Port    int    `json:"port"`
	Counter string `json:"counter"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
}

// SaturatedLine reads such a line, behind any prefix (the log's time
// and level, a diff's "< ").
func SaturatedLine(l string) (Saturated, bool) {
	i := strings.Index(l, "Counters on ")
	if i < 0 {
		return Saturated{}, false
	}
	f := strings.Fields(l[i+len("Counters on "):])
	// GUID port N is maxed out on COUNTER
	if len(f) < 8 || f[1] != "port" || f[3] != "is" || f[4] != "maxed" || f[5] != "out" || f[6] != "on" || !strings.HasPrefix(f[0], "0x") {
		return Saturated{}, false
	}
	p, err := strconv.Atoi(f[2])
	if err != nil || p < 0 || p > 255 || f[7] == "" {
		return Saturated{}, false
	}
	return Saturated{GUID: f[0], Port: p, Counter: f[7], Text: strings.TrimSpace(l)}, true
}

// ParseSaturated reads the lines of SaturatedLine from r; line numbers
// count from first. It fails with ErrNoData when r holds none.
func ParseSaturated(r io.Reader, source string, first int) ([]Saturated, error) {
	var out []Saturated
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := first; sc.Scan(); n++ {
		if s, ok := SaturatedLine(sc.Text()); ok {
			s.Line = n
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, noData(source, "infiniband-exporter counter line")
	}
	return out, nil
}
