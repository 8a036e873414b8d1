package lnet

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/lnetctl"
)

func TestCheckNIs(t *testing.T) {
	const (
		lo   = "    - net type: lo\n      local NI(s):\n        - nid: 0@lo\n          status: up\n"
		tcp  = "    - net type: tcp\n      local NI(s):\n        - nid: 10.73.20.11@tcp\n          status: up\n          interfaces:\n              0: bond0\n"
		o2ib = "    - net type: o2ib\n      local NI(s):\n        - nid: 10.201.0.161@o2ib\n          status: %s\n          interfaces:\n              0: ib0\n"
	)
	for _, tt := range []struct {
		name, text string
		none       bool
		sev        finding.Severity
		sum        string
	}{
		{"tcp and o2ib up", lo + tcp + strings.Replace(o2ib, "%s", "up", 1), true, finding.Info, ""},
		{"the only NI down", lo + strings.Replace(o2ib, "%s", "down", 1), false, finding.Critical, "10.201.0.161@o2ib on ib0 is down: LNet sends nothing through it, and no other NI is up"},
		{"one of two down", lo + tcp + strings.Replace(o2ib, "%s", "down", 1), false, finding.Warning, "(1 other NI up carries the traffic"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			nis, err := lnetctl.Parse(strings.NewReader(tt.text), "t")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckNIs("t", nis)
			if tt.none {
				if len(fs) != 0 {
					t.Errorf("findings %v, want none", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].ID != "lnet.ni_down" || fs[0].Severity != tt.sev || !strings.Contains(fs[0].Summary, tt.sum) || len(fs[0].Evidence) != 2 {
				t.Errorf("got %+v", fs)
			}
		})
	}
}
