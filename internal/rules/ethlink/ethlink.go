// Package ethlink judges pasted `ethtool <netdev>` settings (parsed by
// internal/parse/ethlink): no link, and a speed below the fastest mode
// both this end and the link partner advertise.
package ethlink

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethlink"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// RDMAClassMbps is the slowest link that is taken for an RDMA (RoCE)
// port: NICs of 25 Gb/s and more. A slower NIC that is down is a warning
// (management and 10G ports are often unplugged on purpose).
const RDMAClassMbps = 25000

// Result is what the rules found.
type Result struct {
	Findings []finding.Finding
	// Up counts the interfaces with a link.
	Up int
	// Notes: what was read but could not be judged.
	Notes []string
}

// FECMinMbps is the slowest link on which no active FEC is a fault: IEEE
// 802.3 requires RS-FEC on 50 Gb/s-per-lane PAM4 links (100GBASE-CR2,
// 200GBASE-CR4, 400GBASE-CR8 …), and 100GBASE-CR4/SR4 links need it too
// (clause 91).
const FECMinMbps = 100000

// speedOf returns the Speed another block of the paste shows for netdev.
func speedOf(res *ethlink.Result, netdev string) (ethlink.Field, int, bool) {
	for _, s := range res.Settings {
		if s.FEC || s.NetDev != netdev {
			continue
		}
		if f, ok := s.Get("Speed"); ok {
			if mbps, ok := ethlink.SpeedMbps(f.Value); ok {
				return f, mbps, true
			}
		}
	}
	return ethlink.Field{}, 0, false
}

// checkFEC judges an `ethtool --show-fec` block: the active encoding
// None or Off on a link of FECMinMbps or more is port.fec_off; without
// the link's speed in the paste it is a note.
func checkFEC(res *ethlink.Result, s *ethlink.Settings, file string, out *Result) {
	act, ok := s.Get("Active FEC encoding")
	if !ok {
		out.Notes = append(out.Notes, fmt.Sprintf("%s:%d: %s: ethtool --show-fec with no \"Active FEC encoding\" line", file, s.Line, s.NetDev))
		return
	}
	v := strings.ToLower(strings.TrimSpace(act.Value))
	if v != "none" && v != "off" {
		return // RS, BaseR, LLRS: FEC corrects errors on the link
	}
	sp, mbps, known := speedOf(res, s.NetDev)
	if !known {
		out.Notes = append(out.Notes, fmt.Sprintf("%s:%d: %s: active FEC encoding %s: not judged without the link's speed (ethtool %s: no FEC is a fault on links of 100 Gb/s and more)", file, act.Line, s.NetDev, act.Value, s.NetDev))
		return
	}
	if mbps < FECMinMbps {
		return
	}
	ev := func(f ethlink.Field) finding.Evidence {
		return finding.Evidence{Source: fmt.Sprintf("%s:%d", file, f.Line), Value: f.Key + ": " + f.Value}
	}
	evs := []finding.Evidence{ev(act)}
	if c, ok := s.Get("Configured FEC encodings"); ok {
		evs = append(evs, ev(c))
	}
	evs = append(evs, ev(sp))
	f := catalog.New("port.fec_off", finding.Subject{NetDev: s.NetDev, File: file, LinkLayer: "Ethernet"},
		fmt.Sprintf("%s: active FEC encoding %s on a %d Gb/s link: no error correction where IEEE 802.3 requires RS-FEC", s.NetDev, act.Value, mbps/1000), evs...)
	out.Findings = append(out.Findings, f)
}

// Check judges every interface of res; file names the paste.
func Check(res *ethlink.Result, file string) Result {
	var out Result
	for _, s := range res.Settings {
		if s.FEC {
			checkFEC(res, s, file, &out)
			continue
		}
		subj := finding.Subject{NetDev: s.NetDev, File: file, LinkLayer: "Ethernet"}
		ev := func(f ethlink.Field) finding.Evidence {
			return finding.Evidence{Source: fmt.Sprintf("%s:%d", file, f.Line), Value: f.Key + ": " + f.Value}
		}
		sup, hasSup := s.Get("Supported link modes")
		adv, hasAdv := s.Get("Advertised link modes")
		maxSup := 0
		if hasSup {
			if m := ethlink.Modes(sup.Value); len(m) > 0 {
				maxSup = slices.Max(m)
			}
		}
		ld, hasLD := s.Get("Link detected")
		sp, hasSp := s.Get("Speed")
		speed, speedOK := ethlink.SpeedMbps(sp.Value)
		if hasLD && ld.Value == "no" {
			evs := []finding.Evidence{ev(ld)}
			if hasSp {
				evs = append(evs, ev(sp))
			}
			f := catalog.New("port.down", subj, fmt.Sprintf("%s: Link detected: no: the interface has no carrier (cable, transceiver or the switch port)", s.NetDev), evs...)
			if maxSup > 0 && maxSup < RDMAClassMbps {
				f.Severity = finding.Warning
				f.Summary += fmt.Sprintf("; a NIC of at most %d Mb/s, not an RDMA-class port", maxSup)
			}
			out.Findings = append(out.Findings, f)
			continue
		}
		if hasLD && ld.Value == "yes" || speedOK {
			out.Up++
		}
		if !speedOK || !hasSup || !hasAdv {
			continue
		}
		both := common(ethlink.Modes(sup.Value), ethlink.Modes(adv.Value))
		evs := []finding.Evidence{ev(sp), ev(sup), ev(adv)}
		partner := false
		if lp, ok := s.Get("Link partner advertised link modes"); ok {
			if m := ethlink.Modes(lp.Value); len(m) > 0 {
				both = common(both, m)
				evs = append(evs, ev(lp))
				partner = true
			}
		}
		if len(both) == 0 || speed >= slices.Max(both) {
			continue
		}
		sum := fmt.Sprintf("%s: Speed %d Mb/s while both ends can run %d Mb/s: auto-negotiation fell back or the speed is forced", s.NetDev, speed, slices.Max(both))
		if !partner {
			sum = fmt.Sprintf("%s: Speed %d Mb/s while this end supports and advertises %d Mb/s (the link partner's modes are not shown): auto-negotiation fell back (a cable pair or the partner port at fault) or the partner is forced to the lower speed", s.NetDev, speed, slices.Max(both))
		}
		if dx, ok := s.Get("Duplex"); ok && dx.Value == "Half" && strings.Contains(adv.Value, "/Full") {
			sum += "; Half duplex although Full is advertised: collisions and retransmits on top of the lower speed"
			evs = append(evs, ev(dx))
		}
		f := catalog.New("port.speed_degraded", subj, sum, evs...)
		f.Severity = finding.Warning // the partner's modes are often not reported
		out.Findings = append(out.Findings, f)
	}
	catalog.Sort(out.Findings)
	return out
}

func common(a, b []int) []int {
	var out []int
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
