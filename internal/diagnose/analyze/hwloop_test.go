package analyze

import (
	"slices"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestHWCountersPrintfLoop: a loop printing each counter file beside its
// value, in the directory a cd named, is read as the rdma kind and judged
// with the hw_counters rules. netdata/netdata pull 9091 (Saruspete's
// comment): an Omni-Path hfi1 port whose names the rules do not know
// (drivers/infiniband/hw/hfi1/chip.c port_cntrs): read, judged healthy
// (a trickle of RcResend beside 19.9M RcAcks is no fault).
func TestHWCountersPrintfLoop(t *testing.T) {
	const loop = "for i in *; do printf \"%-20.20s  %s\\n\" \"$i\" \"$(<$i)\"; done\n"
	tests := []struct {
		name, text string
		want       []string
		exit       int
	}{
		{"hfi1, netdata 9091", "<pre>\ncd /sys/class/infiniband/hfi1_0/ports/1/hw_counters\n" + loop +
			"DmaWait               50646\nlifespan              10\nPktDrop               134\nRcAcks                19918731\n" +
			"RcResend              2079\nRcSeqNak              0\nRcTimeOut             0\nRcvHdrOvr0            0\nRcvHdrOvr1            0\n",
			nil, 0},
		{"mlx5 out_of_buffer in the same form", "cd /sys/class/infiniband/mlx5_0/ports/1/hw_counters\n" + loop +
			"out_of_buffer         52113\nout_of_sequence       0\n",
			[]string{"rdma.out_of_buffer/warning"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tt.text, Options{})
			var fs []finding.Finding
			kinds := []Kind{}
			for _, s := range fr.Segments {
				if s.Kind != KindUnknown {
					kinds = append(kinds, s.Kind)
				}
				fs = append(fs, s.Findings...)
			}
			if !slices.Equal(kinds, []Kind{KindRdma}) {
				t.Errorf("kinds %v, want rdma", kinds)
			}
			if got := ids(fs); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			if got := Run([]Input{{Name: "p.txt", Text: tt.text}}, Options{}).ExitCode; got != tt.exit {
				t.Errorf("exit %d, want %d", got, tt.exit)
			}
		})
	}
}
