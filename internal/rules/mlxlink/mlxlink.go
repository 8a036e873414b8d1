// Package mlxlink judges the ports of a pasted mlxlink output (parsed by
// internal/parse/mlxlink): a link that is not up, a lane speed below what
// both the port and the cable are enabled for, errors FEC did not correct,
// a high pre-FEC error rate, link-down and recovery counts, the firmware's
// troubleshooting verdict, and module readings outside their alarm
// thresholds. It is pure: everything it knows is in the parsed text.
package mlxlink

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/mlxlink"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

const (
	// EffectiveBERMax is the post-FEC bit error rate a healthy link stays
	// under: ibdiagnet's BER test uses 10^-12 as its default threshold
	// (NVIDIA IBUtils2 documentation, "Bit Error Rate (BER)").
	EffectiveBERMax = 1e-12
	// RawBERMax is the pre-FEC bit error rate above which a link with FEC
	// is warned about (see port.raw_ber_high for the reasoning).
	RawBERMax = 1e-5
	// noIssue is what the troubleshooting page says of a healthy link.
	noIssue = "No issue was observed"
)

// Result is what the rules found, with notes on what was not judged.
type Result struct {
	Findings []finding.Finding
	Notes    []string
	// Active counts the ports whose State is Active.
	Active int
}

// Check judges every port of res; file names the paste in evidence
// ("file:line").
func Check(res *mlxlink.Result, file string) Result {
	var out Result
	widthNoted := false
	for i, p := range res.Ports {
		c := portCheck{p: p, file: file, name: portName(p, i, len(res.Ports))}
		c.subj = finding.Subject{Device: p.Device, Port: p.PortNum, File: file, LinkLayer: linkLayer(p)}
		up := c.state()
		if up {
			out.Active++
			c.speed()
			c.troubleshooting()
		}
		c.counters()
		c.module()
		out.Findings = append(out.Findings, c.out...)
		if _, ok := p.Get("Width"); ok && !widthNoted && up {
			widthNoted = true
			out.Notes = append(out.Notes, "width is read but not judged: mlxlink's pages do not say how many lanes the port should run (a 2x HDR100 port is as designed); compare with the switch end or ibstat's rate")
		}
	}
	catalog.Sort(out.Findings)
	return out
}

type portCheck struct {
	p    *mlxlink.Port
	file string
	name string
	subj finding.Subject
	out  []finding.Finding
}

func (c *portCheck) ev(f mlxlink.Field) finding.Evidence {
	return finding.Evidence{Source: fmt.Sprintf("%s:%d", c.file, f.Line), Value: f.Key + " : " + f.Value}
}

func (c *portCheck) add(id, summary string, fs ...mlxlink.Field) *finding.Finding {
	ev := make([]finding.Evidence, len(fs))
	for i, f := range fs {
		ev[i] = c.ev(f)
	}
	c.out = append(c.out, catalog.New(id, c.subj, summary, ev...))
	return &c.out[len(c.out)-1]
}

// portName names a port in summaries: its device, or its place.
func portName(p *mlxlink.Port, i, n int) string {
	switch {
	case p.Device != "" && p.PortNum > 0:
		return fmt.Sprintf("%s port %d", p.Device, p.PortNum)
	case p.Device != "":
		return p.Device
	case n == 1:
		return "the port"
	}
	return fmt.Sprintf("port %d of %d (line %d)", i+1, n, p.Line)
}

func linkLayer(p *mlxlink.Port) string {
	if s, ok := p.Get("Speed"); ok {
		if strings.HasPrefix(s.Value, "IB-") {
			return "InfiniBand"
		}
		if _, ok := ethGbps(s.Value); ok {
			return "Ethernet"
		}
	}
	return ""
}

// state judges the phy manager's State; it returns whether the link is up
// (or the State was not pasted: a grep of the counters).
func (c *portCheck) state() bool {
	st, ok := c.p.Get("State")
	if !ok || st.Section != "Operational Info" && st.Section != "" {
		return true
	}
	v := st.Value
	if strings.EqualFold(v, "Active") {
		return true
	}
	fs := []mlxlink.Field{st}
	if ph, ok := c.p.Get("Physical state"); ok {
		fs = append(fs, ph)
	}
	why := ""
	if rec, ok := c.p.Get("Recommendation"); ok && rec.Value != "" && rec.Value != noIssue && rec.Value != "N/A" {
		fs = append(fs, rec)
		why = "; the firmware says: " + rec.Value
	}
	switch lv := strings.ToLower(v); {
	case lv == "polling":
		c.add("port.polling", fmt.Sprintf("%s: State %s: the port looks for a link partner and finds none%s", c.name, v, why), fs...)
	case strings.HasPrefix(lv, "disable"):
		c.add("port.disabled", fmt.Sprintf("%s: State %s: the port is disabled%s", c.name, v, why), fs...)
	case lv == "physical linkup":
		c.add("port.down", fmt.Sprintf("%s: State %s: the physical link is up but the port's link is not active%s", c.name, v, why), fs...)
	default:
		c.add("port.down", fmt.Sprintf("%s: State %s: the link is not up%s", c.name, v, why), fs...)
	}
	return false
}

// ibLane ranks InfiniBand lane speeds by their rate in Gb/s.
var ibLane = map[string]float64{"SDR": 2.5, "DDR": 5, "QDR": 10, "FDR10": 10.3, "FDR": 14, "EDR": 25, "HDR": 50, "NDR": 100, "XDR": 200}

// ethGbps reads an Ethernet speed as mlxlink names it ("100G", "25GbE",
// "100G_4X", "50G_2X") in Gb/s.
func ethGbps(s string) (float64, bool) {
	s = strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "BE"), "B")
	if i := strings.IndexByte(s, '_'); i > 0 {
		s = s[:i]
	}
	num, ok := strings.CutSuffix(s, "G")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(num, 64)
	return v, err == nil && v > 0
}

// speedOf reads one speed: an IB lane speed ("IB-HDR", "HDR") or an
// Ethernet rate; ib says which.
func speedOf(s string) (v float64, ib, ok bool) {
	s = strings.TrimSpace(s)
	if r, found := ibLane[strings.TrimPrefix(strings.ToUpper(s), "IB-")]; found {
		return r, true, true
	}
	v, ok = ethGbps(s)
	return v, false, ok
}

// speedList reads "0x000002f2 (100G_4X,50G_2X,40G)" into its speeds.
func speedList(v string) (ib, eth []float64) {
	open, end := strings.IndexByte(v, '('), strings.LastIndexByte(v, ')')
	if open < 0 || end < open {
		return nil, nil
	}
	for _, w := range strings.Split(v[open+1:end], ",") {
		if s, isIB, ok := speedOf(w); ok {
			if isIB {
				ib = append(ib, s)
			} else {
				eth = append(eth, s)
			}
		}
	}
	return ib, eth
}

func getAny(p *mlxlink.Port, keys ...string) (mlxlink.Field, bool) {
	for _, k := range keys {
		if f, ok := p.Get(k); ok {
			return f, true
		}
	}
	return mlxlink.Field{}, false
}

// speed judges the active speed against the fastest that both the port
// (Enabled Link Speed) and the cable (Supported Cable Speed) allow.
func (c *portCheck) speed() {
	sp, ok := c.p.Get("Speed")
	if !ok {
		return
	}
	act, isIB, ok := speedOf(sp.Value)
	if !ok {
		return
	}
	en, ok1 := getAny(c.p, "Enabled Link Speed (Ext.)", "Enabled Link Speed")
	cab, ok2 := getAny(c.p, "Supported Cable Speed (Ext.)", "Supported Cable Speed")
	if !ok1 || !ok2 {
		return
	}
	eIB, eEth := speedList(en.Value)
	cIB, cEth := speedList(cab.Value)
	e, cb := eEth, cEth
	if isIB {
		e, cb = eIB, cIB
	}
	best := 0.0
	for _, s := range e {
		if slices.Contains(cb, s) && s > best {
			best = s
		}
	}
	if best == 0 || act >= best {
		return
	}
	unit := "Gb/s"
	if isIB {
		unit = "Gb/s per lane"
	}
	c.add("port.speed_degraded", fmt.Sprintf("%s: Speed %s (%g %s) while the port and the cable are both enabled for %g %s: the link trained below what it can run", c.name, sp.Value, act, unit, best, unit), sp, en, cab)
}

// troubleshooting reports the firmware's verdict on an up link when it
// names a problem (a link that is down carries it in its state finding).
func (c *portCheck) troubleshooting() {
	rec, ok := c.p.Get("Recommendation")
	if !ok || rec.Value == "" || rec.Value == "N/A" || strings.EqualFold(rec.Value, noIssue) {
		return
	}
	fs := []mlxlink.Field{rec}
	if op, ok := c.p.Get("Status Opcode"); ok {
		if op.Value == "0" {
			return
		}
		fs = append([]mlxlink.Field{op}, fs...)
	}
	c.add("port.link_troubleshooting", fmt.Sprintf("%s: mlxlink's troubleshooting page says: %s", c.name, rec.Value), fs...)
}

// ParseBER reads mlxlink's "15E-255" (coefficient E minus magnitude);
// mlxlink prints 15E-255 for a rate of zero.
func ParseBER(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || s == "N/A" {
		return 0, false
	}
	if strings.EqualFold(s, "15E-255") {
		return 0, true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, false
	}
	return v, true
}

func uintField(p *mlxlink.Port, key string) (uint64, mlxlink.Field, bool) {
	f, ok := p.Get(key)
	if !ok {
		return 0, f, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(f.Value), 10, 64)
	return v, f, err == nil
}

// counters judges the Physical Counters and BER page.
func (c *portCheck) counters() {
	since := ""
	if f, ok := c.p.Get("Time Since Last Clear [Min]"); ok && f.Value != "N/A" {
		since = fmt.Sprintf(" in the %s minutes since the counters were cleared", f.Value)
	}
	// Errors FEC did not correct: the effective (post-FEC) errors and
	// BER, and the symbol errors after every correction.
	var bad []mlxlink.Field
	var what []string
	if v, f, ok := uintField(c.p, "Effective Physical Errors"); ok && v > 0 {
		bad, what = append(bad, f), append(what, fmt.Sprintf("%d errors FEC did not correct", v))
	}
	if f, ok := c.p.Get("Effective Physical BER"); ok {
		if v, ok := ParseBER(f.Value); ok && v > EffectiveBERMax {
			bad, what = append(bad, f), append(what, fmt.Sprintf("effective BER %s above %g", f.Value, EffectiveBERMax))
		}
	}
	if v, f, ok := uintField(c.p, "Symbol Errors"); ok && v > 0 {
		bad, what = append(bad, f), append(what, fmt.Sprintf("%d symbol errors", v))
	}
	if f, ok := c.p.Get("Symbol BER"); ok {
		if v, ok := ParseBER(f.Value); ok && v > EffectiveBERMax {
			bad, what = append(bad, f), append(what, fmt.Sprintf("symbol BER %s above %g", f.Value, EffectiveBERMax))
		}
	}
	if len(bad) > 0 {
		c.add("port.symbol_errors", fmt.Sprintf("%s: %s%s: data was corrupted on the link after FEC", c.name, strings.Join(what, ", "), since), bad...)
	}
	if f, ok := c.p.Get("Raw Physical BER"); ok {
		fec, _ := c.p.Get("FEC")
		withFEC := fec.Value != "" && !strings.Contains(strings.ToLower(fec.Value), "no fec")
		if v, ok := ParseBER(f.Value); ok && withFEC && v > RawBERMax {
			fs := []mlxlink.Field{f, fec}
			if pl, ok := c.p.Get("Raw Physical Errors Per Lane"); ok {
				fs = append(fs, pl)
			}
			c.add("port.raw_ber_high", fmt.Sprintf("%s: raw (pre-FEC) BER %s above %g with %s: FEC still corrects it, with little margin left", c.name, f.Value, RawBERMax, fec.Value), fs...)
		}
	}
	if v, f, ok := uintField(c.p, "Link Down Counter"); ok && v > 0 {
		fd := c.add("port.link_flapping", fmt.Sprintf("%s: the link went down %d time(s)%s", c.name, v, since), f)
		if v < 3 {
			fd.Severity = finding.Warning // a reboot of the peer also counts
		}
	}
	if v, f, ok := uintField(c.p, "Link Error Recovery Counter"); ok && v > 0 {
		c.add("port.link_recovery", fmt.Sprintf("%s: %d link error recoveries (the link retrained)%s", c.name, v, since), f)
	}
}

// moduleReadings are the Module Info lines printed with their alarm
// thresholds, "value[,value…] [low..high]".
var moduleReadings = []string{"Temperature [C]", "Voltage [mV]", "Bias Current [mA]", "Rx Power Current [dBm]", "Tx Power Current [dBm]"}

// module judges the module readings against the thresholds printed with
// them.
func (c *portCheck) module() {
	for _, k := range moduleReadings {
		f, ok := c.p.Get(k)
		if !ok {
			continue
		}
		vals, lo, hi, ok := Reading(f.Value)
		if !ok {
			continue
		}
		for lane, v := range vals {
			if v < lo || v > hi {
				where := ""
				if len(vals) > 1 {
					where = fmt.Sprintf(" on lane %d", lane)
				}
				c.add("port.module_alarm", fmt.Sprintf("%s: module %s %g%s outside its alarm range [%g..%g]", c.name, k, v, where, lo, hi), f)
				break
			}
		}
	}
}

// Reading parses "45 [-5..75]" or "-1.2,-0.8 [-10..4]".
func Reading(s string) (vals []float64, lo, hi float64, ok bool) {
	open := strings.IndexByte(s, '[')
	end := strings.LastIndexByte(s, ']')
	if open < 0 || end < open {
		return nil, 0, 0, false
	}
	l, h, found := strings.Cut(s[open+1:end], "..")
	if !found {
		return nil, 0, 0, false
	}
	lo, err1 := strconv.ParseFloat(strings.TrimSpace(l), 64)
	hi, err2 := strconv.ParseFloat(strings.TrimSpace(h), 64)
	if err1 != nil || err2 != nil || lo > hi {
		return nil, 0, 0, false
	}
	for _, w := range strings.Split(strings.TrimSpace(s[:open]), ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err != nil {
			return nil, 0, 0, false
		}
		vals = append(vals, v)
	}
	return vals, lo, hi, len(vals) > 0
}
