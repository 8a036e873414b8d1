package expect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// Version is the only file format version so far.
const Version = 1

// maxSize bounds an expectation file; real ones are a few KiB.
const maxSize = 4 << 20

// Expectation is a parsed expectation file.
type Expectation struct {
	// Source is the file name, for messages.
	Source string
	Host   string
	// DriverVersion is the expected mlx5_core version
	// (sys/module/mlx5_core/version, else its srcversion), nil when not
	// checked; DriverLine is its line.
	DriverVersion *string
	DriverLine    int
	Devices       []DeviceEntry
}

// DeviceEntry is one entry of "devices:". Fields left nil are not checked.
type DeviceEntry struct {
	// Name is a device name or a glob (path.Match syntax).
	Name string
	// Count, for a glob, is how many devices must match it.
	Count *int
	// Optional entries do not report port.missing when nothing matches.
	Optional  bool
	HCAType   *string
	FWVersion *string
	PCIe      PCIe
	Ports     []PortEntry
	// Line is where the entry starts in Source.
	Line int
}

// PCIe is the expected link of the device's PCI function.
type PCIe struct {
	Speed *pcie.Speed
	Width *int
}

// PortEntry is one entry of a device's "ports:".
type PortEntry struct {
	Port      int
	LinkLayer *ib.LinkLayer
	State     *ib.PortState
	PhysState *ib.PhysState
	Rate      *ib.Rate
	// Ignore says the port is not judged at all (an uncabled spare).
	Ignore bool
	Line   int
}

// IsGlob reports whether the entry's name is a pattern.
func (d *DeviceEntry) IsGlob() bool { return strings.ContainsAny(d.Name, "*?[") }

// Device is the merged expectation of one device: every entry that matches
// its name applied in order.
type Device struct {
	HCAType   *string
	FWVersion *string
	PCIe      PCIe
	Ports     map[int]*Port
	// Lines are the file lines of the entries that matched, for evidence.
	Lines []int
}

// Port is the merged expectation of one port.
type Port struct {
	LinkLayer *ib.LinkLayer
	State     *ib.PortState
	PhysState *ib.PhysState
	Rate      *ib.Rate
	Ignore    bool
	Line      int
}

// For merges every entry matching dev; ok is false when none matches.
func (e *Expectation) For(dev string) (Device, bool) {
	d := Device{Ports: map[int]*Port{}}
	ok := false
	for i := range e.Devices {
		en := &e.Devices[i]
		if m, _ := path.Match(en.Name, dev); !m {
			continue
		}
		ok = true
		d.Lines = append(d.Lines, en.Line)
		if en.HCAType != nil {
			d.HCAType = en.HCAType
		}
		if en.FWVersion != nil {
			d.FWVersion = en.FWVersion
		}
		if en.PCIe.Speed != nil {
			d.PCIe.Speed = en.PCIe.Speed
		}
		if en.PCIe.Width != nil {
			d.PCIe.Width = en.PCIe.Width
		}
		for _, pe := range en.Ports {
			p := d.Ports[pe.Port]
			if p == nil {
				p = &Port{}
				d.Ports[pe.Port] = p
			}
			p.Line = pe.Line
			if pe.LinkLayer != nil {
				p.LinkLayer = pe.LinkLayer
			}
			if pe.State != nil {
				p.State = pe.State
			}
			if pe.PhysState != nil {
				p.PhysState = pe.PhysState
			}
			if pe.Rate != nil {
				p.Rate = pe.Rate
			}
			if pe.Ignore {
				p.Ignore = true
			}
		}
	}
	return d, ok
}

// ParseError names the file and line of a problem in an expectation file.
type ParseError = parse.Error

// ErrInvalid is wrapped by every ParseError about content (not YAML syntax).
var ErrInvalid = errors.New("invalid expectation")

// Parse reads an expectation file. source names it in errors.
func Parse(r io.Reader, source string) (*Expectation, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSize+1))
	if err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(data) > maxSize {
		return nil, &ParseError{Source: source, Err: fmt.Errorf("%w: larger than %d bytes", ErrInvalid, maxSize)}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ParseError{Source: source, Err: fmt.Errorf("%w: empty file", ErrInvalid)}
		}
		return nil, &ParseError{Source: source, Line: yamlErrLine(err), Err: err}
	}
	p := parser{source: source}
	e, err := p.document(&doc)
	if err != nil {
		return nil, err
	}
	e.Source = source
	return e, nil
}

// yamlErrLine digs "line N" out of a yaml.v3 syntax error, whose type
// carries no field for it.
func yamlErrLine(err error) int {
	s := err.Error()
	i := strings.Index(s, "line ")
	if i < 0 {
		return 0
	}
	j := i + 5
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, _ := strconv.Atoi(s[i+5 : j])
	return n
}

type parser struct{ source string }

func (p *parser) errf(n *yaml.Node, format string, a ...any) error {
	return &ParseError{Source: p.source, Line: n.Line, Err: fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))}
}

// mapping walks a mapping node, rejecting unknown and duplicate keys.
func (p *parser) mapping(n *yaml.Node, what string, fields map[string]func(*yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return p.errf(n, "%s must be a mapping", what)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		fn, ok := fields[k.Value]
		if !ok {
			keys := make([]string, 0, len(fields))
			for f := range fields {
				keys = append(keys, f)
			}
			sortStrings(keys)
			return p.errf(k, "unknown field %q in %s (known: %s)", k.Value, what, strings.Join(keys, ", "))
		}
		if seen[k.Value] {
			return p.errf(k, "field %q repeated in %s", k.Value, what)
		}
		seen[k.Value] = true
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func (p *parser) scalar(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", p.errf(n, "%s must be a single value", what)
	}
	return n.Value, nil
}

func (p *parser) integer(n *yaml.Node, what string, lo, hi int) (int, error) {
	s, err := p.scalar(n, what)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, p.errf(n, "%s must be an integer from %d to %d, not %q", what, lo, hi, s)
	}
	return v, nil
}

// parsed reads a scalar through a domain parser into *dst; hint is added
// to the error.
func parsed[T any](p *parser, v *yaml.Node, what string, parse func(string) (T, error), dst **T, hint string) error {
	s, err := p.scalar(v, what)
	if err != nil {
		return err
	}
	x, err := parse(s)
	if err != nil {
		return p.errf(v, "%s: %v%s", what, err, hint)
	}
	*dst = &x
	return nil
}

func (p *parser) boolean(n *yaml.Node, what string) (bool, error) {
	s, err := p.scalar(n, what)
	if err != nil {
		return false, err
	}
	switch s {
	case "true", "yes":
		return true, nil
	case "false", "no":
		return false, nil
	}
	return false, p.errf(n, "%s must be true or false, not %q", what, s)
}

func (p *parser) document(doc *yaml.Node) (*Expectation, error) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, p.errf(doc, "expected one YAML document")
	}
	e := &Expectation{}
	version := 0
	root := doc.Content[0]
	err := p.mapping(root, "the expectation file", map[string]func(*yaml.Node) error{
		"version": func(n *yaml.Node) (err error) { version, err = p.integer(n, "version", 1, Version); return },
		"host":    func(n *yaml.Node) (err error) { e.Host, err = p.scalar(n, "host"); return },
		"driver_version": func(n *yaml.Node) error {
			s, err := p.scalar(n, "driver_version")
			if err != nil {
				return err
			}
			if strings.TrimSpace(s) == "" {
				return p.errf(n, "driver_version is empty (leave the field out to not check it)")
			}
			e.DriverVersion, e.DriverLine = &s, n.Line
			return nil
		},
		"devices": func(n *yaml.Node) error {
			if n.Kind != yaml.SequenceNode {
				return p.errf(n, "devices must be a list")
			}
			for _, dn := range n.Content {
				d, err := p.device(dn)
				if err != nil {
					return err
				}
				e.Devices = append(e.Devices, d)
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	if version == 0 {
		return nil, p.errf(root, "missing \"version: %d\"", Version)
	}
	if len(e.Devices) == 0 {
		return nil, p.errf(root, "no devices: an expectation must name at least one device")
	}
	return e, nil
}

func (p *parser) device(n *yaml.Node) (DeviceEntry, error) {
	d := DeviceEntry{Line: n.Line}
	ports := map[int]int{}
	err := p.mapping(n, "a device entry", map[string]func(*yaml.Node) error{
		"name": func(v *yaml.Node) error {
			s, err := p.scalar(v, "name")
			if err != nil {
				return err
			}
			if s == "" || strings.Contains(s, "/") {
				return p.errf(v, "name %q is not a device name or glob", s)
			}
			if _, err := path.Match(s, ""); err != nil {
				return p.errf(v, "bad glob %q: %v", s, err)
			}
			d.Name = s
			return nil
		},
		"count": func(v *yaml.Node) error {
			c, err := p.integer(v, "count", 0, 1024)
			d.Count = &c
			return err
		},
		"optional": func(v *yaml.Node) (err error) { d.Optional, err = p.boolean(v, "optional"); return },
		"hca_type": func(v *yaml.Node) error {
			s, err := p.scalar(v, "hca_type")
			d.HCAType = &s
			return err
		},
		"fw_ver": func(v *yaml.Node) error {
			s, err := p.scalar(v, "fw_ver")
			d.FWVersion = &s
			return err
		},
		"pcie": func(v *yaml.Node) error {
			return p.mapping(v, "pcie", map[string]func(*yaml.Node) error{
				"speed": func(v *yaml.Node) error {
					s, err := p.scalar(v, "pcie speed")
					if err != nil {
						return err
					}
					var sp pcie.Speed
					if err := sp.UnmarshalText([]byte(s)); err != nil {
						return p.errf(v, "pcie speed: %v", err)
					}
					d.PCIe.Speed = &sp
					return nil
				},
				"width": func(v *yaml.Node) error {
					s, err := p.scalar(v, "pcie width")
					if err != nil {
						return err
					}
					w, err := pcie.ParseWidth(strings.TrimPrefix(strings.ToLower(s), "x"))
					if err != nil || w == 0 {
						return p.errf(v, "pcie width %q (want 1, 2, 4, 8, 16 or 32)", s)
					}
					d.PCIe.Width = &w
					return nil
				},
			})
		},
		"ports": func(v *yaml.Node) error {
			if v.Kind != yaml.SequenceNode {
				return p.errf(v, "ports must be a list")
			}
			for _, pn := range v.Content {
				pe, err := p.port(pn)
				if err != nil {
					return err
				}
				if prev, dup := ports[pe.Port]; dup {
					return p.errf(pn, "port %d listed twice (first at line %d)", pe.Port, prev)
				}
				ports[pe.Port] = pe.Line
				d.Ports = append(d.Ports, pe)
			}
			return nil
		},
	})
	if err != nil {
		return d, err
	}
	if d.Name == "" {
		return d, p.errf(n, "device entry without a name")
	}
	if d.Count != nil && !d.IsGlob() {
		return d, p.errf(n, "count only applies to a glob name, not %q", d.Name)
	}
	return d, nil
}

func (p *parser) port(n *yaml.Node) (PortEntry, error) {
	pe := PortEntry{Line: n.Line}
	err := p.mapping(n, "a port entry", map[string]func(*yaml.Node) error{
		"port":       func(v *yaml.Node) (err error) { pe.Port, err = p.integer(v, "port", 1, 255); return },
		"link_layer": func(v *yaml.Node) error { return parsed(p, v, "link_layer", ib.ParseLinkLayer, &pe.LinkLayer, "") },
		"state":      func(v *yaml.Node) error { return parsed(p, v, "state", ib.ParsePortStateName, &pe.State, "") },
		"phys_state": func(v *yaml.Node) error { return parsed(p, v, "phys_state", ib.ParsePhysStateName, &pe.PhysState, "") },
		"rate": func(v *yaml.Node) error {
			return parsed(p, v, "rate", ib.ParseRate, &pe.Rate, ` (write it as sysfs prints it, e.g. "400 Gb/sec (4X NDR)")`)
		},
		"ignore": func(v *yaml.Node) (err error) { pe.Ignore, err = p.boolean(v, "ignore"); return },
	})
	if err != nil {
		return pe, err
	}
	if pe.Port == 0 {
		return pe, p.errf(n, "port entry without \"port: N\"")
	}
	return pe, nil
}
