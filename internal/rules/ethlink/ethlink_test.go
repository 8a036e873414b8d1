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
		{"100G NIC down", "Settings for ens1f0np0:\n" + modes + "\tSpeed: Unknown!\n\tLink detected: no\n", []string{"port.down/critical"}},
		{"100G NIC at 25G", "Settings for ens1f0np0:\n" + modes + "\tSpeed: 25000Mb/s\n\tLink detected: yes\n", []string{"port.speed_degraded/warning"}},
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
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}
