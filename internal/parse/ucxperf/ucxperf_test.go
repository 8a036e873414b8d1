package ucxperf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	type want struct {
		name      string
		rows      int
		final     bool
		finalLine int
		bw, lat   float64
		iters     int64
	}
	tests := []struct {
		file string
		want []want
	}{
		{"../../diagnose/analyze/testdata/realworld-fresh23/ucx-perftest-ucx10649-bond-tag-bw-46gbs.txt", []want{
			{"tag_bw", 1, true, 10, 46743.62, 1671.351, 1000},
			{"tag_sync_bw", 0, false, 0, 0, 0, 0},
		}},
		{"testdata/old-layout-put-lat.txt", []want{{"ucp_put_lat", 1, true, 8, 8.94, 0.853, 1000000}}},
		{"testdata/cut-am-bw.txt", []want{{"am_bw", 2, false, 0, 0, 0, 0}}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			f, err := os.Open(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := Parse(f, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d tests, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Name != w.name || len(g.Rows) != w.rows || (g.Final != nil) != w.final {
					t.Errorf("test %d: %q, %d rows, final %v; want %q %d %v", i, g.Name, len(g.Rows), g.Final != nil, w.name, w.rows, w.final)
					continue
				}
				if g.Final != nil && (g.Final.Line != w.finalLine || g.Final.BWOverall != w.bw || g.Final.LatOverall != w.lat || g.Final.Iterations != w.iters) {
					t.Errorf("test %d Final %+v, want line %d bw %v lat %v iterations %d", i, *g.Final, w.finalLine, w.bw, w.lat, w.iters)
				}
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, in := range []string{
		"",
		"Final: 1000 0.2 1.0 1.0 10 10 5 5\n", // a Final row without its table
		"=== tag_bw ===\n+----+\n",
	} {
		if _, err := Parse(strings.NewReader(in), "x"); !errors.Is(err, ErrNoTable) {
			t.Errorf("%q: %v, want ErrNoTable", in, err)
		}
	}
}

func TestBanner(t *testing.T) {
	for in, want := range map[string]string{
		"=================================================== tag_bw =================================================": "tag_bw",
		"===== ucp_am_lat =====":        "ucp_am_lat",
		"===== mlx5_0 =====":            "mlx5_0",
		"========== Summary ==========": "",
		"=====":                         "",
		"== two words ==":               "",
	} {
		if got := Banner(in); got != want {
			t.Errorf("Banner(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParse: any input parses or fails with an error, never panics, and
// every row points at a line of the input.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("| latency (usec) | bandwidth (MB/s) |\nFinal: 1 NaN 1 1 1 1 1 1\n")
	f.Add("msg_pow2,iterations,typical_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr\n1,2000000,0.070,0.114,0.114,8.34,8.34,8748702,8748702\n")
	f.Fuzz(func(t *testing.T, s string) {
		tests, err := Parse(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		lines := strings.Count(s, "\n") + 1
		for _, tc := range tests {
			for _, r := range tc.Rows {
				if r.Line < 1 || r.Line > lines {
					t.Fatalf("row line %d of %d", r.Line, lines)
				}
			}
			if tc.Final != nil && (tc.Final.Line < 1 || tc.Final.Line > lines) {
				t.Fatalf("final line %d", tc.Final.Line)
			}
		}
	})
}

func TestParseCSV(t *testing.T) {
	in := strings.Join([]string{
		"mpirun -n 2 -x UCX_TLS=cm,rc_mlx5 ucx_perftest -t ucp_put_bw -b msg_pow2 -f -v",
		"[warn] Epoll ADD(1) on fd 0 failed.",
		"msg_pow2,iterations,typical_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr",
		"1,2000000,0.070,0.114,0.114,8.34,8.34,8748702,8748702",
		"8,2000000,0.070,0.078,0.078,97.90,97.90,12832496,12832496",
		"iterations,50.0%ile_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr",
		"1000,0.240,1675.942,1671.351,46615.58,46743.62,597,598",
		"1,2,3",
	}, "\n")
	got, err := Parse(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d tests, want 3", len(got))
	}
	if g := got[1]; !g.CSV || g.Name != "ucp_put_bw" || g.Label != "8" || g.Final == nil || g.Final.Line != 5 || g.Final.BWOverall != 97.90 || g.Final.RateAll != 12832496 {
		t.Errorf("row 2: %+v %+v", g, g.Final)
	}
	if g := got[2]; g.Label != "" || g.Final.Iterations != 1000 || g.Final.BWOverall != 46743.62 {
		t.Errorf("row 3: %+v %+v", g, g.Final)
	}
	for _, h := range []string{"msg_pow2,iterations,typical_lat", "a,b,c,d,e,f,g,h,i", ""} {
		if CSVHeader(h) >= 0 {
			t.Errorf("CSVHeader(%q) matched", h)
		}
	}
}
