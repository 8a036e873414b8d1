package host

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/lspci"
)

func TestCheckPastedLspciLinks(t *testing.T) {
	const gpu = "01:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1)\n\tCapabilities: [78] Express (v2) Legacy Endpoint, MSI 00\n"
	const nic = "3b:00.0 Ethernet controller: Mellanox Technologies MT27520 Family [ConnectX-3 Pro]\n\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
	const h100 = "18:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)\n\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
	const x710 = "3b:00.0 Ethernet controller: Intel Corporation Ethernet Controller X710 for 10GbE SFP+ (rev 02)\n\tCapabilities: [a0] Express (v2) Endpoint, MSI 00\n"
	const bridge = "00:01.0 PCI bridge: Intel Corporation Device 460d (rev 02) (prog-if 00 [Normal decode])\n\tBus: primary=00, secondary=01, subordinate=01, sec-latency=0\n\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00\n"
	link := func(capS, capW, staS, staW string) string {
		return "\t\tLnkCap:\tPort #0, Speed " + capS + ", Width " + capW + ", ASPM L1, Exit Latency L1 <16us\n\t\tLnkSta:\tSpeed " + staS + ", Width " + staW + "\n"
	}
	for _, tt := range []struct {
		name, in string
		prose    Prose
		want     []string
		judged   int
	}{
		{"GPU speed drop only: a warning, idle", gpu + link("16GT/s", "x16", "2.5GT/s (downgraded)", "x16 (ok)"), Prose{}, []string{"warning at idle"}, 1},
		{"consumer GPU width drop: a warning, no training job's traffic", gpu + link("16GT/s", "x16", "16GT/s (ok)", "x8 (downgraded)"), Prose{}, []string{"warning x8 instead of x16"}, 1},
		{"data-center GPU width drop: critical", h100 + link("32GT/s", "x16", "32GT/s (ok)", "x8 (downgraded)"), Prose{}, []string{"critical a data-center GPU"}, 1},
		{"data-center GPU speed drop only: a warning, idle", h100 + link("32GT/s", "x16", "2.5GT/s (downgraded)", "x16 (ok)"), Prose{}, []string{"warning at idle"}, 1},
		{"any vendor's Ethernet adapter narrower: critical", x710 + link("8GT/s", "x8", "8GT/s (ok)", "x4 (downgraded)"), Prose{}, []string{"critical a network adapter"}, 1},
		{"NIC speed drop: critical", nic + link("8GT/s", "x8", "5GT/s (downgraded)", "x8 (ok)"), Prose{}, []string{"critical 5GT/s instead of 8GT/s"}, 1},
		{"unnamed device, speed only: warning", link("16GT/s", "x16", "2.5GT/s (downgraded)", "x16 (ok)"), Prose{}, []string{"warning does not name"}, 1},
		{"unnamed device, width and speed: a warning", link("8GT/s", "x4, ...", "5GT/s", "x1, ..."), Prose{}, []string{"warning x1 instead of x4 and 5GT/s instead of 8GT/s"}, 1},
		{"only lspci's marks, LnkCap cut", "\t\tLnkSta:\tSpeed 8GT/s (ok), Width x4 (downgraded)\n", Prose{}, []string{"warning x4 (downgraded)"}, 1},
		{"trained at capability", nic + link("8GT/s", "x8", "8GT/s (ok)", "x8 (ok)"), Prose{}, nil, 1},
		{"root port narrower than its cap, device below in the paste at its own width: the device is judged", bridge + link("16GT/s", "x16", "16GT/s (ok)", "x4 (downgraded)") +
			"01:00.0 Ethernet controller: Intel Corporation Ethernet Controller X710 [8086:1572]\n\tCapabilities: [a0] Express (v2) Endpoint, MSI 00\n" + link("8GT/s", "x4", "8GT/s (ok)", "x4 (ok)"), Prose{}, nil, 1},
		{"root port narrower than its cap, device below not in the paste: a warning", bridge + link("16GT/s", "x16", "16GT/s (ok)", "x4 (downgraded)"), Prose{}, []string{"warning root port 0000:00:01.0 trained at x4 instead of x16"}, 1},
		{"root port slower than its cap alone is not a finding (an idle GPU below)", bridge + link("16GT/s", "x16", "2.5GT/s (downgraded)", "x16 (ok)"), Prose{}, nil, 1},
		{"empty slot (no link) is not a finding", bridge + link("16GT/s", "x16", "2.5GT/s (downgraded)", "x0 (downgraded)"), Prose{}, nil, 1},
		// github.com/dyulu (realworld-fresh14): `lspci -s 0000:66:04.0 -vvv` cut to its Express capability.
		{"downstream port excerpt without its header: a warning", "$ lspci -s 0000:66:04.0 -vvv\n......\n\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00\n......\n" +
			"\t\tLnkCap:\tPort #4, Speed 8GT/s, Width x4, ASPM not supported\n\t\t\tClockPM- Surprise+ LLActRep+ BwNot+ ASPMOptComp+\n" +
			"\t\tLnkSta:\tSpeed 8GT/s (ok), Width x2 (downgraded)\n\t\t\tTrErr- Train- SlotClk- DLActive+ BWMgmt- ABWMgmt-\n", Prose{}, []string{"warning the PCIe downstream port trained at x2 instead of x4"}, 1},
		// unix.stackexchange.com/q/393 (realworld-fresh17): a GeForce 8800 GT
		// at half its lanes, lines elided with "[...]".
		{"consumer GPU at x8 of x16 (unix.stackexchange 393): a warning", "01:00.0 VGA compatible controller: nVidia Corporation G92 [GeForce 8800 GT] (rev a2) (prog-if 00 [VGA controller])\n            [...]\n" +
			"            LnkCap: Port #0, Speed 2.5GT/s, Width x16, ASPM L0s L1, Latency L0 <512ns, L1 <1us\n                    ClockPM- Surprise- LLActRep- BwNot-\n" +
			"            LnkSta: Speed 2.5GT/s, Width x8, TrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-\n", Prose{}, []string{"warning no network adapter or data-center GPU"}, 1},
		// cloudnetops (realworld-fresh17): "Example Output:" and two lines.
		{"unnamed excerpt at x2 of x4 and 8GT/s of 16GT/s: a warning", "LnkCap: Port #0, Speed 16GT/s, Width x4, ASPM L0s L1, Exit Latency L0 <512ns, L1 <16us\nLnkSta: Speed 8GT/s (downgraded), Width x2 (downgraded)\n",
			Prose{Before: "Example Output:\n"}, []string{"warning does not name"}, 1},
		// lists.freebsd.org freebsd-hackers, Aug 2025 (realworld-fresh6): the
		// header is cut ("..."), the text names the QLogic 25GbE adapter.
		{"unnamed excerpt, the text names a 25GbE adapter: critical", "# lspci -s 08:00.0 -vv\n...\n\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x8, ASPM not supported\n\t\tLnkSta:\tSpeed 8GT/s, Width x2 (downgraded)\n",
			Prose{Before: "I'm recently hacking on the QLogic FastLinQ QL41212HLCU 25GbE adapter, and found something weird.\n"}, []string{"critical the paste's text around it says \"FastLinQ\""}, 1},
		{"unnamed excerpt, the text names both a NIC and an H100: a warning", link("16GT/s", "x16", "16GT/s", "x8"), Prose{After: "the ConnectX-7 next to the H100"}, []string{"warning does not name"}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := lspci.Parse(strings.NewReader(tt.in), "l.txt")
			if err != nil {
				t.Fatal(err)
			}
			fs, judged := CheckPastedLspciLinks(l, "l.txt", tt.prose)
			var got []string
			for i, f := range fs {
				got = append(got, string(f.Severity))
				if i < len(tt.want) && !strings.Contains(f.Summary, strings.SplitN(tt.want[i], " ", 2)[1]) {
					t.Errorf("summary %q lacks %q", f.Summary, tt.want[i])
				}
			}
			var sev []string
			for _, w := range tt.want {
				sev = append(sev, strings.SplitN(w, " ", 2)[0])
			}
			if !slices.Equal(got, sev) || judged != tt.judged {
				t.Errorf("got %q judged %d, want %q judged %d", got, judged, sev, tt.judged)
			}
		})
	}
	// A port's finding cites the capability line that makes it a port:
	// that line decides the severity.
	dyulu := "$ lspci -s 0000:66:04.0 -vvv\n......\n\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00\n......\n" +
		"\t\tLnkCap:\tPort #4, Speed 8GT/s, Width x4, ASPM not supported\n\t\tLnkSta:\tSpeed 8GT/s (ok), Width x2 (downgraded)\n"
	for _, in := range []string{dyulu, bridge + link("16GT/s", "x16", "16GT/s (ok)", "x4 (downgraded)")} {
		l, err := lspci.Parse(strings.NewReader(in), "l.txt")
		if err != nil {
			t.Fatal(err)
		}
		fs, _ := CheckPastedLspciLinks(l, "l.txt", Prose{})
		// Both have the capability line third.
		if len(fs) != 1 || len(fs[0].Evidence) != 3 || !strings.Contains(fs[0].Evidence[0].Value, "Port (Slot+)") || fs[0].Evidence[0].Source != "l.txt:3" {
			t.Errorf("port evidence: %+v", fs)
		}
	}
	// Real pastes: the gpud NVSwitch board's x2 management links belong to
	// a switch port and its second function (no finding); MI50s at x8 and
	// CXL modules at x8 (their headers not in the paste), an RTX 2060 (a
	// consumer GPU) at x8 are each a warning.
	for _, tt := range []struct {
		file string
		want int
	}{
		{"h100-nvswitch-pmc-acs-redirect-gpud.txt", 0},
		{"h100-pex890xx-acs-off-gpud.txt", 0},
		{"lnk-grep-mi50-gen1-x8.txt", 3},
		{"lnk-grep-cxl-x8-prompt.txt", 2},
		{"lnk-script-rtx2060-x8.txt", 1},
	} {
		f, err := os.Open("../../parse/lspci/testdata/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		l, err := lspci.Parse(f, tt.file)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		fs, _ := CheckPastedLspciLinks(l, tt.file, Prose{})
		var s []string
		for _, f := range fs {
			s = append(s, fmt.Sprintf("%s/%s", f.ID, f.Severity))
		}
		if len(fs) != tt.want || slices.ContainsFunc(s, func(x string) bool { return x != "pcie.link_degraded/warning" }) {
			t.Errorf("%s: %q, want %d warning", tt.file, s, tt.want)
		}
	}
}

func TestPCIeCarrier(t *testing.T) {
	for _, tt := range []struct{ class, name, want string }{
		{"Infiniband controller", "Mellanox Technologies MT2910 Family [ConnectX-7]", "a network adapter"},
		{"Ethernet controller", "QLogic Corp. FastLinQ QL41000 Series 10/25/40/50GbE Controller (rev 02)", "a network adapter"},
		{"3D controller", "NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)", "a data-center GPU"},
		{"3D controller", "NVIDIA Corporation GV100GL [Tesla V100 SXM2 32GB] (rev a1)", "a data-center GPU"},
		{"3D controller", "NVIDIA Corporation GA102GL [A10] (rev a1)", "a data-center GPU"},
		{"VGA compatible controller", "nVidia Corporation G92 [GeForce 8800 GT] (rev a2) (prog-if 00 [VGA controller])", ""},
		{"VGA compatible controller", "NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1)", ""},
		{"Non-Volatile memory controller", "Samsung Electronics Co Ltd NVMe SSD Controller PM9A1/PM9A3/980PRO", ""},
		{"", "", ""},
	} {
		if got := PCIeCarrier(tt.class, tt.name); got != tt.want {
			t.Errorf("PCIeCarrier(%q, %q) = %q, want %q", tt.class, tt.name, got, tt.want)
		}
	}
	for _, tt := range []struct {
		text       Prose
		want, word string
	}{
		{Prose{Before: "hacking on the QLogic FastLinQ QL41212HLCU 25GbE adapter"}, "a network adapter", "FastLinQ"},
		{Prose{Before: "media: Ethernet autoselect"}, "a network adapter", "Ethernet"},
		{Prose{Before: "our ConnectX-6 card"}, "a network adapter", "ConnectX-6"},
		{Prose{Before: "eight A100 on this board"}, "a data-center GPU", "A100"},
		{Prose{Before: "Example Output:"}, "", ""},
		{Prose{Before: "an x8 card in an x4 slot; L4 and A2 are short words"}, "", ""},
		{Prose{Before: "the ConnectX-7 next to the H100"}, "", ""},
		// forums.developer.nvidia.com (realworld-fresh15): a ConnectX-5 Ex
		// report quoting the root port's registers under a title.
		{Prose{Before: "ConnectX-5 Ex (MCX556A-EDAT)\n\nHost root port (00:03.2) PCIe capability registers\n\n"}, "", ""},
		{Prose{Before: "Looking at the output it has:\n", After: "From memory, Mellanox cards require a link width of 4"}, "a network adapter", "Mellanox"},
	} {
		if w, word := ProseCarrier(tt.text); w != tt.want || word != tt.word {
			t.Errorf("ProseCarrier(%q) = %q %q, want %q %q", tt.text, w, word, tt.want, tt.word)
		}
	}
}
