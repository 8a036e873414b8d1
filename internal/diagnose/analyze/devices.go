package analyze

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
	"github.com/ibdoctor/ibdoctor/internal/parse/hcatext"
	"github.com/ibdoctor/ibdoctor/internal/parse/lsmod"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
)

// diagnoseVerbsDevices judges an ibv_devices table: devices listed with
// their node GUIDs are what libibverbs finds and user space can open
// (the provider library and /dev/infiniband/uverbsN are there); the
// header with no row under it is no RDMA device usable where it ran.
// The table says nothing of the ports: their state needs ibv_devinfo or
// ibstat.
func diagnoseVerbsDevices(seg *Segment, file string, d *doc, sp Span, ctx *context) error {
	res, err := hcatext.ParseDevices(strings.NewReader(segmentOnly(d, sp)), file)
	if err != nil {
		return shiftErr(err, sp.Start-1)
	}
	at := func(n int) int { return sp.Start - 1 + n }
	if len(res.After) > 0 {
		ns := make([]int, len(res.After))
		for i, n := range res.After {
			ns[i] = at(n)
		}
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s: below the ibv_devices table, not its output", lineList(file, ns)))
	}
	if len(res.Devices) == 0 {
		if !res.Complete {
			seg.Summary = "ibv_devices header only"
			seg.Empty = "the ibv_devices table is cut after its header (no rule of dashes, no row)"
			return nil
		}
		seg.Summary = "ibv_devices: no RDMA device listed"
		seg.Findings = append(seg.Findings, noderules.CheckAbsent(file, []noderules.Absent{{
			Line: at(res.Header.N), Text: res.Header.Text + " (and no device under it)", Verbs: true,
		}})...)
		return nil
	}
	ctx.rdma = true
	names := make([]string, len(res.Devices))
	for i, dv := range res.Devices {
		names[i] = dv.Name
	}
	seg.Summary = fmt.Sprintf("ibv_devices: user space sees %s (%s)", plural(len(names), "RDMA device", "RDMA devices"), strings.Join(names, ", "))
	seg.Skipped = append(seg.Skipped, "ibv_devices lists devices, not ports: their state and rate are in ibv_devinfo or ibstat")
	return nil
}

// diagnoseDevFiles judges a listing of /dev/infiniband (ls -l).
func diagnoseDevFiles(seg *Segment, file string, d *doc, sp Span) error {
	fs, err := hcatext.ParseDevFiles(strings.NewReader(segmentOnly(d, sp)), file)
	if err != nil {
		return shiftErr(err, sp.Start-1)
	}
	seg.Summary = fmt.Sprintf("/dev/infiniband: %s", plural(len(fs), "RDMA character device", "RDMA character devices"))
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	seg.Findings = append(seg.Findings, noderules.CheckDevFiles(names, file, sp.Start-1+fs[0].Line, sp.Start-1+fs[len(fs)-1].Line)...)
	return nil
}

// diagnoseLsmod judges lsmod's rows of the RDMA and GPU modules.
func diagnoseLsmod(seg *Segment, file string, d *doc, sp Span) error {
	ms, err := lsmod.Parse(strings.NewReader(segmentOnly(d, sp)), file)
	if err != nil {
		return shiftErr(err, sp.Start-1)
	}
	for i := range ms {
		ms[i].Line += sp.Start - 1
	}
	seg.Summary = fmt.Sprintf("lsmod: %s", plural(len(ms), "RDMA or GPU module", "RDMA or GPU modules"))
	seg.Findings = append(seg.Findings, noderules.CheckLsmod(ms, file)...)
	return nil
}

// reSMFails is a line that says OpenSM failed: OpenSM's own "ERR 5431:
// setting IS_SM capmask: cannot open file '/dev/infiniband/issm0'"
// (libvendor/osm_vendor_ibumad.c osm_vendor_set_sm), or a person's or
// service manager's words that opensm fails, failed or cannot start.
var reSMFails = regexp.MustCompile(`(?i)IS_SM capmask: cannot open|\bopensm\b[^\n]*\b(?:fails?|failed|failure|cannot start|can't start|does not start|doesn't start)\b|\b(?:fails?|failed|failure)\b[^\n]*\bopensm\b`)

// smFailLine returns the first line of the file that says OpenSM fails
// (reSMFails), as evidence.
func smFailLine(d *doc, file string) *finding.Evidence {
	for _, p := range d.parts {
		for i, l := range p.ls {
			if reSMFails.MatchString(l) {
				return &finding.Evidence{Source: fmt.Sprintf("%s:%d", file, p.start+i), Value: strings.TrimSpace(l)}
			}
		}
	}
	return nil
}

// diagnoseMadClass judges a listing of /sys/class/infiniband_mad: each
// umadN should have its issmN (noderules.CheckMadClass).
func diagnoseMadClass(seg *Segment, file string, d *doc, sp Span) error {
	fs, err := hcatext.ParseMadClass(strings.NewReader(segmentOnly(d, sp)), file)
	if err != nil {
		return shiftErr(err, sp.Start-1)
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	seg.Summary = fmt.Sprintf("/sys/class/infiniband_mad: %s", strings.Join(names, ", "))
	seg.Findings = append(seg.Findings, noderules.CheckMadClass(names, file, sp.Start-1+fs[0].Line, sp.Start-1+fs[len(fs)-1].Line, smFailLine(d, file))...)
	return nil
}

// diagnoseDrvInfo reads ethtool -i: the driver, firmware and PCI address
// of each netdev; nothing in it is judged alone (a firmware version is
// judged against the fleet's, which one paste does not give).
func diagnoseDrvInfo(seg *Segment, file string, d *doc, sp Span) error {
	ds, err := ethtool.ParseDrvInfo(strings.NewReader(segmentOnly(d, sp)), file)
	if err != nil {
		return shiftErr(err, sp.Start-1)
	}
	parts := make([]string, len(ds))
	for i, di := range ds {
		parts[i] = di.Driver
		if di.Firmware != "" {
			parts[i] += " firmware " + di.Firmware
		}
		if di.BusInfo != "" {
			parts[i] += " at " + di.BusInfo
		}
	}
	seg.Summary = "ethtool -i: " + strings.Join(parts, "; ")
	seg.Skipped = append(seg.Skipped, "ethtool -i names the driver and firmware, not the link: its state is in ethtool <netdev>, ibstat or ip link")
	return nil
}
