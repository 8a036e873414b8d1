package osu

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/osu"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]finding.Severity
	}{
		{"rdma latency, cut", "# OSU OpenSHMEM Put Test v5.0\n# Size          Latency (us)\n1                       1.98\n8192                    6.06\n", nil},
		{"hang", "OSU MPI_Accumulate latency Test v5.5\nSize          Latency (us)\n1                       2.95\n262144                161.30\n<hang>\n",
			map[string]finding.Severity{"perf.benchmark_stopped": finding.Warning}},
		{"tcp latency", "# OSU MPI Latency Test v5.6.2\n# Size          Latency (us)\n0                      24.85\n1                      25.10\n", map[string]finding.Severity{"perf.lat_high": finding.Warning}},
		{"tcp bandwidth", "# OSU MPI Bandwidth Test v5.6.2\n# Size      Bandwidth (MB/s)\n1                       0.35\n65536                 112.31\n4194304               117.20\n", map[string]finding.Severity{"perf.bw_low": finding.Warning}},
		{"rdma bandwidth", "# OSU MPI Bandwidth Test v5.6.2\n# Size      Bandwidth (MB/s)\n1                       3.35\n4194304             24117.20\n", nil},
		{"collective not judged", "# OSU MPI Allreduce Latency Test v7.1\n# Size       Avg Latency(us)\n4                     112.43\n", nil},
		{"error after rows", "# OSU MPI Bandwidth Test v5.6.2\n# Size      Bandwidth (MB/s)\n1                       3.35\n[host:1234:0:1234] ib_mlx5_log.c:143 Transport retry count exceeded on mlx5_0:1/IB\n",
			map[string]finding.Severity{"perf.benchmark_stopped": finding.Warning}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tables, err := osu.Parse(strings.NewReader(tc.in), "p")
			if err != nil {
				t.Fatal(err)
			}
			fs, _ := Check(tables, "p")
			got := map[string]finding.Severity{}
			for _, f := range fs {
				got[f.ID] = f.Severity
			}
			if len(got) != len(tc.want) {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			for id, sev := range tc.want {
				if got[id] != sev {
					t.Errorf("%s: %v, want %v", id, got[id], sev)
				}
			}
		})
	}
}
