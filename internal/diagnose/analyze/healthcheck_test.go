package analyze

import (
	"slices"
	"testing"
)

// TestHealthCheckPastes: node health-check programs' verdicts. A passed
// fabric check (azurehpc-health-checks' check_ib_bw_gdr, gpud's ibstat
// check) is judged healthy; passed checks of other things are a note; a
// failed NHC check_hw_ib is the port finding it names; a monitoring
// collector's error that only quotes a sysfs path is no rdma output.
func TestHealthCheckPastes(t *testing.T) {
	tests := []struct {
		name, text string
		kinds      []Kind
		want       []string
		verdict    string
	}{
		{"azure ib bw passed", "PKEY for mlx5_ib0: 0x8001\nSUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: IB write bandwidth test IB_WRITE_BW passed for IB=mlx5_ib3, IB BW=399.71 Gbps\nSUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: IB write bandwidth test IB_WRITE_BW passed for IB=mlx5_ib4, IB BW=399.90 Gbps\n",
			[]Kind{KindHealthCheck}, nil, "healthy"},
		{"gpud passed", "✔ ibstat ports/rates check passed (at least ports: 8, rate: 400)\n", []Kind{KindHealthCheck}, nil, "healthy"},
		{"only non-fabric checks", "SUCCESS:  nhc:  Health check passed:  check_gpu_ecc: ECC checks passed\n", []Kind{KindHealthCheck}, nil, "not_judged"},
		{"nhc port not active", "ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port hfi1_0:1 is ACTIVE (LinkUp 100 Gb/sec).\n",
			[]Kind{KindToolError}, []string{"port.down/critical"}, "critical"},
		{"nhc no device", "ERROR:  nhc:  Health check failed:  check_hw_ib:  No Infiniband device was found.\n",
			[]Kind{KindToolError}, []string{"port.missing/critical"}, "critical"},
		{"collector error quoting a sysfs path", "time=2025-03-03T19:11:05.508Z level=ERROR source=collector.go:168 msg=\"collector failed\" name=infiniband duration_seconds=0.113365034 err=\"error obtaining InfiniBand class info: failed to read file \\\"/sys/class/infiniband/mlx5_0/ports/1/counters/VL15_dropped\\\": invalid argument\"\n",
			nil, []string{"paste.failure_lines/warning"}, "warning"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "p.txt", Text: tt.text}}, Options{})
			var kinds []Kind
			for _, s := range r.Files[0].Segments {
				if s.Kind != KindUnknown {
					kinds = append(kinds, s.Kind)
				}
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("kinds %v, want %v", kinds, tt.kinds)
			}
			if got := ids(r.Findings); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			if v := string(r.Verdict); v != tt.verdict {
				t.Errorf("verdict %s, want %s", v, tt.verdict)
			}
		})
	}
}
