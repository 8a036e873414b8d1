package hub

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// Target is one agent the hub polls.
type Target struct {
	// Name is the node the agent reports on: the name given on its line,
	// else the host part of its address (host:port when two agents share
	// a host).
	Name string `json:"name"`
	// Base is the agent's URL without a trailing slash
	// (http://gpu01:9315).
	Base string `json:"url"`
	// Addr is the host:port part of Base.
	Addr string `json:"addr"`
}

// ParseAgents reads an agents file: one agent per line as host:port or
// http(s)://host:port[/prefix], optionally followed by the node's name;
// '#' starts a comment, blank lines are skipped. A bad line is an error
// naming source and line.
//
//	# rack 12
//	gpu001:9315
//	http://10.0.12.2:9315 gpu002
func ParseAgents(r io.Reader, source string) ([]Target, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), 4096)
	var out []Target
	lineOf := map[string]int{}
	named := map[int]bool{}
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Text()
		line := raw
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		perr := func(err error) error { return &parse.Error{Source: source, Line: n, Input: raw, Err: err} }
		if len(fields) > 2 {
			return nil, perr(fmt.Errorf("want `host:port [name]` or `URL [name]`, got %d fields", len(fields)))
		}
		t, err := parseTarget(fields[0])
		if err != nil {
			return nil, perr(err)
		}
		if len(fields) == 2 {
			if !validName(fields[1]) {
				return nil, perr(fmt.Errorf("node name %q: want 1 to 128 letters, digits and ._:-", fields[1]))
			}
			t.Name = fields[1]
			named[len(out)] = true
		}
		if prev, dup := lineOf["addr "+t.Base]; dup {
			return nil, perr(fmt.Errorf("agent %s already listed on line %d", t.Base, prev))
		}
		lineOf["addr "+t.Base] = n
		out = append(out, t)
		if len(out) > 100000 {
			return nil, perr(errors.New("more than 100000 agents"))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", source, n+1, err)
	}
	// Agents that share a host without a name of their own are told apart
	// by their port.
	count := map[string]int{}
	for _, t := range out {
		count[t.Name]++
	}
	names := map[string]int{}
	for i := range out {
		if !named[i] && count[out[i].Name] > 1 {
			out[i].Name = out[i].Addr
		}
		if j, dup := names[out[i].Name]; dup {
			return nil, fmt.Errorf("%s: node name %s is used by two agents (%s and %s): give each its own name", source, out[i].Name, out[j].Base, out[i].Base)
		}
		names[out[i].Name] = i
	}
	return out, nil
}

// parseTarget reads host:port or an http(s) URL.
func parseTarget(s string) (Target, error) {
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return Target{}, err
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return Target{}, fmt.Errorf("%q: want an http:// or https:// URL", s)
		}
		if u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return Target{}, fmt.Errorf("%q: want scheme://host:port[/prefix] without user, query or fragment", s)
		}
		host, port := u.Hostname(), u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		if err := checkHostPort(host, port); err != nil {
			return Target{}, err
		}
		return Target{Name: host, Base: strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), Addr: net.JoinHostPort(host, port)}, nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return Target{}, fmt.Errorf("%q: want host:port or an http:// URL", s)
	}
	if err := checkHostPort(host, port); err != nil {
		return Target{}, err
	}
	// "gpu01:09315" is gpu01:9315, listed once.
	addr := net.JoinHostPort(host, strings.TrimLeft(port, "0"))
	return Target{Name: host, Base: "http://" + addr, Addr: addr}, nil
}

func checkHostPort(host, port string) error {
	p, err := strconv.Atoi(port)
	// Atoi takes a sign ("+9315"), which no URL's port may have.
	if err != nil || p < 1 || p > 65535 || strings.Trim(port, "0123456789") != "" {
		return fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	if net.ParseIP(host) != nil {
		return nil
	}
	if host == "" || len(host) > 253 {
		return fmt.Errorf("host %q is empty or too long", host)
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("host %q is not an IP address or DNS name", host)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("host %q is not an IP address or DNS name", host)
			}
		}
	}
	return nil
}

func validName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._:-", c)) {
			return false
		}
	}
	return true
}
