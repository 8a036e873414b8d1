package host

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// driverErrGroup is the unclassified error lines of one driver and device.
type driverErrGroup struct {
	driver      string
	pci         pcie.Address
	iface       string
	n           int
	first, last kmsg.Event
	// noRes is the first line of the group that reports the efa device
	// refusing to allocate a protection domain or a user access region
	// (see efaNoResources), nil when none does.
	noRes *kmsg.Event
	// probe is the driver core's line that the driver's probe of the
	// function failed, nil when none is in the group.
	probe *kmsg.Event
}

// reProbeFailed is the driver core's report that a driver could not bind
// a device (drivers/base/dd.c really_probe / driver_probe_device: "probe
// of 0000:04:00.0 failed with error -16", since 5.x "probe with driver
// ib_mthca failed with error -16").
var reProbeFailed = regexp.MustCompile(`^probe (?:of \S+|with driver \S+) failed with error (-?\d+)`)

// driverErrorGroups tallies the KindDriverError events of a log per driver
// and device, in the order they first appear.
func driverErrorGroups(evs []kmsg.Event) []*driverErrGroup {
	type key struct {
		driver, dev string
	}
	at := map[key]*driverErrGroup{}
	var out []*driverErrGroup
	for _, e := range evs {
		if e.Kind != kmsg.KindDriverError {
			continue
		}
		k := key{e.Driver, kmsg.DriverErrorSubject(e)}
		g := at[k]
		if g == nil {
			g = &driverErrGroup{driver: e.Driver, pci: e.PCI, iface: e.Interface, first: e}
			at[k] = g
			out = append(out, g)
		}
		g.n += e.Weight()
		if g.noRes == nil && e.Driver == "infiniband" && strings.HasPrefix(e.Interface, "efa") && efaNoResources(e.Detail) {
			ev := e
			g.noRes = &ev
		}
		if g.probe == nil && reProbeFailed.MatchString(e.Detail) {
			ev := e
			g.probe = &ev
		}
		if !e.Folded {
			g.last = e
		}
	}
	return out
}

// coveredBy reports whether f, a warning or critical finding of another
// rule, is about the device of g: its PCI function, or, for lines that
// name an RDMA device or netdev or no device (a paste does not say which
// PCI function "mlx5_0" is), a finding whose evidence is a line of the
// same driver family. The lines are then that fault's consequences, not
// one of their own.
func (g *driverErrGroup) coveredBy(f *finding.Finding) bool {
	if f.ID == "kmsg.driver_error" || f.Severity != finding.Warning && f.Severity != finding.Critical {
		return false
	}
	if g.pci != "" {
		return f.Subject.PCI == string(g.pci)
	}
	if g.iface != "" && (f.Subject.Device == g.iface || f.Subject.NetDev == g.iface) {
		return true
	}
	fam := driverFamily(g.driver, g.iface)
	for _, ev := range f.Evidence {
		drv, rest, _ := strings.Cut(ev.Value, " ")
		drv = strings.TrimSuffix(drv, ":")
		dev := ""
		if drv == "infiniband" {
			dev, _, _ = strings.Cut(rest, ":")
		}
		if driverFamily(drv, dev) == fam {
			return true
		}
	}
	return false
}

// driverFamily is the driver stack a line's driver belongs to: "mlx5"
// for mlx5_core, mlx5_ib and their RDMA devices ("infiniband mlx5_0"),
// "mlx4", "nvidia" for NVRM and NVIDIA's modules; else the driver, or the
// RDMA device's name without its number ("infiniband irdma0": "irdma").
func driverFamily(driver, ibdev string) string {
	name := driver
	if driver == "infiniband" {
		name = strings.TrimRight(ibdev, "0123456789")
	}
	switch {
	case strings.HasPrefix(name, "mlx5_"):
		return "mlx5"
	case strings.HasPrefix(name, "mlx4_"):
		return "mlx4"
	case name == "NVRM" || strings.HasPrefix(name, "nvidia") || name == "nv_peer_mem" || name == "gdrdrv":
		return "nvidia"
	}
	return strings.TrimSuffix(name, "_")
}

// driverErrors judges the driver error lines of the log of in, given the
// findings the other kernel rules made of it (others): a group of lines
// about a device another finding reports becomes evidence of that finding
// (others is changed); every other group is a kmsg.driver_error finding.
func driverErrors(in *Input, others []finding.Finding) []finding.Finding {
	var out []finding.Finding
groups:
	for _, g := range driverErrorGroups(in.events()) {
		ev := []finding.Evidence{in.logEvidence(g.first.Record)}
		if g.last.Record.Line != g.first.Record.Line {
			ev = append(ev, in.logEvidence(g.last.Record))
		}
		for i := range others {
			if g.coveredBy(&others[i]) {
				for _, e := range ev {
					if !slices.Contains(others[i].Evidence, e) { // a line the finding already quotes
						others[i].Evidence = append(others[i].Evidence, e)
					}
				}
				continue groups
			}
		}
		var subj finding.Subject
		label := g.driver
		switch {
		case g.pci != "":
			tg := pciTarget(in.Snap, g.pci)
			subj = tg.subject(in.Snap.Host)
			label = g.driver + " " + tg.longLabel()
		case g.iface != "":
			subj = finding.Subject{Host: in.Snap.Host, Device: g.iface}
			label = g.driver + " " + g.iface
		default:
			subj = finding.Subject{Host: in.Snap.Host}
		}
		f := catalog.New("kmsg.driver_error", subj,
			fmt.Sprintf("%s logged %s ibdoctor does not classify %s; the first: %q", label, plural(g.n, "error line", "error lines"), in.window(), g.first.Detail), ev...)
		// The remedies grep the log for the device: its PCI address, else
		// the name the lines give it, else the driver's name (never the
		// HCA placeholder: the lines may be a disk's or a GPU's).
		var kv []string
		if g.pci == "" {
			kv = append(kv, "pci", cmp.Or(g.iface, g.driver))
		}
		if g.driver == "nvme" && g.iface != "" {
			kv = append(kv, "ctrl", g.iface)
		}
		catalog.Fill(&f, kv...)
		f.Remedy = remediesFor(f.Remedy, driverFamily(g.driver, g.iface))
		if g.noRes != nil {
			efaNoResourcesFinding(&f, g, in.logEvidence(g.noRes.Record))
		}
		if g.probe != nil && rdmaDriver(g.driver) {
			// The device never came up: no RDMA device from it.
			m := reProbeFailed.FindStringSubmatch(g.probe.Detail)
			f.Summary += fmt.Sprintf("; the driver's probe of the device failed (error %s): it never came up, the host has no RDMA device from it until the cause is fixed and the driver reloaded", m[1])
			f.Severity = finding.Critical
			if pe := in.logEvidence(g.probe.Record); !slices.ContainsFunc(f.Evidence, func(e finding.Evidence) bool { return e.Source == pe.Source }) {
				f.Evidence = append(f.Evidence, pe)
			}
		}
		out = append(out, f)
	}
	return out
}

// rdmaDriver says whether the driver is an InfiniBand HCA or RDMA NIC
// driver, whose device failing to probe leaves the host without RDMA.
func rdmaDriver(d string) bool {
	switch d {
	case "mlx4_core", "mlx4_ib", "mlx5_ib", "ib_mthca", "ib_qib", "hfi1", "qib", "bnxt_re", "irdma", "efa", "qedr", "hns_roce", "erdma", "mana_ib", "ionic_rdma", "i40iw", "iw_cxgb4", "ocrdma", "vmw_pvrdma":
		return true
	}
	return false
}

// checkDriverErrors is driverErrors as a rule of its own (doctor): the
// other kernel rules are run to know which devices they already report.
func checkDriverErrors(in *Input) []finding.Finding {
	var others []finding.Finding
	for _, check := range kernelFindingChecks {
		others = append(others, check(in)...)
	}
	return driverErrors(in, others)
}

// familyRemedies are the remedy prefixes that name one driver family.
var familyRemedies = map[string]string{"mlx5: ": "mlx5", "NVRM: ": "nvidia", "NVMe: ": "nvme"}

// remediesFor keeps the remedies for every driver and those of fam,
// without the family's prefix.
func remediesFor(list []string, fam string) []string {
	var out []string
next:
	for _, r := range list {
		for p, f := range familyRemedies {
			if rest, ok := strings.CutPrefix(r, p); ok {
				if f == fam {
					out = append(out, rest)
				}
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

// efaNoResources reads the efa driver's report that the device refused,
// for lack of resources, a command every new user of the device needs: a
// protection domain (ibv_alloc_pd) or a user access region (opening the
// device, ibv_open_device). drivers/infiniband/hw/efa/efa_com.c
// efa_com_cmd_exec prints "Failed to process command ALLOC_PD (opcode 14)
// comp_status 1 err -12" ("… (opcode 14) err -12" since Linux 6.14):
// comp_status 1 is EFA_ADMIN_RESOURCE_ALLOCATION_FAILURE, which
// efa_com_comp_status_to_errno makes -ENOMEM; efa_verbs.c efa_alloc_pd
// then says "Failed to allocate pd[-12]".
func efaNoResources(detail string) bool {
	if rest, ok := strings.CutPrefix(detail, "Failed to allocate pd["); ok {
		return strings.HasPrefix(rest, "-12]")
	}
	rest, ok := strings.CutPrefix(detail, "Failed to process command ")
	if !ok || !strings.HasPrefix(rest, "ALLOC_PD ") && !strings.HasPrefix(rest, "ALLOC_UAR ") {
		return false
	}
	return strings.HasSuffix(strings.TrimSpace(rest), " err -12")
}

// efaNoResourcesFinding makes the kmsg.driver_error of an efa device that
// ran out of protection domains or user access regions critical: every
// process that opens the device from now on fails (libfabric's efa
// provider cannot open its domain, aws-ofi-nccl its AV or endpoint), until
// the processes holding them exit.
func efaNoResourcesFinding(f *finding.Finding, g *driverErrGroup, ev finding.Evidence) {
	f.Severity = finding.Critical
	f.Summary = fmt.Sprintf("%s %s ran out of resources: the device refused to allocate a protection domain or user access region (ENOMEM, %q), so every new process that opens it fails (libfabric's efa provider, NCCL's OFI plugin, MPI) until the processes that hold them exit; %s in all",
		g.driver, g.iface, g.noRes.Detail, plural(g.n, "error line", "error lines"))
	if !slices.Contains(f.Evidence, ev) {
		f.Evidence = append(f.Evidence, ev)
	}
	f.Causes = []string{
		"too many processes have the device open at once (ranks per device, leftover processes of an earlier job holding their contexts)",
		"a process that leaks protection domains or device contexts (opens the device again and again without closing it)",
	}
	f.Remedy = []string{
		"rdma resource show pd (and rdma resource show) to see which processes hold the device's protection domains; end the stale ones",
		"fewer processes per EFA device, or spread the ranks over all the node's EFA devices",
		"if it persists with no process holding the device: rmmod efa; modprobe efa (or reboot the instance)",
	}
}
