package hub

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	"github.com/ibdoctor/ibdoctor/internal/service/agent"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
)

// The agent's /api/v1/ports document is about 180 KB for a node of ten
// ports (87 KB without the raw readings, ?readings=0, which older agents
// send anyway), most of it readings and counter rates the hub does not
// keep one by one; encoding/json spent most of a poll cycle's CPU walking
// it. decodePorts reads the fields the hub keeps in one pass over the
// bytes, skips the rest without decoding it, and sums each port's counter
// rates into the three the history stores. Whatever it cannot read
// exactly as encoding/json would (escapes, non-ASCII, keys in another
// case, repeated members, null where a string goes, a malformed value) it
// leaves to encoding/json, so a document encoding/json accepts gives the
// same ports either way (FuzzDecodePorts).

// errSlow sends a document to encoding/json.
var errSlow = errors.New("not on the fast path")

// decodePorts decodes an agent's ports document.
func decodePorts(b []byte) (*agent.Ports, []hubstore.PortRate, error) {
	p, rs, err := fastPorts(b)
	if err == nil {
		return p, rs, nil
	}
	var doc portsDoc
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		return nil, nil, err
	}
	p = doc.ports()
	rs = portRates(p)
	for i := range p.Ports {
		p.Ports[i].Rates = nil // the hub keeps the sums alone
	}
	return p, rs, nil
}

// sysfsErrorCounters are the error counters among the port counters, by
// their sysfs names (what ib.PortCounterSpec calls KindError).
var sysfsErrorCounters = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range ib.PortCounterSpecs {
		if c.Kind == ib.KindError {
			m[c.Name] = true
		}
	}
	return m
}()

// scanner reads one JSON document in memory.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		return errSlow
	}
	s.i++
	return nil
}

// raw reads a string without escapes, control or non-ASCII bytes (which
// encoding/json would rewrite) and returns its bytes.
func (s *scanner) raw() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], nil
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, errSlow
		}
		s.i++
	}
	return nil, errSlow
}

func (s *scanner) str() (string, error) {
	b, err := s.raw()
	return string(b), err
}

// number reads a number as JSON writes it and returns its text.
func (s *scanner) number() ([]byte, error) {
	s.ws()
	start, b := s.i, s.b
	i := s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return nil, errSlow
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return nil, errSlow
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return nil, errSlow
		}
	}
	s.i = i
	return b[start:i], nil
}

func (s *scanner) float() (float64, error) {
	t, err := s.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(string(t), 64)
	if err != nil {
		return 0, errSlow
	}
	return v, nil
}

func (s *scanner) int() (int, error) {
	t, err := s.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(string(t))
	if err != nil {
		return 0, errSlow
	}
	return v, nil
}

// skip passes over one value of any kind.
func (s *scanner) skip() error {
	switch c := s.peek(); c {
	case '"':
		return s.skipString()
	case '{', '[':
		return s.skipNested()
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
				s.i += len(lit)
				return nil
			}
		}
		return errSlow
	default:
		_, err := s.number()
		return err
	}
}

// skipString passes over a string, s.i at its opening quote.
func (s *scanner) skipString() error {
	i := s.i + 1
	for {
		j := bytes.IndexByte(s.b[i:], '"')
		if j < 0 {
			return errSlow
		}
		i += j
		// The quote ends the string unless an odd number of
		// backslashes escapes it.
		k := i - 1
		for k > s.i && s.b[k] == '\\' {
			k--
		}
		i++
		if (i-2-k)%2 == 0 {
			s.i = i
			return nil
		}
	}
}

// structural marks the bytes skipNested stops at.
var structural = func() (t [256]bool) {
	for _, c := range []byte(`{}[]"`) {
		t[c] = true
	}
	return t
}()

// skipNested passes over an object or array, counting brackets outside
// strings.
func (s *scanner) skipNested() error {
	depth := 0
	b := s.b
	for i := s.i; i < len(b); i++ {
		c := b[i]
		if !structural[c] {
			continue
		}
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i = i + 1
				return nil
			}
		case '"':
			s.i = i
			if err := s.skipString(); err != nil {
				return err
			}
			i = s.i - 1
		}
	}
	return errSlow
}

// null reads a null if one comes next.
func (s *scanner) null() bool {
	if s.peek() == 'n' && bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

// object calls field for each member of an object; field reads the
// value.
func (s *scanner) object(field func(key []byte) error) error {
	if s.null() {
		return nil
	}
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		k, err := s.raw()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := field(k); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return errSlow
		}
	}
}

// array calls elem for each element of an array; elem reads it.
func (s *scanner) array(elem func() error) error {
	if s.null() {
		return nil
	}
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return errSlow
		}
	}
}

// fields tracks the members of one object: a key that encoding/json
// would match in another case, or a member that comes twice, sends the
// document there.
type fields struct {
	keys []string
	seen uint32
}

// take says which of the keys k is (-1: none, to skip).
func (f *fields) take(k []byte) (int, error) {
	for i, key := range f.keys {
		if string(k) == key {
			if f.seen&(1<<i) != 0 {
				return 0, errSlow
			}
			f.seen |= 1 << i
			return i, nil
		}
	}
	for _, key := range f.keys {
		if bytes.EqualFold(k, []byte(key)) {
			return 0, errSlow
		}
	}
	return -1, nil
}

var (
	portsKeys = []string{"host", "taken", "interval_seconds", "ports"}
	portKeys  = []string{"device", "port", "link_layer", "netdev", "state", "rate_gbps", "phys_state", "rate", "width", "speed", "port_guid", "node_guid", "pci", "pcie_link", "rates"}
	rateKeys  = []string{"src", "name", "per_second", "status"}
)

func fastPorts(b []byte) (*agent.Ports, []hubstore.PortRate, error) {
	s := &scanner{b: b}
	out := &agent.Ports{Ports: []agent.PortSummary{}}
	rates := []hubstore.PortRate{}
	f := fields{keys: portsKeys}
	err := s.object(func(k []byte) error {
		i, err := f.take(k)
		if err != nil {
			return err
		}
		switch i {
		case 0:
			out.Host, err = s.str()
		case 1:
			s.ws()
			start := s.i
			if _, err = s.raw(); err == nil && out.Taken.UnmarshalJSON(s.b[start:s.i]) != nil {
				err = errSlow
			}
		case 2:
			out.Interval, err = s.float()
		case 3:
			err = s.array(func() error {
				p, r, err := s.port()
				out.Ports = append(out.Ports, p)
				rates = append(rates, r)
				return err
			})
		default:
			err = s.skip()
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return out, rates, nil
}

// port reads one port and sums its counter rates as portRates does.
func (s *scanner) port() (agent.PortSummary, hubstore.PortRate, error) {
	var p agent.PortSummary
	var r hubstore.PortRate
	f := fields{keys: portKeys}
	err := s.object(func(k []byte) error {
		i, err := f.take(k)
		if err != nil {
			return err
		}
		switch i {
		case 0:
			p.Device, err = s.str()
		case 1:
			p.Port.Port, err = s.int()
		case 2:
			p.LinkLayer, err = s.str()
		case 3:
			p.NetDev, err = s.str()
		case 4:
			p.State, err = s.str()
		case 5:
			p.RateGbps, err = s.float()
		case 6:
			p.PhysState, err = s.str()
		case 7:
			p.Rate, err = s.str()
		case 8:
			p.Width, err = s.str()
		case 9:
			p.Speed, err = s.str()
		case 10:
			p.PortGUID, err = s.str()
		case 11:
			p.NodeGUID, err = s.str()
		case 12:
			p.PCI, err = s.str()
		case 13:
			p.PCIeLink, err = s.str()
		case 14:
			err = s.array(func() error { return s.rate(&r) })
		default:
			err = s.skip()
		}
		return err
	})
	r.Port = p.Device + "/" + strconv.Itoa(p.Port.Port)
	return p, r, err
}

// rate reads one counter rate and adds it to r as portRates does.
func (s *scanner) rate(r *hubstore.PortRate) error {
	var src, name []byte
	var v float64
	has := false
	f := fields{keys: rateKeys}
	err := s.object(func(k []byte) error {
		i, err := f.take(k)
		if err != nil {
			return err
		}
		switch i {
		case 0:
			src, err = s.raw()
		case 1:
			name, err = s.raw()
		case 2:
			if s.null() {
				return nil
			}
			v, err = s.float()
			has = true
		default: // the status too: the sums do not read it
			err = s.skip()
		}
		return err
	})
	if err != nil || !has || string(src) != string(trend.SrcCounters) {
		return err
	}
	switch string(name) {
	case "port_rcv_data":
		r.RcvBps = v
	case "port_xmit_data":
		r.XmitBps = v
	case promErrors:
		r.ErrPerS += v
	default:
		if sysfsErrorCounters[string(name)] && v > 0 {
			r.ErrPerS += v
		}
	}
	return nil
}
