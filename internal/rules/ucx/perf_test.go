package ucx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/ucxperf"
)

// TestCheckPerf: a bandwidth test's Final row against the line rate
// (perf.bw_low under 90%, critical under 80%); without a rate, or for a
// latency test, no finding; a table without its Final row is a note.
func TestCheckPerf(t *testing.T) {
	bw := func(name string, mbs float64) *ucxperf.Test {
		return &ucxperf.Test{Name: name, Line: 3, Final: &ucxperf.Row{Line: 9, Iterations: 1000, BWOverall: mbs}}
	}
	tests := []struct {
		name  string
		in    []*ucxperf.Test
		rate  float64
		want  []string
		notes int
		in0   string
	}{
		{"46.7 GB/s on 400G", []*ucxperf.Test{bw("tag_bw", 46743.62)}, 400, nil, 0, ""},
		{"no rate", []*ucxperf.Test{bw("tag_bw", 1000)}, 0, nil, 1, ""},
		{"85% of 200G", []*ucxperf.Test{bw("put_bw", 21250)}, 200, []string{"perf.bw_low/warning"}, 0, "ucx_perftest put_bw reached 170.0 of 200 Gb/s (85%)"},
		{"half of 200G", []*ucxperf.Test{bw("ucp_am_bw", 12500)}, 200, []string{"perf.bw_low/critical"}, 0, "(50%)"},
		{"latency test not judged on bandwidth", []*ucxperf.Test{bw("tag_lat", 10)}, 200, nil, 0, ""},
		{"cut run", []*ucxperf.Test{{Name: "tag_sync_bw", Line: 15}}, 200, nil, 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, notes := CheckPerf(tc.in, tc.rate, "u.txt")
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s/%s", f.ID, f.Severity))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || len(notes) != tc.notes {
				t.Fatalf("findings %v notes %q, want %v and %d notes", got, notes, tc.want, tc.notes)
			}
			if tc.in0 != "" && !strings.Contains(fs[0].Summary, tc.in0) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tc.in0)
			}
		})
	}
}
