package analyze

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// A pasted lspci -vvv is its own kind: the ACS Control register of each
// switch downstream port between a GPU and a NIC is judged.
func TestLspciACS(t *testing.T) {
	b, err := os.ReadFile("../../parse/lspci/testdata/h100-pex890xx-acs-off-gpud.txt")
	if err != nil {
		t.Fatal(err)
	}
	healthy := string(b)
	// The corpus has no redirecting port above a GPU: set the kernel's
	// ACS bits on 17:01.0 (the GPU's port), as an IOMMU driver does.
	i := strings.Index(healthy, "17:01.0 PCI bridge")
	j := i + strings.Index(healthy[i:], "ACSCtl:")
	k := j + strings.IndexByte(healthy[j:], '\n')
	redirect := healthy[:j] + "ACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-" + healthy[k:]
	ibstat := read(t, "ibstat-cx6-ib-down-nccl-tests-128.txt")
	tests := []struct {
		name  string
		text  string
		kinds []Kind
		ids   []string
		exit  int
		pci   string
	}{
		{"ACS off", healthy, []Kind{KindLspci}, nil, finding.ExitHealthy, ""},
		{"GPU's switch port redirects", redirect, []Kind{KindLspci}, []string{"pcie.acs_redirect"}, finding.ExitWarning, "0000:17:01.0"},
		{"after a prompt and an ibstat", ibstat + "\n[root@gpu7 ~]# lspci -vvv\n" + redirect, []Kind{KindIBStat, KindLspci}, []string{"pcie.acs_redirect"}, -1, "0000:17:01.0"},
		{"without root", "$ lspci -vvv -s 17:01.0\n17:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])\n\tCapabilities: <access denied>\n\tKernel driver in use: pcieport\n",
			[]Kind{KindLspci}, nil, finding.ExitCannot, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "paste.txt", Text: tt.text}}, Options{})
			var kinds []Kind
			for _, s := range r.Files[0].Segments {
				if s.Kind != KindUnknown {
					kinds = append(kinds, s.Kind)
				}
			}
			var ids []string
			for _, f := range r.Findings {
				if f.ID == "pcie.acs_redirect" {
					ids = append(ids, f.ID)
					if f.Subject.PCI != tt.pci || f.Subject.File != "paste.txt" || !strings.HasPrefix(f.Evidence[0].Source, "paste.txt:") {
						t.Errorf("finding %+v", f)
					}
				}
			}
			if !slices.Equal(kinds, tt.kinds) || !slices.Equal(ids, tt.ids) || tt.exit >= 0 && r.ExitCode != tt.exit {
				t.Errorf("kinds %v ids %v exit %d, want %v %v %d", kinds, ids, r.ExitCode, tt.kinds, tt.ids, tt.exit)
			}
			if tt.exit == finding.ExitCannot && !strings.Contains(r.NotJudged, "run sudo lspci -vvv") {
				t.Errorf("reason %q does not say how to read ACS", r.NotJudged)
			}
		})
	}
}
