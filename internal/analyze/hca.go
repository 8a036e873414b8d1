package analyze

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/catalog"
	"github.com/ibdoctor/ibdoctor/internal/finding"
	"github.com/ibdoctor/ibdoctor/internal/hcatext"
	"github.com/ibdoctor/ibdoctor/internal/snapshot"
)

// stateOnly judges ports whose output printed a logical state but no
// physical state (ibv_devinfo without -v, `rdma link` of old releases),
// which the node rules skip: a port that is not ACTIVE is port.down —
// critical when a port of the same HCA model and link layer is ACTIVE,
// info otherwise (it may be uncabled on purpose). It is pure.
func stateOnly(res *hcatext.Result, file string) []finding.Finding {
	s := res.Snap
	var out []finding.Finding
	for i := range s.Devices {
		d := &s.Devices[i]
		for j := range d.Ports {
			p := &d.Ports[j]
			if p.State == nil || p.PhysState != nil || p.IsActive() {
				continue
			}
			ev := finding.Evidence{Source: file, Value: fmt.Sprintf("%d: %s", *p.State, *p.State)}
			if l, ok := res.Locate(fmt.Sprintf("sys/class/infiniband/%s/ports/%d/state", d.Name, p.Number)); ok {
				ev = finding.Evidence{Source: fmt.Sprintf("%s:%d", file, l.N), Value: l.Text}
			}
			f := catalog.New("port.down", finding.Subject{Device: d.Name, Port: p.Number, NetDev: p.NetDev, File: file},
				fmt.Sprintf("%s port %d is %s; the output shows no physical state, so Polling (no link partner) and Disabled cannot be told apart: run ibv_devinfo -v or ibstat", d.Name, p.Number, *p.State), ev)
			if !activeSibling(s, d, p) {
				f.Severity = finding.Info
				f.Summary += "; no other port of this HCA model is ACTIVE, so it may be uncabled on purpose"
			}
			out = append(out, f)
		}
	}
	return out
}

// activeSibling says whether another port of the same HCA model and link
// layer is ACTIVE (the node rules' test for "expected up").
func activeSibling(s *snapshot.Snapshot, d *snapshot.Device, p *snapshot.Port) bool {
	model := d.Model(s)
	for i := range s.Devices {
		od := &s.Devices[i]
		if od.Model(s) != model {
			continue
		}
		for j := range od.Ports {
			op := &od.Ports[j]
			if op != p && op.LinkLayer == p.LinkLayer && op.IsActive() {
				return true
			}
		}
	}
	return false
}
