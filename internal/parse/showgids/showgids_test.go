package showgids

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "show_gids-spectrumscale4-cx6-roce.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Parse(strings.NewReader(string(b)), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.GIDs) != 6 || tb.Found != 6 {
		t.Fatalf("%d GIDs, found %d", len(tb.GIDs), tb.Found)
	}
	if g := tb.GIDs[5]; g.Device != "mlx5_0" || g.Port != 1 || g.Index != 5 || g.IPv4 != "172.19.0.60" || g.Ver != "v2" || g.NetDev != "ens1f0" || g.Line != 9 {
		t.Errorf("%+v", g)
	}
	if g := tb.GIDs[0]; g.IPv4 != "" || g.Ver != "v1" {
		t.Errorf("%+v", g)
	}
	if _, err := Parse(strings.NewReader("DEV PORT INDEX GID IPv4 VER DEV\n"), "x"); !errors.Is(err, ErrNoTable) {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	b, _ := os.ReadFile(filepath.Join("testdata", "show_gids-spectrumscale4-cx6-roce.txt"))
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, in string) {
		tb, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, g := range tb.GIDs {
			if g.Device == "" || g.Line < 1 {
				t.Fatalf("%+v", g)
			}
		}
	})
}
