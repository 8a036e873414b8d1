package showgids

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/showgids"
)

func TestCheck(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "parse", "showgids", "testdata", "show_gids-spectrumscale4-cx6-roce.txt"))
	if err != nil {
		t.Fatal(err)
	}
	v1only := "mlx5_1  1       0       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db9                 v1      ens1f1\n"
	for _, tc := range []struct {
		name, in string
		want     int
	}{
		{"real: v1 and v2 GIDs", string(b), 0},
		{"a port with v1 only", string(b) + v1only, 1},
	} {
		tb, err := showgids.Parse(strings.NewReader(tc.in), "p.txt")
		if err != nil {
			t.Fatal(err)
		}
		fs, _ := Check(tb, "p.txt")
		if len(fs) != tc.want || tc.want > 0 && (fs[0].ID != "roce.gid_missing_v2" || fs[0].Subject.Device != "mlx5_1") {
			t.Errorf("%s: %+v", tc.name, fs)
		}
	}
}
