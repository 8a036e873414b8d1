package pairwise

import (
	"fmt"
	"io"
	"strings"
)

// Placement is where one host sits in the fabric.
type Placement struct {
	// Leaf is the leaf (top-of-rack) switch of the host's tested port.
	Leaf string `json:"leaf,omitempty"`
	// Rail is the rail (in rail-optimised clusters, the GPU/NIC index whose
	// ports share a set of leaves).
	Rail string `json:"rail,omitempty"`
	// Spine is the spine switch or spine group the leaf's uplinks go to.
	Spine string `json:"spine,omitempty"`
}

// Topology maps node names (as in the hosts file) to their placement.
type Topology struct {
	Hosts map[string]Placement `json:"hosts"`
}

// place returns the placement of a host; a nil topology or an unknown host
// has none.
func (t *Topology) place(host string) Placement {
	if t == nil {
		return Placement{}
	}
	return t.Hosts[host]
}

// Leaves says whether any host has a leaf.
func (t *Topology) Leaves() bool {
	if t == nil {
		return false
	}
	for _, p := range t.Hosts {
		if p.Leaf != "" {
			return true
		}
	}
	return false
}

// ParseTopology reads a topology file: one host per line, the node name
// first, then either a bare leaf name or key=value fields leaf=, rail= and
// spine=; '#' starts a comment. A host listed twice is an error. source
// names the file in errors.
//
//	# host    leaf            rail and spine are optional
//	gpu001    leaf01
//	gpu002    leaf=leaf01 rail=0 spine=spine-a
func ParseTopology(r io.Reader, source string) (*Topology, error) {
	t := &Topology{Hosts: map[string]Placement{}}
	lines := map[string]int{}
	err := scanLines(r, source, func(n int, line string) error {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			return fmt.Errorf("%w: want `host leaf` or `host leaf=L [rail=R] [spine=S]`", ErrMalformed)
		}
		host := fields[0]
		if !validName(host) {
			return fmt.Errorf("%w: host name %q: want letters, digits and ._:/-", ErrMalformed, host)
		}
		if prev, dup := lines[host]; dup {
			return fmt.Errorf("%w: host %s already placed on line %d", ErrMalformed, host, prev)
		}
		var p Placement
		set := map[string]bool{}
		for i, f := range fields[1:] {
			key, val, kv := strings.Cut(f, "=")
			if !kv {
				if i != 0 {
					return fmt.Errorf("%w: field %q: only the first field after the host may be a bare leaf name", ErrMalformed, f)
				}
				key, val = "leaf", f
			}
			if set[key] {
				return fmt.Errorf("%w: %s given twice", ErrMalformed, key)
			}
			set[key] = true
			if !validName(val) {
				return fmt.Errorf("%w: %s name %q: want letters, digits and ._:/-", ErrMalformed, key, val)
			}
			switch key {
			case "leaf":
				p.Leaf = val
			case "rail":
				p.Rail = val
			case "spine":
				p.Spine = val
			default:
				return fmt.Errorf("%w: unknown key %q (want leaf, rail or spine)", ErrMalformed, key)
			}
		}
		if len(t.Hosts) >= maxHosts {
			return fmt.Errorf("%w: more than %d hosts", ErrMalformed, maxHosts)
		}
		lines[host] = n
		t.Hosts[host] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}
