package ethtool

import (
	"strings"
	"testing"
)

// The ethtool -i of two IPoIB ports of a ConnectX-6 (Debian bug 1086520,
// analyze testdata/realworld-fresh74).
const drvInfoCX6 = `  # ethtool -i ibp129s0f0
  driver: mlx5_core[ib_ipoib]
  version: 6.11.10-amd64
  firmware-version: 20.43.1014 (MT_0000000224)
  expansion-rom-version:
  bus-info: 0000:81:00.0
  supports-statistics: yes
  supports-test: yes
  supports-eeprom-access: no
  supports-register-dump: no
  supports-priv-flags: yes
  # ethtool -i ibp129s0f1
  driver: mlx5_core[ib_ipoib]
  version: 6.11.10-amd64
  firmware-version: 20.43.1014 (MT_0000000224)
  expansion-rom-version:
  bus-info: 0000:81:00.1
`

func TestParseDrvInfo(t *testing.T) {
	ds, err := ParseDrvInfo(strings.NewReader(drvInfoCX6), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []DrvInfo{
		{Driver: "mlx5_core[ib_ipoib]", Version: "6.11.10-amd64", Firmware: "20.43.1014 (MT_0000000224)", BusInfo: "0000:81:00.0", Line: 2},
		{Driver: "mlx5_core[ib_ipoib]", Version: "6.11.10-amd64", Firmware: "20.43.1014 (MT_0000000224)", BusInfo: "0000:81:00.1", Line: 13},
	}
	if len(ds) != len(want) {
		t.Fatalf("got %+v", ds)
	}
	for i := range want {
		if ds[i] != want[i] {
			t.Errorf("block %d = %+v, want %+v", i, ds[i], want[i])
		}
	}
	for _, tc := range []struct{ in, err string }{
		{"version: 1\ndriver: x\n", "x.txt line 1"},
		{"no such lines\n", "x.txt"},
	} {
		if _, err := ParseDrvInfo(strings.NewReader(tc.in), "x.txt"); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseDrvInfo(%q) error %v, want one naming %s", tc.in, err, tc.err)
		}
	}
}

func FuzzParseDrvInfo(f *testing.F) {
	f.Add(drvInfoCX6)
	f.Add("driver: igb\nversion: 5.4\nfirmware-version: N/A\nbus-info: \n")
	f.Add("bus-info: x\n")
	f.Fuzz(func(t *testing.T, in string) {
		ds, err := ParseDrvInfo(strings.NewReader(in), "fuzz")
		if err != nil && !strings.Contains(err.Error(), "fuzz") {
			t.Fatalf("error without its source: %v", err)
		}
		for _, d := range ds {
			if d.Line < 1 {
				t.Fatalf("%+v", d)
			}
		}
	})
}
