package ethmodule

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The SFP lines are ethtool --module-info of a 10G-SR SFP on ixgbe with no
// light (testdata/ixgbe-sfp-sr-no-light.txt; blog post on reading SFP
// diagnostics with ethtool, Besmir Zanaj, 2020); the QSFP flag lines are
// laid out as ethtool qsfp.c prints them, "%-41s : %s" with "(Chan n)".
func TestParse(t *testing.T) {
	sample, err := os.ReadFile("testdata/ixgbe-sfp-sr-no-light.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, in  string
		dev       string
		line      int
		alarms    []string // keys of the alarm flags On
		warnings  int
		wantError bool
	}{
		{"sfp with low alarms", string(sample), "ens2f1", 5,
			[]string{"Laser bias current low alarm", "Laser output power low alarm", "Laser rx power low alarm"}, 3, false},
		{"all flags off, -m",
			"# ethtool -m eth3\n\tIdentifier                                : 0x03 (SFP)\n\tLaser rx power                            : 0.5012 mW / -3.00 dBm\n" +
				"\tLaser rx power low alarm                  : Off\n\tLaser rx power low warning                : Off\n",
			"eth3", 2, nil, 0, false},
		{"qsfp per channel",
			"\tIdentifier                                : 0x11 (QSFP28)\n\tRx loss of signal                         : [ Yes, No, No, No ]\n" +
				"\tLaser rx power low alarm   (Chan 1)       : On\n\tLaser rx power low warning (Chan 1)       : On\n\tLaser rx power low alarm   (Chan 2)       : Off\n",
			"", 1, []string{"Laser rx power low alarm   (Chan 1)"}, 1, false},
		{"another tool's Identifier line is not ethtool -m",
			"Identifier: 0x11 (QSFP28)\nTransceiver type: 200GBASE-CR4\n", "", 0, nil, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(tt.in), "paste")
			if tt.wantError {
				var pe *ParseError
				if !errors.Is(err, ErrNoModule) || !errors.As(err, &pe) {
					t.Fatalf("err %v, want ErrNoModule", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Modules) != 1 {
				t.Fatalf("%d modules", len(res.Modules))
			}
			m := res.Modules[0]
			if m.NetDev != tt.dev || m.Line != tt.line {
				t.Errorf("netdev %q line %d, want %q %d", m.NetDev, m.Line, tt.dev, tt.line)
			}
			var alarms []string
			warnings := 0
			for _, f := range m.FlagsOn() {
				if f.Alarm {
					alarms = append(alarms, f.Key)
				} else {
					warnings++
				}
			}
			if strings.Join(alarms, "|") != strings.Join(tt.alarms, "|") || warnings != tt.warnings {
				t.Errorf("alarms %q warnings %d, want %q %d", alarms, warnings, tt.alarms, tt.warnings)
			}
		})
	}
}

func TestCommandNetDev(t *testing.T) {
	for in, want := range map[string]string{
		"root@localhost:~# ethtool --module-info ens2f1": "ens2f1",
		"$ sudo ethtool -m eth0":                         "eth0",
		"ethtool -S eth0":                                "",
		"ethtool -m":                                     "",
	} {
		got, ok := CommandNetDev(in)
		if got != want || ok != (want != "") {
			t.Errorf("%q: %q %v, want %q", in, got, ok, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	ents, _ := os.ReadDir("testdata")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			b, _ := os.ReadFile(filepath.Join("testdata", e.Name()))
			f.Add(string(b))
		}
	}
	f.Add("ethtool -m x\nIdentifier  : 0x\n a :\n")
	f.Fuzz(func(t *testing.T, in string) {
		res, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, m := range res.Modules {
			if m.Line < 1 || len(m.Fields) == 0 || m.Fields[0].Key != "Identifier" {
				t.Fatalf("bad block %+v", m)
			}
			m.FlagsOn()
		}
	})
}
