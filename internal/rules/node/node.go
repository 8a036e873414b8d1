package node

import (
	"cmp"
	"fmt"
	"github.com/ibdoctor/ibdoctor/internal/rules"
	"iter"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/expect"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// Thresholds are the configurable limits of the node rules.
type Thresholds struct {
	// RateShortfallCritical is the fraction below the expected rate from
	// which port.rate_below_expected is critical (20%); any
	// smaller shortfall is a warning.
	RateShortfallCritical float64
}

// DefaultThresholds are the documented defaults (see `ibdoctor rules`).
var DefaultThresholds = Thresholds{RateShortfallCritical: limits.NodeRateShortfallCritical}

// Input is what the node rules judge.
type Input struct {
	Snap *snapshot.Snapshot
	// Expect is nil when no expectation file was given: defaults apply.
	Expect     *expect.Expectation
	Thresholds Thresholds
	// NoCounterTotals leaves out the error-counter totals: the agent
	// judges their rates over its window instead, so a count left from
	// months ago does not alarm forever.
	NoCounterTotals bool
	// Pasted says the snapshot was read from tool output pasted into a
	// ticket (`ibdoctor analyze`): no baseline can say a port is unused on
	// purpose, and the poster asks about the ports shown, so a port that
	// is not ACTIVE is at least a warning.
	Pasted bool
	// Fragments names the pasted devices of which only a port block was
	// pasted, its header cut off: the poster cut the output down to that
	// port to ask about it, and its sibling ports were cut, so they say
	// nothing about whether it is meant to be cabled.
	Fragments []string
	// Notes collects the ports the rules chose not to report, with why:
	// checkState fills it (CheckPastedNoted hands it back).
	Notes []PortNote
}

// PortNote is a port that is not ACTIVE and not reported, with why: a
// note of the analysis, not a finding.
type PortNote struct {
	// Evidence is the port's phys_state (a path the caller may locate
	// in the paste).
	Evidence finding.Evidence
	Text     string
}

// Rule is one entry of this rule set (the one Rule shape of every set).
type Rule = rules.Rule[*Input]

// NodeRules is the node rule set, in runbook order.
var NodeRules = []Rule{
	{Name: "expected devices and ports", IDs: []string{"port.missing"}, Check: checkMissing},
	{Name: "port state", IDs: []string{"port.down", "port.polling", "port.disabled", "port.init_no_sm"}, Check: checkState},
	{Name: "port rate, width and speed", IDs: []string{"port.rate_below_expected", "port.width_degraded", "port.speed_degraded"}, Check: checkRate},
	{Name: "saturated error counters", IDs: []string{"port.counter_saturated"}, Check: checkSaturated},
	{Name: "error counter totals", IDs: counterIDs(), Check: checkCounterTotals},
	{Name: "partition keys", IDs: []string{"port.pkey_none", "port.pkey_default_missing", "port.pkey_limited_only"}, Check: checkPKeys},
	{Name: "firmware", IDs: []string{"port.fw_mismatch"}, Check: checkFirmware},
	{Name: "IPoIB MTU", IDs: []string{"port.ipoib_mtu_mismatch"}, Check: checkIPoIBMTU},
	{Name: "IB MTU", IDs: []string{"port.ib_mtu_reduced", "port.ib_mtu_mismatch"}, Check: checkIBMTU},
	{Name: "mlx5 driver version", IDs: []string{"host.driver_mismatch"}, Check: checkDriver},
	{Name: "PCIe link", IDs: []string{"pcie.link_degraded"}, Check: checkPCIe},
}

// Node runs every node rule and returns the findings sorted by severity and
// runbook step.
func Check(s *snapshot.Snapshot, e *expect.Expectation) []finding.Finding {
	return CheckInput(&Input{Snap: s, Expect: e, Thresholds: DefaultThresholds})
}

// CheckPasted runs every node rule on a snapshot read from pasted tool
// output; fragments are its devices pasted as a headless port block.
func CheckPasted(s *snapshot.Snapshot, e *expect.Expectation, fragments ...string) []finding.Finding {
	fs, _ := CheckPastedNoted(s, e, fragments...)
	return fs
}

// CheckPastedNoted is CheckPasted with the notes on the ports it chose
// not to report (a RoCE port switched off beside the host's ACTIVE one).
func CheckPastedNoted(s *snapshot.Snapshot, e *expect.Expectation, fragments ...string) ([]finding.Finding, []PortNote) {
	in := &Input{Snap: s, Expect: e, Thresholds: DefaultThresholds, Pasted: true, Fragments: fragments}
	fs := CheckInput(in)
	return fs, in.Notes
}

// Run runs every node rule on in.
func CheckInput(in *Input) []finding.Finding {
	var out []finding.Finding
	for _, r := range NodeRules {
		out = append(out, r.Check(in)...)
	}
	catalog.Sort(out)
	return out
}

func portSubject(s *snapshot.Snapshot, p *snapshot.Port) finding.Subject {
	subj := finding.Subject{Host: s.Host, Device: p.Device, Port: p.Number, NetDev: p.NetDev, LinkLayer: string(p.LinkLayer)}
	// A unicast LID only: 0 and 0xffff (permissive, an unconfigured port)
	// address nothing.
	if p.LinkLayer == ib.LinkLayerInfiniBand && p.LID != nil && *p.LID > 0 && *p.LID <= 0xBFFF {
		subj.LID = *p.LID
	}
	if d := s.Device(p.Device); d != nil {
		subj.PCI = string(d.PCI)
	}
	return subj
}

func portPath(p *snapshot.Port, file string) string {
	return fmt.Sprintf("sys/class/infiniband/%s/ports/%d/%s", p.Device, p.Number, file)
}

func devPath(d string, file string) string {
	return fmt.Sprintf("sys/class/infiniband/%s/%s", d, file)
}

// portExpect returns the expectation of a port, nil when there is none.
func portExpect(in *Input, dev string, port int) *expect.Port {
	if in.Expect == nil {
		return nil
	}
	d, ok := in.Expect.For(dev)
	if !ok {
		return nil
	}
	return d.Ports[port]
}

func checkMissing(in *Input) []finding.Finding {
	if in.Expect == nil {
		return checkMissingDefault(in.Snap)
	}
	s := in.Snap
	var out []finding.Finding
	src := func(line int) string { return fmt.Sprintf("%s:%d", in.Expect.Source, line) }
	for _, en := range in.Expect.Devices {
		var matched []*snapshot.Device
		for i := range s.Devices {
			if m, _ := path.Match(en.Name, s.Devices[i].Name); m {
				matched = append(matched, &s.Devices[i])
			}
		}
		subj := finding.Subject{Host: s.Host, Device: en.Name}
		switch {
		case en.Count != nil && len(matched) != *en.Count:
			names := make([]string, len(matched))
			for i, d := range matched {
				names[i] = d.Name
			}
			if len(matched) < *en.Count {
				out = append(out, catalog.New("port.missing", subj,
					fmt.Sprintf("%d of %d expected devices matching %s are present", len(matched), *en.Count, en.Name),
					finding.Evidence{Source: src(en.Line), Value: fmt.Sprintf("count: %d", *en.Count)},
					finding.Evidence{Source: "sys/class/infiniband", Value: strings.Join(names, " ")}))
			}
		case len(matched) == 0 && !en.Optional && !en.IsGlob():
			out = append(out, catalog.New("port.missing", subj,
				fmt.Sprintf("expected RDMA device %s is absent", en.Name),
				finding.Evidence{Source: src(en.Line), Value: "name: " + en.Name},
				finding.Evidence{Source: "sys/class/infiniband", Value: "no " + en.Name}))
			continue
		}
		for _, d := range matched {
			for _, pe := range en.Ports {
				if pe.Ignore || s.Port(d.Name, pe.Port) != nil {
					continue
				}
				out = append(out, catalog.New("port.missing",
					finding.Subject{Host: s.Host, Device: d.Name, Port: pe.Port},
					fmt.Sprintf("%s has no port %d", d.Name, pe.Port),
					finding.Evidence{Source: src(pe.Line), Value: "port: " + strconv.Itoa(pe.Port)},
					finding.Evidence{Source: devPath(d.Name, "ports"), Value: "absent"}))
			}
		}
	}
	return out
}

// checkMissingDefault finds what is missing without an expectation: a
// Mellanox network function with no RDMA device (mlx5_ib not loaded, or
// the device failed to register) — critical when other functions of the
// node have theirs, a warning when none has; and a node without any RDMA
// device at all (a warning: ibdoctor runs where RDMA is expected).
func checkMissingDefault(s *snapshot.Snapshot) []finding.Finding {
	has := map[pcie.Address]bool{}
	for _, d := range s.Devices {
		has[d.PCI] = true
	}
	var out []finding.Finding
	for i := range s.PCI {
		p := &s.PCI[i]
		if p.Vendor == nil || *p.Vendor != pcie.VendorMellanox || p.Class == nil || !pcie.IsNetwork(*p.Class) || has[p.Address] {
			continue
		}
		drv := p.Driver
		if drv == "" {
			drv = "no driver bound"
		}
		f := catalog.New("port.missing", finding.Subject{Host: s.Host, PCI: string(p.Address)},
			fmt.Sprintf("Mellanox network function %s (%s) has no RDMA device", p.Address, drv),
			finding.Evidence{Source: "sys/bus/pci/devices/" + string(p.Address) + "/driver", Value: drv},
			finding.Evidence{Source: "sys/class/infiniband", Value: fmt.Sprintf("%d RDMA devices, none on %s", len(s.Devices), p.Address)})
		if len(s.Devices) == 0 {
			f.Severity = finding.Warning
			f.Summary += " (no function of this node has one: is mlx5_ib loaded, or is this NIC used for Ethernet only?)"
		} else {
			f.Summary += " while the node's other HCAs have theirs"
		}
		out = append(out, f)
	}
	if len(s.Devices) == 0 && len(out) == 0 {
		f := catalog.New("port.missing", finding.Subject{Host: s.Host},
			"no RDMA device on this node: sys/class/infiniband is empty",
			finding.Evidence{Source: "sys/class/infiniband", Value: "empty or absent"})
		f.Severity = finding.Warning
		out = append(out, f)
	}
	return out
}

// hasActiveSibling reports whether another port of the same HCA model and
// link layer is ACTIVE: then this port is expected to be up too.
func hasActiveSibling(s *snapshot.Snapshot, d *snapshot.Device, p *snapshot.Port) bool {
	for op := range activeOfModel(s, d, p.LinkLayer) {
		if op != p {
			return true
		}
	}
	return false
}

// spareOfActive says whether another port of p's own HCA, of its link
// layer, is ACTIVE: p is then the other port of a dual-port card, which
// many hosts leave uncabled.
func spareOfActive(d *snapshot.Device, p *snapshot.Port) bool {
	for i := range d.Ports {
		if op := &d.Ports[i]; op.Number != p.Number && op.LinkLayer == p.LinkLayer && op.IsActive() {
			return true
		}
	}
	return false
}

// activeOtherLayer names the link layer of an ACTIVE port of d whose link
// layer is not p's ("InfiniBand" beside an Ethernet port of a VPI card),
// "" when there is none.
func activeOtherLayer(d *snapshot.Device, p *snapshot.Port) string {
	for i := range d.Ports {
		if op := &d.Ports[i]; op.Number != p.Number && op.LinkLayer != p.LinkLayer && op.IsActive() {
			return string(op.LinkLayer)
		}
	}
	return ""
}

// activeOfModel yields the ACTIVE ports of d's HCA model with link layer
// ll, on every device of the snapshot (d's own included): the ports a
// port of d is compared with.
func activeOfModel(s *snapshot.Snapshot, d *snapshot.Device, ll ib.LinkLayer) iter.Seq[*snapshot.Port] {
	model := d.Model(s)
	return func(yield func(*snapshot.Port) bool) {
		for i := range s.Devices {
			od := &s.Devices[i]
			if od.Model(s) != model {
				continue
			}
			for j := range od.Ports {
				if op := &od.Ports[j]; op.LinkLayer == ll && op.IsActive() && !yield(op) {
					return
				}
			}
		}
	}
}

// cutShort says how a pasted snapshot shows less than the whole host: a
// port whose state the paste cut off, or devices missing below a pasted
// one in its driver's numbering (mlx5_10 shown, mlx5_2…mlx5_9 not: the
// kernel numbers a driver's devices from 0). "" when neither.
func cutShort(s *snapshot.Snapshot) string {
	for i := range s.Devices {
		d := &s.Devices[i]
		for j := range d.Ports {
			if d.Ports[j].State == nil {
				return fmt.Sprintf("%s port %d has no state", d.Name, d.Ports[j].Number)
			}
		}
	}
	for i := range s.Devices {
		name := s.Devices[i].Name
		switch gone, _ := missingBelow(s, name); len(gone) {
		case 0:
		case 1:
			return fmt.Sprintf("%s is not shown below %s", gone[0], name)
		default:
			return fmt.Sprintf("%d devices below %s are not shown (%s…%s)", len(gone), name, gone[0], gone[len(gone)-1])
		}
	}
	return ""
}

// anyActive says whether any port of the snapshot is ACTIVE.
func anyActive(s *snapshot.Snapshot) bool {
	for i := range s.Devices {
		for j := range s.Devices[i].Ports {
			if s.Devices[i].Ports[j].IsActive() {
				return true
			}
		}
	}
	return false
}

// checkState reports every port that is not ACTIVE (or is ACTIVE with a
// physical state other than expected), saying why it should be up.
func checkState(in *Input) []finding.Finding {
	s := in.Snap
	var out []finding.Finding
	for i := range s.Devices {
		d := &s.Devices[i]
		for j := range d.Ports {
			if f, ok := checkPortState(in, d, &d.Ports[j]); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// portStateView is a port's logical and physical state as judged: an
// unknown physical state is inferred as LinkUp where the logical state
// proves it.
type portStateView struct {
	st           ib.PortState
	ph           ib.PhysState
	physKnown    bool
	physInferred bool
	ev           []finding.Evidence
}

// viewPortState reads p's state and physical state, with their
// evidence. p.State must be set.
func viewPortState(p *snapshot.Port) portStateView {
	// An unknown physical state (file unreadable, or a tool output
	// that does not print it) is judged on the logical state alone.
	v := portStateView{st: *p.State, physKnown: p.PhysState != nil}
	v.ev = []finding.Evidence{{Source: portPath(p, "state"), Value: fmt.Sprintf("%d: %s", v.st, v.st)}}
	if v.physKnown {
		v.ph = *p.PhysState
		v.ev = append(v.ev, finding.Evidence{Source: portPath(p, "phys_state"), Value: fmt.Sprintf("%d: %s", v.ph, v.ph)})
	} else if v.st == ib.StateInit || v.st == ib.StateArmed {
		// The logical state leaves DOWN only once the physical
		// link is up (IBTA vol 1, 7.2 port state machine): a port
		// in INIT or ARMED has its link up whatever the tool
		// left out.
		v.ph, v.physKnown, v.physInferred = ib.PhysLinkUp, true, true
	}
	return v
}

// checkPortState judges one port; ok is false when there is nothing to
// report.
func checkPortState(in *Input, d *snapshot.Device, p *snapshot.Port) (f finding.Finding, ok bool) {
	s := in.Snap
	if p.State == nil {
		return f, false // unreadable: reported as a gap
	}
	pe := portExpect(in, d.Name, p.Number)
	if pe != nil && pe.Ignore {
		return f, false
	}
	v := viewPortState(p)
	wantUp, why, skip := wantPortUp(in, d, p, pe, v)
	if skip {
		return f, false
	}
	// In a paste, ACTIVE ports of the same HCA model are weak evidence
	// that this one should be up: the second port of a dual-port HCA and
	// the Ethernet ports of front-end NICs are often left unused or
	// switched off on purpose. Without a LID, a physical link, Polling (a
	// port looking for a peer), link training (a peer is there) or an
	// expectation, the paste cannot tell an unused port from a fault: a
	// warning that says how to tell.
	//
	// Polling says only that the port is enabled and finds no peer: it is
	// the state an uncabled port of a dual-port HCA sits in for ever. When
	// another port of the same HCA is ACTIVE, the Polling port is that
	// card's spare and the paste cannot tell it from a pulled cable; a
	// Polling port of its own HCA beside ACTIVE ones of other HCAs (one
	// rail of eight) stays critical.
	weak := in.Pasted && wantUp && pe == nil && why == whySiblingActive &&
		(!v.physKnown || v.ph == ib.PhysDisabled || v.ph == ib.PhysSleep || (v.ph == ib.PhysPolling && spareOfActive(d, p)))
	if v.physKnown && pe != nil && pe.PhysState != nil && v.ph != *pe.PhysState && v.st == ib.StateActive {
		// ACTIVE but not LinkUp: the logical state is stale.
		f = catalog.New("port.down", portSubject(s, p),
			fmt.Sprintf("%s port %d is ACTIVE but its physical state is %s, expected %s", d.Name, p.Number, v.ph, pe.PhysState), v.ev...)
		f.Severity = finding.Warning
		return f, true
	}
	if v.st == ib.StateActive {
		return f, false
	}
	if in.Pasted && pe == nil && (why == whySiblingActive || !wantUp) && p.LinkLayer == ib.LinkLayerEthernet &&
		(v.physKnown && v.ph == ib.PhysDisabled || !v.physKnown && v.st == ib.StateDown) {
		// A RoCE port that is DOWN is Disabled: the drivers report no
		// other physical state for it (see switchedOffRoCE).
		if other, ok := switchedOffRoCE(s, p); ok {
			in.Notes = append(in.Notes, PortNote{Evidence: v.ev[len(v.ev)-1], Text: roceOffNote(d, p, v, other)})
			return f, false
		}
	}
	f = portStateFinding(s, d, p, v)
	if weak {
		f.Severity = finding.Warning
		none := "no LID from a subnet manager, no physical link"
		if p.LinkLayer == ib.LinkLayerEthernet {
			none = "no carrier"
		}
		f.Summary += fmt.Sprintf("; %s, but nothing in the paste says this one carried traffic (%s): if it should be cabled, check the cable and the peer port, otherwise it is an unused port", why, none)
		return f, true
	}
	if !wantUp {
		f.Severity = finding.Info
		if in.Pasted {
			// Nobody pastes a port to ask about it for nothing; and
			// where no port of the paste is ACTIVE at all, none of its
			// RDMA links works: that is the fault asked about.
			f.Severity = finding.Warning
			if cut := cutShort(s); !anyActive(s) && cut == "" {
				f.Severity = finding.Critical
				why = "no port in the paste is ACTIVE, so no RDMA link of this host works"
			} else if !anyActive(s) {
				why = fmt.Sprintf("no port in the paste is ACTIVE, but the paste is cut short (%s), so whether the host's other RDMA links work is not known", cut)
			}
		}
	}
	f.Summary += "; " + why
	return f, true
}

// switchedOffRoCE says whether a pasted RoCE port that is Down/Disabled
// looks switched off or unused on purpose, and names the ACTIVE port of
// the host that says so. The RoCE drivers (mlx4_ib, mlx5_ib, bnxt_re
// query_port) report an Ethernet port ACTIVE/LinkUp only while its netdev
// is running with carrier and DOWN/Disabled otherwise (never Polling), so
// Disabled is a netdev set down (ip link set DEV down) or one without
// carrier; ibv_devinfo without -v, which leaves the physical state out,
// shows the same port as PORT_DOWN. It is taken as switched off when the host runs RDMA on
// InfiniBand only: another port of the paste is ACTIVE and no Ethernet
// port is (a VPI card's Ethernet port, or an Ethernet card, left off).
// Beside an ACTIVE RoCE port it stays reported: the second port of a card
// left off and one rail of eight down look alike there.
func switchedOffRoCE(s *snapshot.Snapshot, p *snapshot.Port) (other string, ok bool) {
	for i := range s.Devices {
		od := &s.Devices[i]
		for j := range od.Ports {
			op := &od.Ports[j]
			if op == p || !op.IsActive() {
				continue
			}
			if op.LinkLayer != ib.LinkLayerInfiniBand {
				return "", false
			}
			if other == "" {
				other = fmt.Sprintf("%s port %d (InfiniBand)", od.Name, op.Number)
			}
		}
	}
	return other, other != ""
}

// roceOffNote is the note for a RoCE port switchedOffRoCE passed.
func roceOffNote(d *snapshot.Device, p *snapshot.Port, v portStateView, other string) string {
	nd := p.NetDev
	if nd == "" {
		nd = "<netdev>"
	}
	st := "Down/Disabled"
	if !v.physKnown {
		st = "DOWN (physical state not shown; DOWN is Disabled for a RoCE port)"
	}
	return fmt.Sprintf("%s port %d (Ethernet, RoCE) is %s while %s is ACTIVE and no Ethernet port is: the RoCE driver reports Disabled while the port's netdev is down or has no carrier, and this host runs RDMA on InfiniBand, so it is most likely switched off or unused on purpose, not reported; 'ip link show %s' tells (no UP flag: set down by an administrator; NO-CARRIER: cable or peer), and a baseline (ibdoctor baseline, or --expect) that lists it as ACTIVE makes it a finding", d.Name, p.Number, st, other, nd)
}

// whySiblingActive is wantPortUp's reason when only the ACTIVE ports of
// the same HCA model say a port should be up.
const whySiblingActive = "other ports of this HCA model are ACTIVE"

// wantPortUp says whether port p is expected to be up and why; skip is
// true when the expectation wants it in exactly the state it is in.
func wantPortUp(in *Input, d *snapshot.Device, p *snapshot.Port, pe *expect.Port, v portStateView) (wantUp bool, why string, skip bool) {
	st, ph := v.st, v.ph
	wantUp = true
	why = whySiblingActive
	if pe != nil && pe.State != nil {
		wantUp = *pe.State == ib.StateActive
		why = fmt.Sprintf("expected %s (%s:%d)", pe.State, in.Expect.Source, pe.Line)
		if !wantUp && st == *pe.State {
			return wantUp, why, true
		}
	} else if ph == ib.PhysLinkUp {
		// The physical link is up, so a cable and a peer are there:
		// the port is meant to be used, whatever its siblings do (a
		// fabric without an SM leaves every port INIT).
		why = "the physical link is up, so the port is cabled"
	} else if st != ib.StateActive && ph != ib.PhysDisabled && p.LinkLayer != ib.LinkLayerEthernet && p.LID != nil && *p.LID != 0 && *p.LID < 0xc000 {
		// A subnet manager gave the port a unicast LID: it was
		// cabled and in use, and has lost its link since (a
		// Disabled port may have been turned off on purpose).
		why = fmt.Sprintf("it has LID %d from a subnet manager, so it was cabled and in use", *p.LID)
	} else if st != ib.StateActive && slices.Contains(in.Fragments, d.Name) {
		why = "the paste is cut down to this port block (its HCA's header left out), so it is the port asked about"
	} else if missing := leftOut(in, d); st != ib.StateActive && missing != "" {
		why = fmt.Sprintf("the paste shows %s without %s: the node's other HCAs were left out (one device chosen with ibstat <dev>, or the output cut), so it is the port asked about", d.Name, missing)
	} else if st != ib.StateActive && !hasActiveSibling(in.Snap, d, p) {
		wantUp = false
		why = "no other port of this HCA model is ACTIVE, so it may be uncabled on purpose; write a baseline to make it expected"
		if other := activeOtherLayer(d, p); other != "" {
			why = fmt.Sprintf("its HCA's %s port is ACTIVE but no %s port of this HCA model is, so this one (a VPI card's second port) may be unused on purpose; write a baseline to make it expected", other, p.LinkLayer)
		}
	}
	return wantUp, why, false
}

// leftOut names the devices a pasted snapshot lacks below d in its
// driver's numbering when it lacks every one of them ("mlx5_0…mlx5_7" for
// mlx5_8 shown alone): the kernel numbers a driver's devices from 0, so
// a paste of mlx5_8 without them was cut down to it, and their absence
// says nothing about whether d's port is meant to be up. "" when any of
// them is there or d is not numbered so; always "" for a live node,
// which lists every device.
func leftOut(in *Input, d *snapshot.Device) string {
	if !in.Pasted {
		return ""
	}
	// Only when none of them is there: a gap between pasted devices may
	// be devices merged into a bond (mlx5_bond_0) or moved, not cut.
	gone, below := missingBelow(in.Snap, d.Name)
	if len(gone) == 0 || len(gone) < below {
		return ""
	}
	return namedRange(gone)
}

// missingBelow lists the devices numbered below name in its driver's
// numbering (mlx5_0…mlx5_7 below mlx5_8) that the snapshot lacks, and
// how many there are below it; nil, 0 when name is not numbered so.
func missingBelow(s *snapshot.Snapshot, name string) (gone []string, below int) {
	i := strings.LastIndexByte(name, '_')
	if i < 0 {
		return nil, 0
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n <= 0 || n > 64 {
		return nil, 0
	}
	for k := range n {
		if s.Device(name[:i+1]+strconv.Itoa(k)) == nil {
			gone = append(gone, name[:i+1]+strconv.Itoa(k))
		}
	}
	return gone, n
}

// namedRange names devices for a summary: "mlx5_0", "mlx5_0 and
// mlx5_1", "mlx5_0…mlx5_7".
func namedRange(gone []string) string {
	switch len(gone) {
	case 1:
		return gone[0]
	case 2:
		return gone[0] + " and " + gone[1]
	}
	return fmt.Sprintf("%s…%s", gone[0], gone[len(gone)-1])
}

// portStateFinding is the finding for a port that is not ACTIVE, named
// by what its physical state says is wrong.
func portStateFinding(s *snapshot.Snapshot, d *snapshot.Device, p *snapshot.Port, v portStateView) finding.Finding {
	st, ph, ev := v.st, v.ph, v.ev
	roce := p.LinkLayer == ib.LinkLayerEthernet
	var f finding.Finding
	switch {
	case !v.physKnown:
		f = catalog.New("port.down", portSubject(s, p),
			fmt.Sprintf("%s port %d is %s; its physical state is unknown, so Polling (no link partner) and Disabled cannot be told apart (ibv_devinfo -v or ibstat show it)", d.Name, p.Number, st), ev...)
	case ph == ib.PhysPolling:
		f = catalog.New("port.polling", portSubject(s, p),
			fmt.Sprintf("%s port %d is Polling: no link partner (cable, transceiver or peer port)", d.Name, p.Number), ev...)
	case ph == ib.PhysDisabled && roce:
		nd := p.NetDev
		if nd == "" {
			nd = "its netdev"
		}
		f = catalog.New("port.disabled", portSubject(s, p),
			fmt.Sprintf("RoCE port %s/%d is down: %s has no carrier or is administratively down", d.Name, p.Number, nd), ev...)
		if n := s.NetDev(p.NetDev); n != nil {
			f.Evidence = append(f.Evidence, finding.Evidence{Source: "sys/class/net/" + n.Name + "/operstate", Value: n.OperState})
		}
	case ph == ib.PhysDisabled:
		f = catalog.New("port.disabled", portSubject(s, p),
			fmt.Sprintf("%s port %d is Disabled", d.Name, p.Number), ev...)
	case (st == ib.StateInit || st == ib.StateArmed) && ph == ib.PhysLinkUp && !roce:
		f = initNoSMFinding(s, d, p, v)
	case st == ib.StateDown && ph == ib.PhysLinkUp && !roce && zeroGUID(d.NodeGUID):
		// An SR-IOV VF whose GUIDs were never set: the SM cannot
		// address a port without a GUID, so it stays DOWN.
		f = catalog.New("port.down", portSubject(s, p),
			fmt.Sprintf("%s port %d is DOWN with the physical link up and its node GUID is all zeros: a virtual function whose GUIDs were never assigned, which no subnet manager can activate; assign the VF's node and port GUIDs (ip link set <pf> vf <n> node_guid <guid> port_guid <guid>, or the SR-IOV device plugin's GUID pool) and rebind it", d.Name, p.Number), ev...)
		f.Evidence = append(f.Evidence, finding.Evidence{Source: devPath(d.Name, "node_guid"), Value: d.NodeGUID})
	default:
		f = catalog.New("port.down", portSubject(s, p),
			fmt.Sprintf("%s port %d is %s (%s)", d.Name, p.Number, st, ph), ev...)
	}
	return f
}

// initNoSMFinding is port.init_no_sm for an InfiniBand port in INIT or
// ARMED with its link up, with what its SM LID says about the subnet
// manager.
func initNoSMFinding(s *snapshot.Snapshot, d *snapshot.Device, p *snapshot.Port, v portStateView) finding.Finding {
	st := v.st
	sum := fmt.Sprintf("%s port %d is %s with the link up: no subnet manager has configured it", d.Name, p.Number, st)
	if v.physInferred {
		sum = fmt.Sprintf("%s port %d is %s, so its physical link is up (the logical state leaves DOWN only then): no subnet manager has configured it", d.Name, p.Number, st)
	}
	switch {
	case p.SMLID == nil:
	case *p.SMLID == 0:
		sum += "; SM lid 0: no subnet manager has ever answered on this port"
	case p.LID != nil && *p.LID == *p.SMLID:
		// An SM names itself master with its own port's LID.
		sum += fmt.Sprintf("; SM lid %d is this port's own LID: the subnet manager it points at is the one on this host, which has not brought it to ACTIVE (check that it is still running: systemctl status opensm, or the OpenSM service of WinOF on Windows)", *p.SMLID)
	default:
		sum += fmt.Sprintf("; SM lid %d: that subnet manager has not brought the port to ACTIVE (check its log, and that this port's GUID is not excluded or duplicated)", *p.SMLID)
	}
	f := catalog.New("port.init_no_sm", portSubject(s, p), sum, v.ev...)
	if p.SMLID != nil {
		f.Evidence = append(f.Evidence, finding.Evidence{Source: portPath(p, "sm_lid"), Value: fmt.Sprintf("0x%x", *p.SMLID)})
	}
	return f
}

// expectedRate returns the rate a port should run at and where that comes
// from: the expectation, else the most common rate among ACTIVE ports of
// the same HCA model and link layer on the same subnet (ties: the
// fastest).
func expectedRate(in *Input, d *snapshot.Device, p *snapshot.Port) (ib.Rate, string, bool) {
	if pe := portExpect(in, d.Name, p.Number); pe != nil && pe.Rate != nil {
		return *pe.Rate, fmt.Sprintf("%s:%d", in.Expect.Source, pe.Line), true
	}
	s := in.Snap
	model := d.Model(s)
	counts := map[ib.Rate]int{}
	for op := range activeOfModel(s, d, p.LinkLayer) {
		if op.Rate != nil && !otherSubnet(p, op) {
			counts[*op.Rate]++
		}
	}
	var best ib.Rate
	n := 0
	for r, c := range counts {
		if c > n || c == n && r.DeciGbps > best.DeciGbps {
			best, n = r, c
		}
	}
	if n < 2 {
		return ib.Rate{}, "", false // nothing to compare against
	}
	return best, fmt.Sprintf("majority of %d ACTIVE %s %s ports on this node", n, model, p.LinkLayer.Short()), true
}

// otherSubnet says whether two InfiniBand ports answer to different
// subnet managers (both SM LIDs known, non-zero and unequal): they are
// cabled to different fabrics, whose switches set the lane speed (a
// ConnectX-5 trains to FDR on an FDR switch), so the one's rate says
// nothing about what the other should run at. A port's width is its own:
// widerElsewhere compares it across subnets.
func otherSubnet(a, b *snapshot.Port) bool {
	if a.LinkLayer != ib.LinkLayerInfiniBand || b.LinkLayer != ib.LinkLayerInfiniBand || a.SMLID == nil || b.SMLID == nil {
		return false
	}
	return *a.SMLID != 0 && *b.SMLID != 0 && *a.SMLID != *b.SMLID
}

// widerElsewhere returns the width most ACTIVE ports of p's HCA model and
// link layer on other subnets train to, when it is wider than p's: a
// 4X-capable port at 2X lost lanes whatever fabric it is cabled to.
func widerElsewhere(in *Input, d *snapshot.Device, p *snapshot.Port) (int, int, bool) {
	if p.Rate == nil || p.Rate.Width == 0 {
		return 0, 0, false
	}
	counts := map[int]int{}
	for op := range activeOfModel(in.Snap, d, p.LinkLayer) {
		if op.Rate != nil && op.Rate.Width > 0 && otherSubnet(p, op) {
			counts[op.Rate.Width]++
		}
	}
	best, n := 0, 0
	for w, c := range counts {
		if c > n || c == n && w > best {
			best, n = w, c
		}
	}
	if n < 2 || best <= p.Rate.Width {
		return 0, 0, false
	}
	return best, n, true
}

func checkRate(in *Input) []finding.Finding {
	s := in.Snap
	var out []finding.Finding
	for i := range s.Devices {
		d := &s.Devices[i]
		for j := range d.Ports {
			p := &d.Ports[j]
			if !p.IsActive() || p.Rate == nil {
				continue
			}
			if pe := portExpect(in, d.Name, p.Number); pe != nil && pe.Ignore {
				continue
			}
			got := *p.Rate
			want, src, ok := expectedRate(in, d, p)
			if ok {
				met := got.DeciGbps >= want.DeciGbps && (got.Width == 0 || got.Width >= want.Width) && (got.Speed.Generation() == 0 || got.Speed.Generation() >= want.Speed.Generation())
				if !met {
					f := rateFinding(in, d, p, got, want, src)
					if in.Pasted && portExpect(in, d.Name, p.Number) == nil && d.Model(s) == "unknown" {
						// ibstatus and rdma link name no HCA model: the
						// ports compared may be different cards (a
						// front-end NIC beside the back-end ones), each
						// at the rate it is built for.
						f.Severity = finding.Warning
						f.Summary += "; the paste names no HCA model, so the ports compared may be different cards (a front-end NIC at its own rate): ibstat or ibv_devinfo shows each one's CA type"
					}
					out = append(out, f)
				}
				if pe := portExpect(in, d.Name, p.Number); !met || pe != nil && pe.Rate != nil {
					continue
				}
			}
			if w, n, wider := widerElsewhere(in, d, p); wider {
				want := ib.Rate{DeciGbps: got.DeciGbps * w / got.Width, Width: w, Speed: got.Speed}
				out = append(out, rateFinding(in, d, p, got, want,
					fmt.Sprintf("width of %d ACTIVE %s %s ports on other subnets of this node", n, d.Model(s), p.LinkLayer.Short())))
				continue
			}
			if !ok {
				if f, ok := floorRate(in, d, p); ok {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// floorRateDeciGbps is the rate (tenths of Gb/s) below which an ACTIVE
// ConnectX port is degraded whatever it is expected to run at: 2.5 and
// 5 Gb/s are 1X SDR and 1X DDR, one lane at the two oldest InfiniBand
// speeds, which no ConnectX-3 or later HCA trains to on a working link.
// On Ethernet the kernel reports a port's speed as an IB width and lane
// speed (mlx5: drivers/infiniband/hw/mlx5/main.c translate_eth_proto_oper):
// 10 GbE as 1X QDR (10), 25 GbE as 1X EDR (25), 100 GbE as 4X EDR (100),
// and 1000BASE-T/-KX/SGMII and 100BASE-TX as 1X SDR, so 2.5 on an
// Ethernet port means the link negotiated 1 Gb/s or less.
const floorRateDeciGbps = 100

// floorRate is the finding of an ACTIVE ConnectX port below
// floorRateDeciGbps when nothing else says what it should run at (no
// baseline, no sibling ports of its model to compare with). Soft-RoCE
// (rxe) and siw report their netdev's speed the same way (1 GbE is 2.5)
// and are not ConnectX devices, so they are not judged.
func floorRate(in *Input, d *snapshot.Device, p *snapshot.Port) (finding.Finding, bool) {
	got := *p.Rate
	if got.DeciGbps <= 0 || got.DeciGbps >= floorRateDeciGbps || !isConnectX(d) {
		return finding.Finding{}, false
	}
	lanes := "1X SDR"
	if got.DeciGbps > 25 {
		lanes = "1X DDR"
	}
	if got.Width > 0 && got.Speed.Generation() > 0 {
		lanes = fmt.Sprintf("%dX %s", got.Width, got.Speed)
	}
	hca := d.HCAType
	if hca == "" {
		hca = "ConnectX"
	}
	var why string
	switch p.LinkLayer {
	case ib.LinkLayerInfiniBand:
		why = "an InfiniBand link that trained to one lane at the slowest speed: a cable, transceiver or peer port fault"
	case ib.LinkLayerEthernet:
		why = "an Ethernet port that negotiated 1 Gb/s or less (the kernel reports 1000BASE-T/-KX/SGMII as 1X SDR): a 1G module or cable, or a peer port forced to 1G"
	default:
		why = "on InfiniBand a link trained to one lane at the slowest speed; on Ethernet a port that negotiated 1 Gb/s or less (the kernel reports 1 GbE as 1X SDR): a cable, module or peer port fault"
	}
	f := catalog.New("port.rate_below_expected", portSubject(in.Snap, p),
		fmt.Sprintf("%s port %d (%s) is ACTIVE at %s Gb/s (%s), far below any rate a ConnectX port is built for: %s; if it is meant to run at 1 GbE, write a baseline with its rate",
			d.Name, p.Number, hca, fmtG(got), lanes, why),
		finding.Evidence{Source: portPath(p, "rate"), Value: got.Sysfs()})
	f.Severity = finding.Warning
	return f, true
}

// isConnectX says whether d is a Mellanox/NVIDIA ConnectX HCA, by its
// driver's device name (mlx4_N, mlx5_N) or its CA type (MT4099 …
// MT4131: the PCI device IDs 0x1003 … 0x1023 in decimal, as ibstat
// prints them).
func isConnectX(d *snapshot.Device) bool {
	if strings.HasPrefix(d.Name, "mlx4_") || strings.HasPrefix(d.Name, "mlx5_") {
		return true
	}
	t, ok := strings.CutPrefix(d.HCAType, "MT")
	n, err := strconv.Atoi(t)
	return ok && err == nil && n >= 4099 && n <= 4131
}

// rateFinding is the one finding of a port below its expected rate. One
// cause, one finding: a narrower width (port.width_degraded) or a slower
// lane speed (port.speed_degraded) is the cause and the rate shortfall is
// its evidence; port.rate_below_expected stands alone only when neither
// explains the shortfall. A link that lost lanes and speed at once trained
// down once: it is one width finding whose summary names both. A shortfall
// up to Thresholds.RateShortfallCritical makes any of them a warning.
func rateFinding(in *Input, d *snapshot.Device, p *snapshot.Port, got, want ib.Rate, src string) finding.Finding {
	subj := portSubject(in.Snap, p)
	ev := []finding.Evidence{
		{Source: portPath(p, "rate"), Value: got.Sysfs()},
		{Source: src, Value: "expected " + want.Sysfs()},
	}
	short := 0.0
	if got.DeciGbps < want.DeciGbps {
		short = 1 - float64(got.DeciGbps)/float64(want.DeciGbps)
	}
	narrow := got.Width > 0 && got.Width < want.Width
	slow := got.Speed.Generation() > 0 && got.Speed.Generation() < want.Speed.Generation()
	rate := fmt.Sprintf("%s of %s Gb/s", fmtG(got), fmtG(want))
	if short > 0 {
		rate = fmt.Sprintf("%s Gb/s, %.0f%% below the expected %s Gb/s", fmtG(got), short*100, fmtG(want))
	}
	var f finding.Finding
	switch {
	case narrow && slow:
		f = catalog.New("port.width_degraded", subj,
			fmt.Sprintf("%s port %d runs at %dX instead of %dX and its lanes at %s instead of %s (%s)", d.Name, p.Number, got.Width, want.Width, got.Speed, want.Speed, rate), ev...)
	case narrow:
		f = catalog.New("port.width_degraded", subj,
			fmt.Sprintf("%s port %d runs at %dX instead of %dX (%s)", d.Name, p.Number, got.Width, want.Width, rate), ev...)
	case slow:
		f = catalog.New("port.speed_degraded", subj,
			fmt.Sprintf("%s port %d lanes run at %s instead of %s (%s)", d.Name, p.Number, got.Speed, want.Speed, rate), ev...)
	default:
		f = catalog.New("port.rate_below_expected", subj,
			fmt.Sprintf("%s port %d runs at %s", d.Name, p.Number, rate), ev...)
	}
	// The bandwidth lost decides: a shortfall up to the threshold is a
	// warning whichever fact explains it.
	if short > 0 && short <= in.Thresholds.RateShortfallCritical {
		f.Severity = finding.Warning
	}
	return f
}

func fmtG(r ib.Rate) string { return strconv.FormatFloat(r.Gbps(), 'f', -1, 64) }

func counterIDs() []string {
	var ids []string
	for _, c := range limits.Counters {
		ids = append(ids, c.NodeID)
	}
	return ids
}

// checkCounterTotals judges each IBTA error counter's total since the
// counters were last cleared against the table the fabric rules use too
// (limits.Counters), so a port reads the same from the node and from the
// fabric: a warning at or above the limit. A saturated counter is
// port.counter_saturated's, not this rule's.
func checkCounterTotals(in *Input) []finding.Finding {
	if in.NoCounterTotals {
		return nil
	}
	s := in.Snap
	var out []finding.Finding
	for i := range s.Devices {
		d := &s.Devices[i]
		for j := range d.Ports {
			p := &d.Ports[j]
			if pe := portExpect(in, d.Name, p.Number); pe != nil && pe.Ignore {
				continue
			}
			for _, lim := range limits.Counters {
				c, ok := p.Counter(lim.Sysfs)
				if !ok || c.Value < lim.Total || c.Saturated() {
					continue
				}
				what := fmt.Sprintf("%d %s", c.Value, lim.Label)
				if lim == limits.LinkDowned {
					what = fmt.Sprintf("went down %d time(s)", c.Value)
				}
				f := catalog.New(lim.NodeID, portSubject(s, p),
					fmt.Sprintf("%s port %d: %s since the counters were last cleared (limit %d)", d.Name, p.Number, what, lim.Total),
					finding.Evidence{Source: portPath(p, "counters/"+lim.Sysfs), Value: strconv.FormatUint(c.Value, 10)})
				f.Severity = finding.Warning
				out = append(out, f)
			}
		}
	}
	return out
}

func checkSaturated(in *Input) []finding.Finding {
	s := in.Snap
	var out []finding.Finding
	for i := range s.Devices {
		d := &s.Devices[i]
		for j := range d.Ports {
			p := &d.Ports[j]
			for _, c := range p.Counters {
				if c.Spec.Kind != ib.KindError || !c.Saturated() {
					continue
				}
				out = append(out, catalog.New("port.counter_saturated", portSubject(s, p),
					fmt.Sprintf("%s port %d %s is stuck at its %d-bit maximum %d: its true value and rate are unknown", d.Name, p.Number, c.Name, c.Spec.Bits, c.Spec.Max()),
					finding.Evidence{Source: portPath(p, "counters/"+c.Name), Value: strconv.FormatUint(c.Value, 10)}))
			}
		}
	}
	return out
}

// checkPKeys judges the P_Key table of every ACTIVE InfiniBand port (the
// SM programs it when it activates the port; RoCE ports carry a fixed
// 0xffff). An empty table drops every packet; a table without a
// full-membership key cannot reach other limited members.
func checkPKeys(in *Input) []finding.Finding {
	s := in.Snap
	var out []finding.Finding
	for i := range s.Devices {
		for j := range s.Devices[i].Ports {
			p := &s.Devices[i].Ports[j]
			if p.LinkLayer != ib.LinkLayerInfiniBand || !p.IsActive() || !p.HasPKeys {
				continue
			}
			if len(p.PKeys) == 0 {
				out = append(out, catalog.New("port.pkey_none", portSubject(s, p),
					fmt.Sprintf("%s port %d is ACTIVE with an empty P_Key table: it can exchange no packets", p.Device, p.Number),
					finding.Evidence{Source: portPath(p, "pkeys/"), Value: "every entry 0x0000"}))
				continue
			}
			keys := make([]string, len(p.PKeys))
			for k, v := range p.PKeys {
				keys[k] = fmt.Sprintf("0x%04x", v)
			}
			// The default partition (0x7fff limited, 0xffff full) carries
			// the port's SA queries: the kernel looks it up
			// (drivers/infiniband/core/sa_query.c update_sm_ah:
			// ib_find_pkey(IB_DEFAULT_PKEY_FULL), which takes the limited
			// key too) and without it sends them with entry 0's key.
			if !slices.ContainsFunc(p.PKeys, func(k uint16) bool { return k&0x7fff == 0x7fff }) {
				out = append(out, catalog.New("port.pkey_default_missing", portSubject(s, p),
					fmt.Sprintf("%s port %d is in no default partition (neither 0xffff nor 0x7fff among %s): its subnet administration queries (path records, multicast joins) go out with another partition's key", p.Device, p.Number, strings.Join(keys, ", ")),
					finding.Evidence{Source: portPath(p, "pkeys/"), Value: strings.Join(keys, " ")}))
				continue
			}
			full := slices.ContainsFunc(p.PKeys, func(k uint16) bool { return k&0x8000 != 0 })
			if full {
				continue
			}
			out = append(out, catalog.New("port.pkey_limited_only", portSubject(s, p),
				fmt.Sprintf("%s port %d is only a limited member of its partitions (%s): it cannot talk to other limited members", p.Device, p.Number, strings.Join(keys, ", ")),
				finding.Evidence{Source: portPath(p, "pkeys/"), Value: strings.Join(keys, " ")}))
		}
	}
	return out
}

// checkIPoIBMTU compares the MTU of the IPoIB interfaces of the node's
// InfiniBand ports: the odd ones out against the majority. sysfs does not
// show the port's active IB MTU; the IPoIB MTU follows it (4092 in
// datagram mode on a 4K fabric, 2044 on 2K) or the connected mode (65520).
func checkIPoIBMTU(in *Input) []finding.Finding {
	s := in.Snap
	type ent struct {
		p   *snapshot.Port
		mtu int
	}
	var ents []ent
	count := map[int]int{}
	for i := range s.Devices {
		for j := range s.Devices[i].Ports {
			p := &s.Devices[i].Ports[j]
			if p.LinkLayer != ib.LinkLayerInfiniBand || p.NetDev == "" {
				continue
			}
			nd := s.NetDev(p.NetDev)
			if nd == nil || nd.MTU == nil || nd.Type != nil && *nd.Type != 32 {
				continue
			}
			ents = append(ents, ent{p, *nd.MTU})
			count[*nd.MTU]++
		}
	}
	if len(count) < 2 {
		return nil
	}
	major := 0
	for m, c := range count {
		if c > count[major] || c == count[major] && m > major {
			major = m
		}
	}
	if count[major]*2 <= len(ents) {
		major = -1 // no majority: every interface is named
	}
	var out []finding.Finding
	for _, e := range ents {
		if e.mtu == major {
			continue
		}
		summary := fmt.Sprintf("IPoIB interface %s of %s port %d has MTU %d while %d of the node's %d IPoIB interfaces have %d", e.p.NetDev, e.p.Device, e.p.Number, e.mtu, count[major], len(ents), major)
		if major < 0 {
			summary = fmt.Sprintf("IPoIB interface %s of %s port %d has MTU %d; the node's IPoIB interfaces disagree (%d values)", e.p.NetDev, e.p.Device, e.p.Number, e.mtu, len(count))
		}
		out = append(out, catalog.New("port.ipoib_mtu_mismatch", portSubject(s, e.p), summary,
			finding.Evidence{Source: "sys/class/net/" + e.p.NetDev + "/mtu", Value: strconv.Itoa(e.mtu)}))
	}
	return out
}

// checkDriver compares the mlx5_core version with the expectation's
// driver_version. Without one there is nothing to compare on a single
// node: all its HCAs share the one module.
func checkDriver(in *Input) []finding.Finding {
	s := in.Snap
	if in.Expect == nil || in.Expect.DriverVersion == nil {
		return nil
	}
	want := *in.Expect.DriverVersion
	exp := finding.Evidence{Source: fmt.Sprintf("%s:%d", in.Expect.Source, in.Expect.DriverLine), Value: "driver_version: " + want}
	got, src := s.DriverVersion, "sys/module/mlx5_core/version"
	if got != want && s.DriverSrcVersion == want {
		got, src = s.DriverSrcVersion, "sys/module/mlx5_core/srcversion"
	}
	if got == want {
		return nil
	}
	subj := finding.Subject{Host: s.Host}
	if got == "" && s.DriverSrcVersion == "" {
		if len(s.Devices) == 0 {
			return nil // no RDMA device: port.missing or the empty node says more
		}
		return []finding.Finding{catalog.New("host.driver_mismatch", subj,
			fmt.Sprintf("mlx5_core shows neither a version nor a srcversion, expected %s (an inbox driver where an out-of-tree one was recorded, or mlx5_core built into the kernel)", want),
			finding.Evidence{Source: "sys/module/mlx5_core/", Value: "no version, no srcversion"}, exp)}
	}
	if got == "" {
		got, src = s.DriverSrcVersion, "sys/module/mlx5_core/srcversion"
	}
	return []finding.Finding{catalog.New("host.driver_mismatch", subj,
		fmt.Sprintf("mlx5_core is %s, expected %s", got, want),
		finding.Evidence{Source: src, Value: got}, exp)}
}

func checkFirmware(in *Input) []finding.Finding {
	s := in.Snap
	var out []finding.Finding
	// With an expectation: every device against its expected version.
	judged := map[string]bool{}
	if in.Expect != nil {
		for i := range s.Devices {
			d := &s.Devices[i]
			ed, ok := in.Expect.For(d.Name)
			if !ok || ed.FWVersion == nil || d.FWVersion == "" {
				continue
			}
			judged[d.Name] = true
			if d.FWVersion != *ed.FWVersion {
				out = append(out, catalog.New("port.fw_mismatch", finding.Subject{Host: s.Host, Device: d.Name, PCI: string(d.PCI)},
					fmt.Sprintf("%s runs firmware %s, expected %s", d.Name, d.FWVersion, *ed.FWVersion),
					finding.Evidence{Source: devPath(d.Name, "fw_ver"), Value: d.FWVersion},
					finding.Evidence{Source: fmt.Sprintf("%s:%d", in.Expect.Source, ed.Lines[len(ed.Lines)-1]), Value: "fw_ver: " + *ed.FWVersion}))
			}
		}
	}
	// Otherwise: devices of one model should run one version; the odd ones
	// out against the majority. Devices judged against the expectation
	// still count as peers.
	byModel := map[string]map[string][]string{}
	for i := range s.Devices {
		d := &s.Devices[i]
		if d.FWVersion == "" {
			continue
		}
		m := d.Model(s)
		if byModel[m] == nil {
			byModel[m] = map[string][]string{}
		}
		byModel[m][d.FWVersion] = append(byModel[m][d.FWVersion], d.Name)
	}
	models := make([]string, 0, len(byModel))
	for m := range byModel {
		models = append(models, m)
	}
	slices.Sort(models)
	for _, m := range models {
		vers := byModel[m]
		if len(vers) < 2 {
			continue
		}
		major := ""
		for v, ds := range vers {
			if major == "" || len(ds) > len(vers[major]) || len(ds) == len(vers[major]) && cmp.Compare(v, major) > 0 {
				major = v
			}
		}
		for v, ds := range vers {
			if v == major {
				continue
			}
			for _, dn := range ds {
				if judged[dn] {
					continue
				}
				out = append(out, catalog.New("port.fw_mismatch", finding.Subject{Host: s.Host, Device: dn},
					fmt.Sprintf("%s runs firmware %s while %d other %s HCAs run %s", dn, v, len(vers[major]), m, major),
					finding.Evidence{Source: devPath(dn, "fw_ver"), Value: v},
					finding.Evidence{Source: devPath(vers[major][0], "fw_ver"), Value: major}))
			}
		}
	}
	return out
}

// checkPCIe compares the trained link of every HCA and GPU function with
// what both ends support (NCCL's min of the device's and its bridge's max),
// or with the expectation. A GPU's link speed drops at idle for power
// saving (nvidia-smi shows "PCIe Generation Current 1"), so only a GPU's
// width is judged without an expectation.
func checkPCIe(in *Input) []finding.Finding {
	s := in.Snap
	type target struct {
		addr  pcie.Address
		label string
		dev   string
		gpu   bool
	}
	var ts []target
	seen := map[pcie.Address]bool{}
	for i := range s.Devices {
		d := &s.Devices[i]
		if d.PCI == "" || seen[d.PCI] {
			continue
		}
		seen[d.PCI] = true
		ts = append(ts, target{addr: d.PCI, label: d.Name + " (" + string(d.PCI) + ")", dev: d.Name})
	}
	for _, g := range s.GPUs() {
		if !seen[g.Address] {
			seen[g.Address] = true
			ts = append(ts, target{addr: g.Address, label: "GPU " + string(g.Address), gpu: true})
		}
	}
	var out []finding.Finding
	for _, t := range ts {
		p := s.PCIDevice(t.addr)
		if p == nil {
			continue
		}
		// A multi-function card shares one link: judge function 0 only.
		if !strings.HasSuffix(string(t.addr), ".0") {
			f0 := pcie.Address(string(t.addr[:len(t.addr)-1]) + "0")
			if s.PCIDevice(f0) != nil {
				continue
			}
		}
		maxSpeed, maxWidth := pcieMax(s, p)
		var wantSpeed *pcie.Speed
		var wantWidth *int
		src := "max_link_speed/max_link_width (device and upstream port)"
		if in.Expect != nil && t.dev != "" {
			if ed, ok := in.Expect.For(t.dev); ok && (ed.PCIe.Speed != nil || ed.PCIe.Width != nil) {
				wantSpeed, wantWidth = ed.PCIe.Speed, ed.PCIe.Width
				src = fmt.Sprintf("%s:%d", in.Expect.Source, ed.Lines[len(ed.Lines)-1])
			}
		}
		if wantSpeed == nil && wantWidth == nil {
			wantWidth = maxWidth
			if !t.gpu {
				wantSpeed = maxSpeed
			}
		}
		cs, cw := p.CurrentLinkSpeed, p.CurrentLinkWidth
		var probs []string
		if wantWidth != nil && cw != nil && *cw < *wantWidth {
			probs = append(probs, fmt.Sprintf("x%d instead of x%d", *cw, *wantWidth))
		}
		if wantSpeed != nil && cs != nil && *cs < *wantSpeed {
			probs = append(probs, fmt.Sprintf("%s (%s) instead of %s (%s)", cs.Short(), strings.TrimSuffix(cs.String(), " PCIe"), wantSpeed.Short(), strings.TrimSuffix(wantSpeed.String(), " PCIe")))
		}
		if len(probs) == 0 {
			continue
		}
		base := "sys/bus/pci/devices/" + string(p.Address) + "/"
		ev := []finding.Evidence{}
		if cs != nil {
			ev = append(ev, finding.Evidence{Source: base + "current_link_speed", Value: cs.String()})
		}
		if cw != nil {
			ev = append(ev, finding.Evidence{Source: base + "current_link_width", Value: strconv.Itoa(*cw)})
		}
		exp := ""
		if wantSpeed != nil {
			exp = wantSpeed.String()
		}
		if wantWidth != nil {
			exp = strings.TrimSpace(exp + " x" + strconv.Itoa(*wantWidth))
		}
		ev = append(ev, finding.Evidence{Source: src, Value: exp})
		subj := finding.Subject{Host: s.Host, Device: t.dev, PCI: string(p.Address)}
		if t.gpu {
			subj.GPU = string(p.Address)
		}
		out = append(out, catalog.New("pcie.link_degraded", subj,
			fmt.Sprintf("PCIe link of %s trained at %s", t.label, strings.Join(probs, " and ")), ev...))
	}
	return out
}

// HealthyRate is the rate the node rules hold a port to when no
// expectation file is given: the rate most ACTIVE ports of its HCA model
// and link layer on its subnet run at, at the width most of them on other
// subnets train to when that is wider; false when there are too few to
// compare with.
func HealthyRate(s *snapshot.Snapshot, dev string, port int) (ib.Rate, bool) {
	d, p := s.Device(dev), s.Port(dev, port)
	if d == nil || p == nil {
		return ib.Rate{}, false
	}
	in := &Input{Snap: s}
	r, _, ok := expectedRate(in, d, p)
	if w, _, wider := widerElsewhere(in, d, p); wider && (!ok || r.Width < w) {
		sp := p.Rate.Speed
		if ok && r.Speed.Generation() > sp.Generation() {
			sp = r.Speed
		}
		r, ok = ib.NewRate(w, sp), true
		if sp.Generation() == 0 {
			r = ib.Rate{DeciGbps: p.Rate.DeciGbps * w / p.Rate.Width, Width: w}
		}
	}
	return r, ok
}

// HealthyPCIe is the PCIe link the node rules hold a device's function to
// without an expectation: the lower of its own and its upstream port's
// maximum speed and width (nil where unknown).
func HealthyPCIe(s *snapshot.Snapshot, dev string) (*pcie.Speed, *int) {
	d := s.Device(dev)
	if d == nil {
		return nil, nil
	}
	p := s.PCIDevice(d.PCI)
	if p == nil {
		return nil, nil
	}
	return pcieMax(s, p)
}

// pcieMax is what both ends of p's link support (NCCL's rule): the lower
// of its own and its upstream port's maximum speed and width.
func pcieMax(s *snapshot.Snapshot, p *snapshot.PCIDevice) (*pcie.Speed, *int) {
	speed, width := p.MaxLinkSpeed, p.MaxLinkWidth
	if up := s.PCIDevice(p.Parent); up != nil {
		if up.MaxLinkSpeed != nil && speed != nil && *up.MaxLinkSpeed < *speed {
			speed = up.MaxLinkSpeed
		}
		if up.MaxLinkWidth != nil && width != nil && *up.MaxLinkWidth < *width {
			width = up.MaxLinkWidth
		}
	}
	return speed, width
}

// zeroGUID says whether a GUID (any form) is all zeros.
func zeroGUID(g string) bool {
	return g != "" && strings.Trim(strings.TrimPrefix(strings.ToLower(g), "0x"), "0:") == ""
}
