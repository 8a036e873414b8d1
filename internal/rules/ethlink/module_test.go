package ethlink

import (
	"os"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/ethmodule"
)

// The real module is ethtool --module-info of a 10G-SR SFP on ixgbe with no
// light (parse/ethmodule/testdata/ixgbe-sfp-sr-no-light.txt: blog post on
// reading SFP diagnostics with ethtool, Besmir Zanaj, 2020).
func TestCheckModules(t *testing.T) {
	b, err := os.ReadFile("../../parse/ethmodule/testdata/ixgbe-sfp-sr-no-light.txt")
	if err != nil {
		t.Fatal(err)
	}
	head := "$ ethtool -m eth2\n\tIdentifier                                : 0x03 (SFP)\n\tReceiver signal average optical power     : 0.3981 mW / -4.00 dBm\n"
	for _, tc := range []struct {
		name, in string
		want     int
		contains []string
	}{
		{"real: Rx, Tx and bias low alarms", string(b), 1,
			[]string{"ens2f1: transceiver alarm flags On: Laser bias current low alarm, Laser output power low alarm, Laser rx power low alarm", "receives no light", "ethtool -m ens2f1"}},
		{"flags all off", head + "\tLaser rx power low alarm                  : Off\n\tLaser rx power low warning                : Off\n", 0, nil},
		{"warning only", head + "\tModule temperature high alarm             : Off\n\tModule temperature high warning           : On\n", 1,
			[]string{"eth2: transceiver warning flags On (no alarm): Module temperature high warning"}},
		{"no diagnostics", "\tIdentifier                                : 0x03 (SFP)\n\tVendor name                               : Intel Corp\n", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ethmodule.Parse(strings.NewReader(tc.in), "paste")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckModules(res, "paste")
			if len(fs) != tc.want {
				t.Fatalf("%d findings, want %d: %+v", len(fs), tc.want, fs)
			}
			for _, f := range fs {
				if f.ID != "port.module_alarm" {
					t.Errorf("id %s", f.ID)
				}
				all := f.Summary + "\n" + strings.Join(f.Remedy, "\n")
				for _, c := range tc.contains {
					if !strings.Contains(all, c) {
						t.Errorf("missing %q in\n%s", c, all)
					}
				}
			}
		})
	}
}
