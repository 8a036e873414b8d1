// Package fiinfo reads libfabric's fi_info in its default, short layout
// (util/info.c): for each endpoint a provider offers, a "provider: efa"
// line and its indented "fabric:", "domain:", "version:", "type:" and
// "protocol:" lines ("    domain: efa_0-rdm", "    type: FI_EP_RDM").
package fiinfo

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoData says the text holds no "provider:" block.
var ErrNoData = errors.New("no fi_info provider: block")

// Entry is one endpoint fi_info lists.
type Entry struct {
	// Provider is the provider, with the utility providers layered over
	// it ("efa", "efa;ofi_rxd", "verbs;ofi_rxm").
	Provider                                string
	Fabric, Domain, Version, Type, Protocol string
	// Line is the 1-based line of "provider:".
	Line int
}

// Info is one fi_info output.
type Info struct {
	Entries []Entry
}

// Header says whether t (trimmed) and the trimmed line after it start an
// fi_info block: "provider: X" then "fabric: Y".
func Header(t, next string) bool {
	return strings.HasPrefix(t, "provider: ") && len(t) > len("provider: ") && strings.HasPrefix(next, "fabric: ")
}

// Parse reads fi_info's short output; other lines are skipped.
func Parse(r io.Reader, source string) (*Info, error) {
	in := &Info{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	var cur *Entry
	n := 0
	for sc.Scan() {
		n++
		t := strings.TrimSpace(sc.Text())
		key, val, ok := strings.Cut(t, ": ")
		if !ok {
			if t != "" {
				cur = nil
			}
			continue
		}
		val = strings.TrimSpace(val)
		if key == "provider" {
			if val == "" || strings.ContainsAny(val, " \t") {
				cur = nil
				continue
			}
			in.Entries = append(in.Entries, Entry{Provider: val, Line: n})
			cur = &in.Entries[len(in.Entries)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "fabric":
			cur.Fabric = val
		case "domain":
			cur.Domain = val
		case "version":
			cur.Version = val
		case "type":
			cur.Type = val
		case "protocol":
			cur.Protocol = val
		default:
			cur = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Line: n + 1, Err: err}
	}
	if len(in.Entries) == 0 {
		return nil, &parse.Error{Source: source, Line: 1, Err: ErrNoData}
	}
	return in, nil
}
