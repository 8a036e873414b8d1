package hcatext

import (
	"strings"
	"testing"
)

// TestRdmaPrintfLoop reads a shell loop printing each file of a counters
// directory beside its value, in the directory a cd or a prompt named:
// netdata/netdata pull 9091 (comment by Saruspete) on an Omni-Path hfi1
// port, whose names are the driver's (drivers/infiniband/hw/hfi1/chip.c
// port_cntrs: SW_IBP_CNTR(RcResend, rc_resends), SW_IBP_CNTR(PktDrop,
// pkt_drops), "RcAcks").
func TestRdmaPrintfLoop(t *testing.T) {
	const loop = "for i in *; do printf \"%-20.20s  %s\\n\" \"$i\" \"$(<$i)\"; done\n"
	tests := []struct {
		name, in string
		dev      string
		port     int
		want     map[string]uint64
		skipped  int
	}{
		{"hfi1 hw_counters after cd",
			"cd /sys/class/infiniband/hfi1_0/ports/1/hw_counters\n" + loop +
				"DmaWait               50646\nPktDrop               134\nRcAcks                19918731\nRcResend              2079\nRcvHdrOvr10           0\n",
			"hfi1_0", 1, map[string]uint64{"DmaWait": 50646, "PktDrop": 134, "RcAcks": 19918731, "RcResend": 2079, "RcvHdrOvr10": 0}, 1},
		{"mlx5 port counters under a prompt",
			"user@gpu1:/sys/class/infiniband/mlx5_1/ports/2/counters$ " + loop +
				"link_downed           3\nsymbol_error          0\n",
			"mlx5_1", 2, map[string]uint64{"counters/link_downed": 3, "counters/symbol_error": 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRdma(strings.NewReader(tt.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			p := r.Snap.Port(tt.dev, tt.port)
			if p == nil || len(r.Snap.Devices) != 1 {
				t.Fatalf("devices %+v", r.Snap.Devices)
			}
			if len(p.HWCounters)+len(p.Counters) != len(tt.want) {
				t.Errorf("counters %+v %+v, want %v", p.HWCounters, p.Counters, tt.want)
			}
			for k, v := range tt.want {
				c, ok := p.HWCounter(k)
				if pc, isPort := strings.CutPrefix(k, "counters/"); isPort {
					c, ok = p.Counter(pc)
				}
				if !ok || c.Value != v {
					t.Errorf("%s = %+v %v, want %d", k, c, ok, v)
				}
			}
			if len(r.Skipped) != tt.skipped {
				t.Errorf("skipped %+v, want %d", r.Skipped, tt.skipped)
			}
		})
	}
	// Without a directory named above, two columns are not counters.
	if r, err := ParseRdma(strings.NewReader("PktDrop               134\n"), "p.txt"); err == nil && len(r.Snap.Devices) > 0 {
		t.Errorf("read without a directory: %+v", r.Snap.Devices)
	}
}
