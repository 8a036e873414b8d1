package nccl

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestProgramBW: a program's own bus bandwidth beside an NCCL log whose
// connections go over the network is held to a floor no network NCCL
// runs on misses (realworld-fresh44's meshplugin56 README row: a ring
// over a third-party NET/Mesh plugin on three GB10 nodes, "Bus
// Bandwidth: 0.01 GB/s" at "Message Size: 1 MB").
func TestProgramBW(t *testing.T) {
	const via = ":21831:21831 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Mesh/0\n"
	for _, tc := range []struct {
		name, in string
		want     bool
	}{
		{"sample", via + "Message Size: 1 MB\nAvg Latency:  184.368 ms\nBus Bandwidth: 0.01 GB/s\n", true},
		{"fast enough", via + "Message Size: 1 MB\nBus Bandwidth: 5.2 GB/s\n", false},
		{"small message", via + "Message Size: 8 bytes\nBus Bandwidth: 0.00 GB/s\n", false},
		{"no size", via + "Bus Bandwidth: 0.01 GB/s\n", false},
		{"size too far before", via + "Message Size: 1 MB\n1\n2\n3\n4\n5\n6\nBus Bandwidth: 0.01 GB/s\n", false},
		{"no network", "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\nMessage Size: 1 MB\nBus Bandwidth: 0.01 GB/s\n", false},
	} {
		lg, err := nccllog.Parse(strings.NewReader(tc.in), "t")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		a := CheckLog(lg, LogOptions{})
		got := false
		for _, f := range a.Findings {
			if f.ID == "nccl.busbw_low" {
				got = true
				if f.Severity != finding.Warning || !strings.Contains(f.Summary, "NET/Mesh") {
					t.Errorf("%s: %s %s", tc.name, f.Severity, f.Summary)
				}
			}
		}
		if got != tc.want {
			t.Errorf("%s: busbw_low %v, want %v (%+v)", tc.name, got, tc.want, a.Findings)
		}
	}
}
