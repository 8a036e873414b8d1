package host

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/lspci"
)

const lspciCorpus = "../../parse/lspci/testdata/"

// withACSCtl returns the text with the ACSCtl line of the function at addr
// replaced (the corpus has no redirecting port above a GPU: the test makes
// one).
func withACSCtl(t *testing.T, text, addr, flags string) string {
	t.Helper()
	ls := strings.Split(text, "\n")
	in := false
	for i, l := range ls {
		if l != "" && l[0] != '\t' && l[0] != ' ' {
			in = strings.HasPrefix(l, addr+" ")
		}
		if in && strings.Contains(l, "ACSCtl:") {
			ls[i] = "\t\tACSCtl:\t" + flags
			return strings.Join(ls, "\n")
		}
	}
	t.Fatalf("no ACSCtl line for %s", addr)
	return ""
}

func TestCheckPastedLspci(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(lspciCorpus + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	healthy := read("h100-pex890xx-acs-off-gpud.txt")
	nvswitch := read("h100-nvswitch-pmc-acs-redirect-gpud.txt")
	const kernelACS = "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"
	gpuPort := withACSCtl(t, healthy, "17:01.0", kernelACS)
	// 17:01.0's block alone: no GPU or NIC in the paste.
	start := strings.Index(gpuPort, "17:01.0 PCI bridge")
	bridgeOnly := gpuPort[start : start+strings.Index(gpuPort[start:], "\n17:02.0")]
	tests := []struct {
		name      string
		text      string
		pci       []string // the reported ports
		inSummary []string // in the finding's summary (first) or the verdict's
		notJudged string
	}{
		{name: "ACS off on the switch between GPU and NICs", text: healthy,
			inSummary: []string{"1 GPU, 3 NICs", "ACS read on 6 bridges", "no switch port redirects"}},
		{name: "redirecting switch with only NVSwitch bridges below", text: nvswitch,
			inSummary: []string{"4 switch ports redirect without a GPU and a NIC talking through them (82:00.0, 82:01.0, 82:02.0, 82:03.0)"}},
		{name: "redirect on the GPU's downstream port", text: gpuPort, pci: []string{"0000:17:01.0"},
			inSummary: []string{"(ReqRedir+ CmpltRedir+)", "GPU 19:00.0–NIC 1a:00.0, GPU 19:00.0–NIC 1b:00.0, GPU 19:00.0–NIC 1b:00.1"}},
		{name: "egress control on the NIC's port", text: withACSCtl(t, healthy, "17:02.0", "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl+ DirectTrans-"),
			pci: []string{"0000:17:02.0"}, inSummary: []string{"(EgressCtrl+)", "GPU 19:00.0–NIC 1a:00.0"}},
		{name: "source validation alone redirects nothing", text: withACSCtl(t, healthy, "17:01.0", "SrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd+ EgressCtrl- DirectTrans-"),
			inSummary: []string{"no switch port redirects"}},
		{name: "redirect above the switch's management endpoint only", text: withACSCtl(t, healthy, "17:1f.0", kernelACS),
			inSummary: []string{"1 switch port redirect without a GPU and a NIC talking through them (17:1f.0)"}},
		{name: "redirect on the root port", text: withACSCtl(t, healthy, "15:01.0", kernelACS),
			inSummary: []string{"1 root port redirect"}},
		{name: "bridges only: pairing not in the paste", text: bridgeOnly, pci: []string{"0000:17:01.0"},
			inSummary: []string{"which the paste does not show"}},
		{name: "without root", text: "17:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)\n\tCapabilities: <access denied>\n17:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)\n\tCapabilities: <access denied>\n",
			notJudged: "lspci ran without root: the ACS registers of 2 bridges are not shown"},
		{name: "plain lspci", text: "17:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)\n19:00.0 3D controller: NVIDIA Corporation Device 2330 (rev a1)\n",
			notJudged: "no ACSCtl line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := lspci.Parse(strings.NewReader(tt.text), "lspci.txt")
			if err != nil {
				t.Fatal(err)
			}
			v := CheckPastedLspci(l, "lspci.txt")
			var pci []string
			for _, f := range v.Findings {
				pci = append(pci, f.Subject.PCI)
				if f.ID != "pcie.acs_redirect" || f.Subject.File != "lspci.txt" || !strings.HasPrefix(f.Evidence[0].Source, "lspci.txt:") || !strings.HasPrefix(f.Evidence[0].Value, "ACSCtl: ") {
					t.Errorf("finding %+v", f)
				}
				if want := "for b in " + f.Subject.PCI + "; do setpci -s $b ECAP_ACS+0x6.w=0000; done"; !strings.Contains(f.Remedy[0], want) {
					t.Errorf("remedy %q, want %q", f.Remedy[0], want)
				}
			}
			if !slices.Equal(pci, tt.pci) {
				t.Errorf("reported %v, want %v", pci, tt.pci)
			}
			text := v.Summary
			if len(v.Findings) > 0 {
				text = v.Findings[0].Summary
			}
			for _, s := range tt.inSummary {
				if !strings.Contains(text, s) {
					t.Errorf("%q lacks %q", text, s)
				}
			}
			if !strings.HasPrefix(v.NotJudged, tt.notJudged) || (tt.notJudged == "") != (v.NotJudged == "") {
				t.Errorf("not judged %q, want %q", v.NotJudged, tt.notJudged)
			}
		})
	}
}

// TestCheckPastedLspciGrepACSCtl: `lspci -vvv | grep ACSCtl` (NVIDIA/nccl#523
// and #606): the redirecting lines are one pcie.acs_redirect; SrcValid
// alone is no redirect.
func TestCheckPastedLspciGrepACSCtl(t *testing.T) {
	const on = "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
	const sv = "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"
	const off = "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"
	for _, tc := range []struct {
		name, text string
		want       int
	}{
		{"redirect", "# lspci -vvv | grep -i acsctl\n" + on + sv + off + on, 1},
		{"srcvalid only", "$ sudo lspci -vvv | grep ACSCtl\n" + sv + sv + off, 0},
	} {
		l, err := lspci.Parse(strings.NewReader(tc.text), "p")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		v := CheckPastedLspci(l, "p")
		if len(v.Findings) != tc.want || v.NotJudged != "" {
			t.Fatalf("%s: %d findings (%+v), not judged %q; want %d", tc.name, len(v.Findings), v.Findings, v.NotJudged, tc.want)
		}
		if tc.want == 1 {
			f := v.Findings[0]
			if f.ID != "pcie.acs_redirect" || len(f.Evidence) != 2 || f.Evidence[0].Source != "p:2" || f.Evidence[1].Source != "p:5" {
				t.Errorf("%s: %+v", tc.name, f)
			}
		}
	}
}
