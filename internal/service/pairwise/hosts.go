package pairwise

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/ibdoctor/ibdoctor/internal/parse"
	"io"
	"net"
	"strconv"
	"strings"
)

// ErrMalformed is wrapped by every ParseError about a line that does not
// have the expected form.
var ErrMalformed = errors.New("malformed line")

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

// Host is one agent from the hosts file.
type Host struct {
	// Addr is the agent's HTTP address, host:port.
	Addr string `json:"addr"`
	// Name identifies the node in the matrix, findings and topology file;
	// it defaults to the host part of Addr.
	Name string `json:"name"`
	// Line is the line of the hosts file the agent was read from.
	Line int `json:"-"`
}

// IP returns the host part of Addr, which the peer's test client connects to.
func (h Host) IP() string {
	host, _, _ := net.SplitHostPort(h.Addr)
	return host
}

const (
	maxLineBytes = 4096
	maxHosts     = 100000
)

// ParseHosts reads a hosts file: one agent per line as `address:port`,
// optionally followed by a node name; '#' starts a comment, blank lines are
// skipped. IPv6 addresses are bracketed ([fd00::1]:9464). Duplicate
// addresses or names are errors. source names the file in errors.
//
//	# agents of rack 12
//	10.0.12.1:9464   gpu001
//	10.0.12.2:9464   gpu002
//	gpu003.cluster:9464
func ParseHosts(r io.Reader, source string) ([]Host, error) {
	var hosts []Host
	byAddr := map[string]int{}
	byName := map[string]int{}
	err := scanLines(r, source, func(n int, line string) error {
		fields := strings.Fields(line)
		if len(fields) > 2 {
			return fmt.Errorf("%w: want `address:port [name]`, got %d fields", ErrMalformed, len(fields))
		}
		host, port, err := net.SplitHostPort(fields[0])
		if err != nil {
			return fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		if err := validHost(host); err != nil {
			return err
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("%w: port %q is not a number from 1 to 65535", ErrMalformed, port)
		}
		h := Host{Addr: net.JoinHostPort(host, strconv.Itoa(p)), Name: host, Line: n}
		if len(fields) == 2 {
			if !validName(fields[1]) {
				return fmt.Errorf("%w: node name %q: want letters, digits and ._:/-", ErrMalformed, fields[1])
			}
			h.Name = fields[1]
		}
		if prev, dup := byAddr[h.Addr]; dup {
			return fmt.Errorf("%w: agent %s already listed on line %d", ErrMalformed, h.Addr, prev)
		}
		if prev, dup := byName[h.Name]; dup {
			return fmt.Errorf("%w: node name %s already used on line %d (give each agent its own name)", ErrMalformed, h.Name, prev)
		}
		if len(hosts) >= maxHosts {
			return fmt.Errorf("%w: more than %d agents", ErrMalformed, maxHosts)
		}
		byAddr[h.Addr], byName[h.Name] = n, n
		hosts = append(hosts, h)
		return nil
	})
	return hosts, err
}

// scanLines calls fn for every non-blank line with its comment removed,
// wrapping fn's errors in a ParseError.
func scanLines(r io.Reader, source string, fn func(n int, line string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), maxLineBytes)
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Text()
		line := raw
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := fn(n, line); err != nil {
			return &ParseError{Source: source, Line: n, Input: raw, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &ParseError{Source: source, Line: n + 1, Err: fmt.Errorf("%w: line longer than %d bytes", ErrMalformed, maxLineBytes)}
		}
		return fmt.Errorf("%s: %w", source, err)
	}
	return nil
}

// validHost accepts an IP address or a DNS name (RFC 1123 labels).
func validHost(h string) error {
	if net.ParseIP(h) != nil {
		return nil
	}
	if h == "" || len(h) > 253 {
		return fmt.Errorf("%w: host %q is empty or too long", ErrMalformed, h)
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("%w: host %q is not an IP address or DNS name", ErrMalformed, h)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("%w: host %q is not an IP address or DNS name", ErrMalformed, h)
			}
		}
	}
	return nil
}

// validName accepts node, leaf, rail and spine names: 1–128 letters,
// digits and ._:/- characters.
func validName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._:/-", c)) {
			return false
		}
	}
	return true
}
