package analyze

import (
	"slices"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestBenchmarkAndFleetKinds: OSU tables (a run that hangs mid-table, a
// cut one), ucx_perftest -f CSV rows, DeepEP results, an MPI test's wrong
// results under mpirun's labels, ibv_generate_infiniband_test_load's compare
// lines and pdsh | dshbak -c blocks are read as
// their kinds and judged (lines from openucx/ucx, MPICH and
// deepseek-ai/DeepEP issues).
func TestBenchmarkAndFleetKinds(t *testing.T) {
	tests := []struct {
		name, text string
		kinds      []Kind
		want       []string
	}{
		{"osu hang", "mpirun -n 2 -ppn 1 osu_acc_latency\nOSU MPI_Accumulate latency Test v5.5\nWindow creation: MPI_Win_allocate\nSynchronization: MPI_Win_flush\nSize          Latency (us)\n1                       2.95\n8192                   10.49\n262144                161.30\n<hang>\n",
			[]Kind{KindOSU}, []string{"perf.benchmark_stopped/warning"}},
		{"osu cut, rdma", "```\n# OSU OpenSHMEM Put Test v5.0\n# Size          Latency (us)\n1                       1.98\n2                       1.90\n8192                    6.06\n```\n", []Kind{KindOSU}, nil},
		{"osu tcp", "# OSU MPI Latency Test v5.6.2\n# Size          Latency (us)\n0                      24.85\n1                      25.10\n", []Kind{KindOSU}, []string{"perf.lat_high/warning"}},
		{"ucx_perftest csv", "msg_pow2,iterations,typical_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr\n1,2000000,0.070,0.114,0.114,8.34,8.34,8748702,8748702\n8,2000000,0.070,0.078,0.078,97.90,97.90,12832496,12832496\n", []Kind{KindUCXPerf}, nil},
		{"mpi wrong results", "Sun Dec 24 00:05:00 2017[1,367]<stdout>:Did not get expected value for reduce scatter\nSun Dec 24 00:05:00 2017[1,367]<stdout>:[367] L recvbuf[2] = 9304802016, expected 9415283180256\n",
			[]Kind{KindMPICheck}, []string{"mpi.wrong_results/critical"}},
		{"deepep low latency", "[rank 2] Dispatch + combine bandwidth: 0.26 GB/s, avg_t=83610.61 us, min_t=924.03 us, max_t=377962.68 us\n[rank 4] Dispatch + combine bandwidth: 0.26 GB/s, avg_t=83610.93 us, min_t=644.26 us, max_t=377964.57 us\n",
			[]Kind{KindDeepEP}, []string{"perf.deepep_bw_low/warning"}},
		{"deepep one run", "[tuning] Best combine: SMs 24, NVL chunk 2, RDMA chunk 20: 44.37 GB/s (RDMA), 145.16 GB/s (NVL)\n[tuning] Best dispatch (BF16): SMs 24, NVL chunk 28, RDMA chunk 16: 40.89 GB/s (RDMA), 133.78 GB/s (NVL)\n", []Kind{KindDeepEP}, nil},
		{"ibv test load pass", "mlx4_0 rx_buffer compare : PASS\nmlx4_0 port 1 -> 2 RDMA write transmitted 1218428534784 bytes in 728.260808 seconds, 1673.1 Mbytes/sec\nmlx4_0 port 1 received 1225600488504 bytes in 728.260808 seconds, 1682.9 Mbytes/sec\n", []Kind{KindIBVLoad}, nil},
		{"ibv test load fail", "mlx4_0 rx_buffer compare : FAIL\nmlx4_0 port 1 -> 2 RDMA write transmitted 1218428534784 bytes in 728.260808 seconds, 1673.1 Mbytes/sec\n", []Kind{KindIBVLoad}, []string{"verbs.data_mismatch/critical"}},
		{"dshbak agree", "$pdsh -w  clx-orion-[040-048] ibv_devinfo -d mlx5_2 | grep fw_ver |dshbak -c\n----------------\nclx-orion-[040-048]\n----------------\n        fw_ver:                         12.21.2010\n", []Kind{KindDshbak}, nil},
		{"dshbak fw differs", "$pdsh -w  h[1-4] ibv_devinfo | grep fw_ver |dshbak -c\n----------------\nh[1-3]\n----------------\n        fw_ver:                         12.21.2010\n----------------\nh4\n----------------\n        fw_ver:                         12.20.1010\n",
			[]Kind{KindDshbak}, []string{"host.fw_outlier/warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tt.text, Options{})
			var kinds []Kind
			var fs []finding.Finding
			for _, s := range fr.Segments {
				if s.Kind != KindUnknown {
					kinds = append(kinds, s.Kind)
				}
				if s.Empty != "" {
					t.Errorf("segment %s not judged: %s", s.Kind, s.Empty)
				}
				fs = append(fs, s.Findings...)
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("kinds %v, want %v", kinds, tt.kinds)
			}
			if got := ids(fs); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
		})
	}
}
