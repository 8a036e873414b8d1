package analyze

import (
	"fmt"
	"strings"

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
