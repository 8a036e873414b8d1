package ncclenv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/ibdoctor/ibdoctor/internal/parse"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ErrMalformed is wrapped by every ParseError.
var ErrMalformed = errors.New("malformed environment line")

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

// Var is one environment variable.
type Var struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Env is a job's environment, sorted by name.
type Env struct {
	// Source is where it was read ("/proc/4242/environ", "--env",
	// "nccl.env").
	Source string `json:"source"`
	Vars   []Var  `json:"vars"`
}

// Get returns a variable's value and whether it is set.
func (e *Env) Get(name string) (string, bool) {
	if e == nil {
		return "", false
	}
	i, ok := slices.BinarySearchFunc(e.Vars, name, func(v Var, n string) int { return strings.Compare(v.Name, n) })
	if !ok {
		return "", false
	}
	return e.Vars[i].Value, true
}

// FromList builds an Env from "KEY=VALUE" strings (os.Environ()). Of
// duplicate names the first is kept, as glibc getenv finds it.
func FromList(source string, kv []string) *Env {
	e := &Env{Source: source}
	seen := map[string]bool{}
	for _, s := range kv {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || seen[k] {
			continue
		}
		seen[k] = true
		e.Vars = append(e.Vars, Var{Name: k, Value: v})
	}
	slices.SortFunc(e.Vars, func(a, b Var) int { return strings.Compare(a.Name, b.Name) })
	return e
}

// Parse reads an environment: /proc/<pid>/environ (NUL-separated) or a
// KEY=VALUE file (one per line; blank lines, '#' comments, a leading
// "export " and matching single or double quotes around the value are
// accepted, as in a shell script or a Slurm/K8s env file). A line that is
// not an assignment is an error naming it.
func Parse(r io.Reader, source string) (*Env, error) {
	b, err := io.ReadAll(io.LimitReader(r, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		var kv []string
		for _, p := range bytes.Split(b, []byte{0}) {
			if len(p) > 0 {
				kv = append(kv, string(p))
			}
		}
		return FromList(source, kv), nil
	}
	var kv []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(strings.TrimRight(sc.Text(), "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || !validName(k) {
			return nil, &ParseError{Source: source, Line: n, Input: line, Err: fmt.Errorf("%w: want KEY=VALUE", ErrMalformed)}
		}
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		kv = append(kv, k+"="+v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s line %d: %w", source, n+1, err)
	}
	return FromList(source, kv), nil
}

func validName(k string) bool {
	if k == "" {
		return false
	}
	for i, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Config is the network selection of an NCCL job.
type Config struct {
	// IBDisable is NCCL_IB_DISABLE parsed as NCCL's int64 param (non-zero
	// disables); nil when unset or unparsable.
	IBDisable *int64 `json:"ib_disable,omitempty"`
	// IBHCA and SocketIfname are the lists, nil when unset. NCCL ignores
	// a NCCL_SOCKET_IFNAME of one character or less.
	IBHCA        *List `json:"ib_hca,omitempty"`
	SocketIfname *List `json:"socket_ifname,omitempty"`
	// GIDIndex is NCCL_IB_GID_INDEX; nil when unset (NCCL ≥2.21 then picks
	// a RoCE v2 GID itself; older versions use 0).
	GIDIndex *int64 `json:"gid_index,omitempty"`
	// Problems are values NCCL would not parse as numbers.
	Problems []string `json:"problems,omitempty"`
}

// Read extracts the NCCL network configuration of an environment.
func Read(e *Env) Config {
	var c Config
	num := func(name string) *int64 {
		v, ok := e.Get(name)
		if !ok {
			return nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
		if err != nil {
			c.Problems = append(c.Problems, fmt.Sprintf("%s=%q is not an integer; NCCL ignores it", name, v))
			return nil
		}
		return &n
	}
	c.IBDisable = num("NCCL_IB_DISABLE")
	c.GIDIndex = num("NCCL_IB_GID_INDEX")
	if v, ok := e.Get("NCCL_IB_HCA"); ok && v != "" {
		l := ParseList(v)
		c.IBHCA = &l
	}
	if v, ok := e.Get("NCCL_SOCKET_IFNAME"); ok && len(v) > 1 {
		l := ParseList(v)
		c.SocketIfname = &l
	}
	return c
}
