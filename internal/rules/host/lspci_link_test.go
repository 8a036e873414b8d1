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
	const bridge = "00:01.0 PCI bridge: Intel Corporation Device 460d (rev 02) (prog-if 00 [Normal decode])\n\tBus: primary=00, secondary=01, subordinate=01, sec-latency=0\n\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00\n"
	link := func(capS, capW, staS, staW string) string {
		return "\t\tLnkCap:\tPort #0, Speed " + capS + ", Width " + capW + ", ASPM L1, Exit Latency L1 <16us\n\t\tLnkSta:\tSpeed " + staS + ", Width " + staW + "\n"
	}
	for _, tt := range []struct {
		name, in string
		want     []string
		judged   int
	}{
		{"GPU speed drop only: a warning, idle", gpu + link("16GT/s", "x16", "2.5GT/s (downgraded)", "x16 (ok)"), []string{"warning at idle"}, 1},
		{"GPU width drop: critical", gpu + link("16GT/s", "x16", "16GT/s (ok)", "x8 (downgraded)"), []string{"critical x8 instead of x16"}, 1},
		{"NIC speed drop: critical", nic + link("8GT/s", "x8", "5GT/s (downgraded)", "x8 (ok)"), []string{"critical 5GT/s instead of 8GT/s"}, 1},
		{"unnamed device, speed only: warning", strings.TrimPrefix(link("16GT/s", "x16", "2.5GT/s (downgraded)", "x16 (ok)"), ""), []string{"warning does not name"}, 1},
		{"unnamed device, width and speed: critical", link("8GT/s", "x4, ...", "5GT/s", "x1, ..."), []string{"critical x1 instead of x4 and 5GT/s instead of 8GT/s"}, 1},
		{"only lspci's marks, LnkCap cut", "\t\tLnkSta:\tSpeed 8GT/s (ok), Width x4 (downgraded)\n", []string{"critical x4 (downgraded)"}, 1},
		{"trained at capability", nic + link("8GT/s", "x8", "8GT/s (ok)", "x8 (ok)"), nil, 1},
		{"root port narrower than its cap, device below in the paste at its own width: the device is judged", bridge + link("16GT/s", "x16", "16GT/s (ok)", "x4 (downgraded)") +
			"01:00.0 Ethernet controller: Intel Corporation Ethernet Controller X710 [8086:1572]\n\tCapabilities: [a0] Express (v2) Endpoint, MSI 00\n" + link("8GT/s", "x4", "8GT/s (ok)", "x4 (ok)"), nil, 1},
		{"root port narrower than its cap, device below not in the paste: a warning", bridge + link("16GT/s", "x16", "16GT/s (ok)", "x4 (downgraded)"), []string{"warning root port 0000:00:01.0 trained at x4 instead of x16"}, 1},
		{"root port slower than its cap alone is not a finding (an idle GPU below)", bridge + link("16GT/s", "x16", "2.5GT/s (downgraded)", "x16 (ok)"), nil, 1},
		{"empty slot (no link) is not a finding", bridge + link("16GT/s", "x16", "2.5GT/s (downgraded)", "x0 (downgraded)"), nil, 1},
		// github.com/dyulu (realworld-fresh14): `lspci -s 0000:66:04.0 -vvv` cut to its Express capability.
		{"downstream port excerpt without its header: a warning", "$ lspci -s 0000:66:04.0 -vvv\n......\n\tCapabilities: [68] Express (v2) Downstream Port (Slot+), MSI 00\n......\n" +
			"\t\tLnkCap:\tPort #4, Speed 8GT/s, Width x4, ASPM not supported\n\t\t\tClockPM- Surprise+ LLActRep+ BwNot+ ASPMOptComp+\n" +
			"\t\tLnkSta:\tSpeed 8GT/s (ok), Width x2 (downgraded)\n\t\t\tTrErr- Train- SlotClk- DLActive+ BWMgmt- ABWMgmt-\n", []string{"warning the PCIe downstream port trained at x2 instead of x4"}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := lspci.Parse(strings.NewReader(tt.in), "l.txt")
			if err != nil {
				t.Fatal(err)
			}
			fs, judged := CheckPastedLspciLinks(l, "l.txt")
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
		fs, _ := CheckPastedLspciLinks(l, "l.txt")
		// Both have the capability line third.
		if len(fs) != 1 || len(fs[0].Evidence) != 3 || !strings.Contains(fs[0].Evidence[0].Value, "Port (Slot+)") || fs[0].Evidence[0].Source != "l.txt:3" {
			t.Errorf("port evidence: %+v", fs)
		}
	}
	// Real pastes: the gpud NVSwitch board's x2 management links belong to
	// a switch port and its second function (no finding); MI50s at x8,
	// CXL modules at x8, an RTX 2060 at x8 are each critical.
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
		fs, _ := CheckPastedLspciLinks(l, tt.file)
		var s []string
		for _, f := range fs {
			s = append(s, fmt.Sprintf("%s/%s", f.ID, f.Severity))
		}
		if len(fs) != tt.want || slices.ContainsFunc(s, func(x string) bool { return x != "pcie.link_degraded/critical" }) {
			t.Errorf("%s: %q, want %d critical", tt.file, s, tt.want)
		}
	}
}
