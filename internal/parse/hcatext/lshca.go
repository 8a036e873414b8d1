package hcatext

import (
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// lshca (github.com/MrBr-github/lshca, the Mellanox support tool) prints a
// table per HCA: "Dev #1" with " FW: 20.26.0282" lines, then rows of
// cells split by "|" under a header row ("PCI_addr | RDMA | Net | Numa |
// LnkStat | IpStat | Link | Rate | LnkCapWidth | LnkStaWidth | HCA_Type"),
// between rules of dashes. Its columns vary with the view and with what
// differs between rows (an "elastic" view leaves a column out). Marks it
// adds: a rate ending in "*" is a down port's (the rate file's default),
// ">!<" flags an error (a PCIe link narrower than the card's, IP down on
// an ACTIVE port).

// lshcaStates are the LnkStat values: the port state file's name in lower
// case, "actv" for ACTIVE, "poll" for DOWN with phys_state Polling
// (lshca sysfs_device.py).
var lshcaStates = map[string]ib.PortState{"actv": ib.StateActive, "active": ib.StateActive, "down": ib.StateDown, "poll": ib.StateDown,
	"init": ib.StateInit, "armed": ib.StateArmed, "active_defer": ib.StateActiveDefer}

// IsLshcaHeader matches lshca's table header row: cells split by "|", an
// "RDMA" cell and at least one other of its column names.
func IsLshcaHeader(t string) bool {
	if strings.Count(t, "|") < 2 {
		return false
	}
	cells := lshcaCells(t)
	rdma, other := false, false
	for _, c := range cells {
		switch c {
		case "RDMA":
			rdma = true
		case "PCI_addr", "LnkStat", "LnkCapWidth", "LnkStaWidth", "HCA_Type", "IpStat", "Numa", "PLid", "VrtHCA":
			other = true
		}
	}
	return rdma && other
}

func lshcaCells(t string) []string {
	cells := strings.Split(t, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// lshcaMark takes lshca's marks off a cell: the value and whether it was
// flagged.
func lshcaMark(v string) (string, bool) {
	t := strings.TrimSpace(v)
	flagged := false
	for _, m := range []string{">!<", "*"} {
		if s, ok := strings.CutSuffix(t, m); ok {
			t, flagged = strings.TrimSpace(s), true
		}
	}
	return t, flagged
}

// ParseLshca parses lshca's tables: one port per row, its state (LnkStat),
// link layer, rate, netdev and LID where shown, and the PCIe link of its
// function (LnkCapWidth "x16 G3": the card's width and generation;
// LnkStaWidth: the width it trained at).
func ParseLshca(rd io.Reader, source string) (*Result, error) {
	r := newResult(source)
	var header []string
	fw := ""
	err := r.scanLines(rd, func(n int, line string) {
		t := strings.TrimSpace(line)
		switch {
		case t == "" || strings.Trim(t, "-") == "" || strings.Trim(t, "=") == "":
			return
		case IsLshcaHeader(t):
			header = lshcaCells(t)
			return
		case strings.HasPrefix(t, "Dev #"):
			header, fw = nil, ""
			return
		}
		if k, v, ok := keyValue(t); ok && !strings.Contains(t, "|") {
			switch k {
			case "FW":
				fw = v
			case "Nodes":
				r.Snap.Host = v
			case "Desc", "PN", "PSID", "SN", "Tempr", "Driver", "PCI_addr", "Bond", "BondState", "BondMiimon":
			default:
				r.skip(n, line, "not an lshca line")
			}
			return
		}
		cells := lshcaCells(t)
		if header == nil || len(cells) != len(header) {
			r.skip(n, line, "not an lshca table row")
			return
		}
		r.lshcaRow(header, cells, fw, n, line)
	})
	return r.finish(err)
}

// lshcaRow reads one table row into its port and PCI function.
func (r *Result) lshcaRow(header, cells []string, fw string, n int, line string) {
	col := map[string]string{}
	for i, h := range header {
		col[h] = cells[i]
	}
	dev := col["RDMA"]
	if dev == "" || strings.ContainsAny(dev, " /'") {
		r.skip(n, line, "no RDMA device in the row")
		return
	}
	port := 1
	if v, ok := col["Port"]; ok {
		if x, err := strconv.Atoi(v); err == nil && x > 0 && x < 256 {
			port = x
		}
	}
	d := r.device(dev)
	d.HCAType = col["HCA_Type"]
	if fw != "" {
		d.FWVersion = fw
	}
	p := r.port(dev, port)
	p.NetDev = col["Net"]
	if v, ok := col["Link"]; ok {
		if ll, err := ib.ParseLinkLayer(v); err == nil {
			p.LinkLayer = ll
			r.note(portPath(dev, port, "link_layer"), n, line)
		}
	}
	if v, ok := col["LnkStat"]; ok {
		v, _ = lshcaMark(v)
		st, known := lshcaStates[strings.ToLower(v)]
		if !known {
			r.skip(n, line, "unknown LnkStat %q", v)
		} else {
			p.State = &st
			r.note(portPath(dev, port, "state"), n, line)
			if strings.EqualFold(v, "poll") {
				ph := ib.PhysPolling
				p.PhysState = &ph
				r.note(portPath(dev, port, "phys_state"), n, line)
			}
		}
	}
	if v, ok := col["Rate"]; ok && p.State != nil && *p.State != ib.StateDown {
		// A down port's rate ("10*") is the rate file's default, not a
		// link's.
		if rv, _ := lshcaMark(v); rv != "" {
			if deci, err := parseDeciGbps(rv); err == nil {
				p.Rate = &ib.Rate{DeciGbps: deci}
				r.note(portPath(dev, port, "rate"), n, line)
			}
		}
	}
	if v, ok := col["PLid"]; ok {
		if x, err := strconv.ParseUint(v, 10, 16); err == nil {
			p.LID = u32(x)
		}
	}
	addr := pcie.Address(col["PCI_addr"])
	if addr == "" {
		return
	}
	d.PCI = addr
	f := r.pciFunction(addr)
	if capw, ok := col["LnkCapWidth"]; ok {
		// "x16 G3": the card's width and PCIe generation.
		fs := strings.Fields(capw)
		if len(fs) > 0 {
			if w, err := strconv.Atoi(strings.TrimPrefix(fs[0], "x")); err == nil && w > 0 {
				f.MaxLinkWidth = &w
				r.note("sys/bus/pci/devices/"+string(addr)+"/max_link_width", n, line)
			}
		}
		if len(fs) > 1 {
			if g, err := strconv.Atoi(strings.TrimPrefix(fs[1], "G")); err == nil && g >= 1 && g <= 6 {
				sp := []pcie.Speed{pcie.Gen1, pcie.Gen2, pcie.Gen3, pcie.Gen4, pcie.Gen5, pcie.Gen6}[g-1]
				f.MaxLinkSpeed = &sp
			}
		}
	}
	if sta, ok := col["LnkStaWidth"]; ok {
		v, _ := lshcaMark(sta)
		if fs := strings.Fields(v); len(fs) > 0 {
			if w, err := strconv.Atoi(strings.TrimPrefix(fs[0], "x")); err == nil && w > 0 {
				f.CurrentLinkWidth = &w
				r.note("sys/bus/pci/devices/"+string(addr)+"/current_link_width", n, line)
			}
		}
	}
}

// pciFunction returns the PCI function at addr, adding it when new.
func (r *Result) pciFunction(addr pcie.Address) *snapshot.PCIDevice {
	for i := range r.Snap.PCI {
		if r.Snap.PCI[i].Address == addr {
			return &r.Snap.PCI[i]
		}
	}
	r.Snap.PCI = append(r.Snap.PCI, snapshot.PCIDevice{Address: addr})
	return &r.Snap.PCI[len(r.Snap.PCI)-1]
}
