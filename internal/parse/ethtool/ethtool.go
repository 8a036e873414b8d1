package ethtool

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/ibdoctor/ibdoctor/internal/parse"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ErrNoData is returned when the input holds no statistic.
var ErrNoData = errors.New("no ethtool statistics")

// ErrMalformed is wrapped by every ParseError.
var ErrMalformed = errors.New("malformed ethtool -S line")

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

// Stat is one named driver statistic.
type Stat struct {
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// Stats are the statistics of one interface, sorted by name.
type Stats struct {
	// NetDev is the interface name ("ens1f0np0").
	NetDev string `json:"netdev"`
	// Source is where they were read ("cmd/ethtool-S-ens1f0np0.txt",
	// "SIOCETHTOOL").
	Source string `json:"source"`
	Stats  []Stat `json:"stats"`
}

// Get returns a statistic by name.
func (s *Stats) Get(name string) (uint64, bool) {
	if s == nil {
		return 0, false
	}
	i, ok := slices.BinarySearchFunc(s.Stats, name, func(st Stat, n string) int { return strings.Compare(st.Name, n) })
	if !ok {
		return 0, false
	}
	return s.Stats[i].Value, true
}

// Sum adds the values of the named statistics that exist; n counts them.
func (s *Stats) Sum(names ...string) (sum uint64, n int) {
	for _, name := range names {
		if v, ok := s.Get(name); ok {
			sum += v
			n++
		}
	}
	return sum, n
}

// QueueSum adds the statistic name over the device and its queues: the
// value of name itself and of every per-queue "rxq0: name", "[3]: name"
// (be2net, ena and others prefix the queue); n counts the statistics
// added.
func (s *Stats) QueueSum(name string) (sum uint64, n int) {
	if s == nil {
		return 0, 0
	}
	suffix := ": " + name
	for _, st := range s.Stats {
		if st.Name == name || strings.HasSuffix(st.Name, suffix) {
			sum += st.Value
			n++
		}
	}
	return sum, n
}

// New builds Stats from name/value pairs, trimming names (some kernels
// emitted "tx_pause_storm_warning_events " with a trailing space) and
// sorting them. A duplicate name keeps the last value.
func New(netdev, source string, kv map[string]uint64) *Stats {
	s := &Stats{NetDev: netdev, Source: source}
	for k, v := range kv {
		s.Stats = append(s.Stats, Stat{Name: strings.TrimSpace(k), Value: v})
	}
	sortStats(s)
	return s
}

func sortStats(s *Stats) {
	slices.SortStableFunc(s.Stats, func(a, b Stat) int { return strings.Compare(a.Name, b.Name) })
	s.Stats = slices.CompactFunc(s.Stats, func(a, b Stat) bool { return a.Name == b.Name })
}

// Parse reads `ethtool -S <netdev>` output: an optional "NIC statistics:"
// header, then "     name: value" lines. Names are everything before the
// last ": " (drivers with per-queue prefixes print "[0]: rx_bytes: 1" or
// "rxq0: rx_pkts: 1"). A value that is not an unsigned decimal is an error
// naming the line, and the whole input is rejected: a half-read stats file
// would make rate rules compare unrelated numbers.
func Parse(r io.Reader, netdev, source string) (*Stats, error) {
	s := &Stats{NetDev: netdev, Source: source}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		t := strings.TrimSpace(line)
		if t == "" || t == "NIC statistics:" {
			continue
		}
		i := strings.LastIndex(t, ":")
		if i <= 0 {
			return nil, &ParseError{Source: source, Line: n, Input: line, Err: fmt.Errorf("%w: want \"name: value\"", ErrMalformed)}
		}
		name, val := strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+1:])
		v, err := strconv.ParseUint(val, 10, 64)
		if err != nil || name == "" {
			return nil, &ParseError{Source: source, Line: n, Input: line, Err: fmt.Errorf("%w: value %q is not an unsigned integer", ErrMalformed, val)}
		}
		s.Stats = append(s.Stats, Stat{Name: name, Value: v})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s line %d: %w", source, n+1, err)
	}
	if len(s.Stats) == 0 {
		return nil, fmt.Errorf("%s: %w", source, ErrNoData)
	}
	sortStats(s)
	return s, nil
}

// Detect reports whether text is `ethtool -S` output: its first non-blank
// line is "NIC statistics:".
func Detect(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t == "NIC statistics:"
		}
	}
	return false
}

// rePair is one "name: value" counter; names of every driver: per-queue
// prefixes ("rx0_packets", "[0]: rx_bytes" is not split), Intel's ".nic"
// suffix, dots and dashes.
var rePair = regexp.MustCompile(`(?:^|\s)([A-Za-z][A-Za-z0-9_.\[\]-]*): (\d+)(?:\s|$)`)

// Pairs returns the "name: value" counters of one line: a whole `ethtool
// -S` output collapsed onto one line (a markdown table cell, a chat
// message) holds many; an ordinary counter line one.
func Pairs(line string) []Stat {
	var out []Stat
	rest := line
	for {
		loc := rePair.FindStringSubmatchIndex(rest)
		if loc == nil {
			return out
		}
		v, err := strconv.ParseUint(rest[loc[4]:loc[5]], 10, 64)
		if err == nil {
			out = append(out, Stat{Name: rest[loc[2]:loc[3]], Value: v})
		}
		// The separator after a value may start the next pair.
		rest = rest[loc[5]:]
	}
}

// DetectBody reports whether text is the body of `ethtool -S` pasted
// without its "NIC statistics:" header: most of its first non-blank lines
// are "name: value" counters with rx/tx names, or one line holds a whole
// output (`ethtool -S` named on it and many counters).
func DetectBody(text string) bool {
	seen, hits, rxtx := 0, 0, 0
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(strings.TrimRight(line, "\r"))
		if t == "" {
			continue
		}
		seen++
		ps := Pairs(t)
		if len(ps) >= 4 && (strings.Contains(t, "ethtool -S") || strings.Contains(t, "ethtool --statistics")) {
			return true
		}
		if len(ps) == 1 && strings.HasSuffix(t, strconv.FormatUint(ps[0].Value, 10)) {
			hits++
			if n := ps[0].Name; strings.HasPrefix(n, "rx") || strings.HasPrefix(n, "tx") {
				rxtx++
			}
		}
		if seen == 50 {
			break
		}
	}
	return seen >= 4 && hits*4 >= seen*3 && rxtx*2 >= hits
}
