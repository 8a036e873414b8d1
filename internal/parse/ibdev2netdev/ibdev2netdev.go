package ibdev2netdev

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoData is returned when the input holds no ibdev2netdev line.
var ErrNoData = errors.New("no ibdev2netdev line")

// ErrMalformed is wrapped by every ParseError.
var ErrMalformed = errors.New("malformed ibdev2netdev line")

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

// Entry is one line: an RDMA port and the netdev on it.
type Entry struct {
	// PCI, Model ("MT4115") and PortState ("ACTIVE", "DOWN", "INIT")
	// are printed by -v only; empty otherwise.
	PCI       pcie.Address `json:"pci,omitempty"`
	Model     string       `json:"model,omitempty"`
	Device    string       `json:"device"`
	Port      int          `json:"port"`
	PortState string       `json:"port_state,omitempty"`
	NetDev    string       `json:"netdev"`
	// Up is the netdev's state as the script prints it: "(Up)" when its
	// operstate is up, "(Down)" otherwise.
	Up   bool   `json:"up"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Map is the parsed output.
type Map struct {
	Entries []Entry `json:"entries"`
}

// reLine is one line with its spacing squeezed: "[pci ]dev [(model - psid)
// description fw X ]port N [(STATE) ]==> netdev (Up|Down)[ note]".
var reLine = regexp.MustCompile(`^(?:([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) )?([\w.-]+) (?:\(([^ )]+)[^)]*\) .*?)?port (\d+) (?:\(([A-Z_]+) ?\) )?==> (\S+) \((Up|Down)\)(?: .*)?$`)

// Line parses one line; ok is false when it is not an ibdev2netdev line.
func Line(l string) (Entry, bool) {
	t := strings.Join(strings.Fields(l), " ")
	if !strings.Contains(t, " ==> ") {
		return Entry{}, false
	}
	m := reLine.FindStringSubmatch(t)
	if m == nil {
		return Entry{}, false
	}
	port, err := strconv.Atoi(m[4])
	if err != nil || port < 1 || port > 255 {
		return Entry{}, false
	}
	e := Entry{Device: m[2], Model: m[3], Port: port, PortState: m[5], NetDev: m[6], Up: m[7] == "Up", Text: strings.TrimSpace(l)}
	if m[1] != "" {
		a, err := pcie.ParseAddress(m[1])
		if err != nil {
			return Entry{}, false
		}
		e.PCI = a
	}
	return e, true
}

// Parse reads ibdev2netdev output; blank lines are skipped, any other
// line that is not an ibdev2netdev line is an error naming it.
func Parse(r io.Reader, source string) (*Map, error) {
	m := &Map{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.TrimSpace(l) == "" {
			continue
		}
		e, ok := Line(l)
		if !ok {
			return nil, &ParseError{Source: source, Line: n, Input: l, Err: fmt.Errorf(`%w: want "<dev> port <n> ==> <netdev> (Up|Down)"`, ErrMalformed)}
		}
		e.Line = n
		m.Entries = append(m.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	if len(m.Entries) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoData}
	}
	return m, nil
}

// IPoIB says whether a netdev name is an IPoIB interface's: the kernel's
// "ib%d", systemd's predictable "ibp…"/"ibs…", a child "ib0.8001".
func IPoIB(netdev string) bool {
	rest, ok := strings.CutPrefix(netdev, "ib")
	return ok && rest != "" && (rest[0] >= '0' && rest[0] <= '9' || rest[0] == 'p' || rest[0] == 's' || rest[0] == 'P')
}

// Card returns the key shared by the functions of one card: the -v PCI
// address without its function, else the systemd predictable name
// without its function and port ("enp27s0f1np1" → "enp27s0",
// "ens4f0" → "ens4"); "" when the name says nothing.
func Card(e Entry) string {
	if e.PCI != "" {
		s := string(e.PCI)
		return s[:len(s)-2]
	}
	n := e.NetDev
	if i := strings.LastIndex(n, "np"); i > 0 && isDigits(n[i+2:]) {
		n = n[:i]
	}
	i := strings.LastIndexByte(n, 'f')
	if i <= 0 || !isDigits(n[i+1:]) {
		return ""
	}
	stem := n[:i]
	if !strings.HasPrefix(stem, "en") && !strings.HasPrefix(stem, "ib") || !strings.ContainsAny(stem[len(stem)-1:], "0123456789") {
		return ""
	}
	return stem
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
