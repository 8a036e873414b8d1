package host

import (
	"strings"
)

// A narrower or slower PCIe link costs a training job bandwidth only on a
// device that carries the job's traffic: an RDMA or network adapter (the
// collectives between nodes) or a data-center GPU (the gradients to the
// NIC and to the other GPUs). There a degraded link is critical. On a
// consumer GPU (a desktop, a display card), a storage or other device, or
// a link the paste does not name, it is a warning.

// PCIeCarrier says whether a device with lspci class class ("Ethernet
// controller", "3D controller") and name name (the rest of lspci's header
// line, or a kernel driver's device name) carries a training job's
// traffic, and what it is ("a network adapter", "a data-center GPU");
// what is "" when it does not.
func PCIeCarrier(class, name string) (what string) {
	switch strings.ToLower(class) {
	case "infiniband controller", "ethernet controller", "network controller", "infiniband", "ethernet":
		return "a network adapter"
	case "3d controller", "vga compatible controller", "display controller", "processing accelerators":
		if dataCenterGPU(name) {
			return "a data-center GPU"
		}
		return ""
	}
	if class == "" && dataCenterGPU(name) {
		return "a data-center GPU"
	}
	return ""
}

// dcGPUNames are the model names of data-center GPUs as lspci and
// nvidia-smi print them ("GH100 [H100 SXM5 80GB]", "Tesla V100-SXM2-32GB",
// "Radeon Instinct MI50").
var dcGPUNames = map[string]bool{
	"A100": true, "A800": true, "A30": true, "A40": true, "A10": true, "A16": true, "A2": true,
	"H100": true, "H800": true, "H200": true, "H20": true, "GH200": true,
	"B100": true, "B200": true, "GB200": true, "B300": true, "GB300": true,
	"V100": true, "P100": true, "P40": true, "T4": true,
	"L40": true, "L40S": true, "L4": true, "L20": true,
	"Tesla": true, "Instinct": true, "MI50": true, "MI100": true, "MI210": true, "MI250": true,
	"MI250X": true, "MI300": true, "MI300X": true, "MI325X": true, "MI355X": true,
}

// dataCenterGPU says whether name names a data-center GPU: one of its
// words (split at anything but letters and digits, so "V100-SXM2" and
// "[H100" count) is a data-center model, as printed (lspci's "(rev a2)"
// is no A2).
func dataCenterGPU(name string) bool {
	if i := strings.Index(name, " (rev "); i >= 0 {
		name = name[:i]
	}
	for _, w := range strings.FieldsFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if dcGPUNames[w] {
			return true
		}
	}
	return false
}

// Prose is a paste's text around an lspci excerpt: Before it (the title
// right above it last) and After it.
type Prose struct{ Before, After string }

// ProseCarrier reads the text around an lspci excerpt whose device header
// is cut ("lspci -s 08:00.0 -vv" then "..."): where the text names only
// network adapters ("25GbE adapter", "ConnectX-6", "InfiniBand HCA") or
// only data-center GPUs, the excerpt is that device's. A title right
// above the excerpt that names a port ("Host root port (00:03.2) PCIe
// capability registers") makes it the port's, whatever sits below. It
// returns what PCIeCarrier returns and the word that named it; "" where
// the text names none, or both kinds.
func ProseCarrier(p Prose) (what, word string) {
	if titlesPort(p.Before) {
		return "", ""
	}
	var nic, gpu string
	for _, w := range strings.FieldsFunc(p.Before+"\n"+p.After, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-')
	}) {
		u := strings.ToUpper(strings.Trim(w, "-"))
		switch {
		case nic == "" && isNICWord(u):
			nic = w
		case gpu == "" && len(w) >= 4 && dcGPUNames[strings.Trim(w, "-")]:
			// Short names ("L4", "A2") are other words in prose.
			gpu = w
		}
	}
	switch {
	case nic != "" && gpu == "":
		return "a network adapter", nic
	case gpu != "" && nic == "":
		return "a data-center GPU", gpu
	}
	return "", ""
}

// isNICWord says whether the upper-cased word u names a network adapter:
// "ETHERNET", "INFINIBAND", "HCA", "NIC", "CONNECTX-5", a speed in GbE
// ("25GBE", "100GBE").
func isNICWord(u string) bool {
	switch u {
	case "ETHERNET", "INFINIBAND", "HCA", "NIC", "RNIC", "ROCE", "RDMA", "MELLANOX", "BLUEFIELD", "FASTLINQ":
		return true
	}
	if strings.HasPrefix(u, "CONNECTX") {
		return true
	}
	if n := strings.TrimSuffix(u, "GBE"); n != u && n != "" && strings.Trim(n, "0123456789") == "" {
		return true
	}
	return false
}

// titlesPort says whether the last non-blank line of text names a PCIe
// port or bridge.
func titlesPort(text string) bool {
	t := strings.TrimRight(text, " \t\r\n")
	if i := strings.LastIndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	}
	t = strings.ToLower(t)
	for _, k := range []string{"root port", "downstream port", "upstream port", "bridge", "switch port", "root complex"} {
		if strings.Contains(t, k) {
			return true
		}
	}
	return false
}
