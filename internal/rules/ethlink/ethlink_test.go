package ethlink

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/ethlink"
)

func TestCheck(t *testing.T) {
	modes := "\tSupported link modes:   25000baseCR/Full\n\t                        100000baseCR4/Full\n\tAdvertised link modes:  25000baseCR/Full\n\t                        100000baseCR4/Full\n"
	real := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "parse", "ethlink", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"real: 100G up (mail-quoted, unquoted)", strings.ReplaceAll(real("hbl-100g-mail-quoted.txt"), "> ", ""), nil},
		{"real: 10G fibre down is a warning", real("em1-10g-fibre-no-link.txt"), []string{"port.down/warning"}},
		{"real: --show-fec, RS active", real("show-fec-netlink-rs.txt"), nil},
		{"--show-fec, Off, no speed in the paste: not judged", "FEC parameters for eth2:\nConfigured FEC encodings:  Auto RS\nActive FEC encoding: Off\n", nil},
		{"real: grep'd Speed alone", real("grep-speed-100g.txt"), nil},
		{"FEC None on a 200G link", "$ ethtool eth2 | grep Speed\n\tSpeed: 200000Mb/s\nFEC parameters for eth2:\nSupported/Configured FEC encodings: Auto\nActive FEC encoding: None\n", []string{"port.fec_off/warning"}},
		{"FEC Off on a 25G link", "Settings for eth2:\n\tSpeed: 25000Mb/s\nFEC parameters for eth2:\nConfigured FEC encodings: Auto\nActive FEC encoding: Off\n", nil},
		{"FEC None of another interface", "Settings for eth1:\n\tSpeed: 200000Mb/s\nFEC parameters for eth2:\nConfigured FEC encodings: Auto\nActive FEC encoding: None\n", nil},
		{"100G NIC down", "Settings for ens1f0np0:\n" + modes + "\tSpeed: Unknown!\n\tLink detected: no\n", []string{"port.down/critical"}},
		{"100G NIC at 25G", "Settings for ens1f0np0:\n" + modes + "\tSpeed: 25000Mb/s\n\tLink detected: yes\n", []string{"port.speed_degraded/warning"}},
		// pastebin.com/SB9ii7fn (realworld-fresh17): a gigabit port up at
		// 10 Mb/s half duplex, every line rendered as a "- " list item.
		{"real: GbE at 10Mb/s Half, flat \"- \" lines", "- Settings for eth0:\n- Supported ports: [ TP ]\n- Supported link modes: 10baseT/Half 10baseT/Full\n- 100baseT/Half 100baseT/Full\n- 1000baseT/Half 1000baseT/Full\n" +
			"- Supports auto-negotiation: Yes\n- Advertised link modes: 10baseT/Half 10baseT/Full\n- 100baseT/Half 100baseT/Full\n- 1000baseT/Half 1000baseT/Full\n- Advertised auto-negotiation: Yes\n" +
			"- Speed: 10Mb/s\n- Duplex: Half\n- Port: Twisted Pair\n- Auto-negotiation: on\n- Link detected: yes\n", []string{"port.speed_degraded/warning"}},
		// pastebin.com/KVtePgXq: two onboard GbE ports, one at 100 Mb/s, one
		// without a link.
		{"real: GbE at 100Mb/s and one unplugged, flat", "- Settings for eth0:\n- Supported link modes: 10baseT/Half 10baseT/Full\n- 100baseT/Half 100baseT/Full\n- 1000baseT/Full\n" +
			"- Advertised link modes: 10baseT/Half 10baseT/Full\n- 100baseT/Half 100baseT/Full\n- 1000baseT/Full\n- Speed: 100Mb/s\n- Duplex: Full\n- Link detected: yes\n" +
			"- Settings for eth1:\n- Supported link modes: 10baseT/Half 10baseT/Full\n- 100baseT/Half 100baseT/Full\n- 1000baseT/Full\n- Speed: Unknown!\n- Duplex: Unknown! (255)\n- Link detected: no\n",
			[]string{"port.down/warning", "port.speed_degraded/warning"}},
		{"partner caps at 25G", "Settings for ens1f0np0:\n" + modes + "\tLink partner advertised link modes:  25000baseCR/Full\n\tSpeed: 25000Mb/s\n\tLink detected: yes\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ethlink.Parse(strings.NewReader(tc.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Check(res, "p.txt").Findings {
				got = append(got, f.ID+"/"+string(f.Severity))
				if strings.Contains(tc.name, "10Mb/s Half") && (!strings.Contains(f.Summary, "Half duplex") || !strings.Contains(f.Summary, "partner's modes are not shown")) {
					t.Errorf("summary %q", f.Summary)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCheckFECNote(t *testing.T) {
	res, err := ethlink.Parse(strings.NewReader("FEC parameters for eth2:\nConfigured FEC encodings: Auto\nActive FEC encoding: None\n"), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := Check(res, "p.txt")
	if len(r.Findings) != 0 || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "p.txt:3") || !strings.Contains(r.Notes[0], "not judged without the link's speed") {
		t.Errorf("findings %v notes %q", r.Findings, r.Notes)
	}
}
