package host

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

func TestVersionOutliers(t *testing.T) {
	// node: a DGX-like node with eight ConnectX-7 (MT4129) and two
	// BlueField-3 (MT41692) HCAs.
	node := func(host, driver, cx7, bf3 string) NodeVersions {
		n := NodeVersions{Host: host, Driver: driver}
		for i := range 8 {
			if cx7 != "" {
				n.Firmware = append(n.Firmware, DeviceFirmware{Device: fmt.Sprintf("mlx5_%d", i), Model: "MT4129", Version: cx7})
			}
		}
		if bf3 != "" {
			n.Firmware = append(n.Firmware, DeviceFirmware{Device: "mlx5_8", Model: "MT41692", Version: bf3}, DeviceFirmware{Device: "mlx5_9", Model: "MT41692", Version: bf3})
		}
		return n
	}
	const drv, old, fw, oldFW, bf = "24.07-0.6.1.0", "24.04-0.6.6.0", "28.42.1000", "28.39.2048", "32.41.1000"
	fleet := func(n int, odd ...NodeVersions) []NodeVersions {
		var out []NodeVersions
		for i := range n {
			out = append(out, node(fmt.Sprintf("gpu%03d", i+1), drv, fw, bf))
		}
		return append(out, odd...)
	}
	tests := []struct {
		name  string
		nodes []NodeVersions
		want  []string // ID host: summary fragment
	}{
		{"all alike", fleet(4), nil},
		{"one node on an older driver", fleet(4, node("gpu017", old, fw, bf)),
			[]string{"host.driver_outlier gpu017: runs mlx5_core 24.04-0.6.6.0 while 4 of 5 nodes run 24.07-0.6.1.0"}},
		{"one node's ConnectX-7 on old firmware; its BlueField-3 fine", fleet(4, node("gpu017", drv, oldFW, bf)),
			[]string{"host.fw_outlier gpu017: mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7 (MT4129) run firmware 28.39.2048 while 4 of 5 nodes with MT4129 run 28.42.1000"}},
		{"driver and firmware are two causes", fleet(3, node("gpu017", old, oldFW, bf)),
			[]string{"host.driver_outlier gpu017: 3 of 4 nodes", "host.fw_outlier gpu017: 3 of 4 nodes with MT4129"}},
		{"firmware compared per model: a node without BlueField-3 is no outlier", fleet(3, node("gpu017", drv, fw, "")), nil},
		{"halfway through an upgrade: no majority, nothing judged", fleet(2, node("gpu017", old, oldFW, bf), node("gpu018", old, oldFW, bf)), nil},
		{"two nodes make no majority", []NodeVersions{node("a", drv, fw, bf), node("b", old, oldFW, bf)}, nil},
		{"unknown versions are not counted", fleet(2, node("gpu017", "", "", ""), node("gpu018", old, fw, bf)),
			[]string{"host.driver_outlier gpu018: 2 of 3 nodes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := VersionOutliers(tt.nodes)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d findings, want %d: %+v", len(got), len(tt.want), got)
			}
			for _, w := range tt.want {
				id, rest, _ := strings.Cut(w, " ")
				host, frag, _ := strings.Cut(rest, ": ")
				if !slices.ContainsFunc(got, func(f finding.Finding) bool {
					return f.ID == id && f.Subject.Host == host && strings.Contains(f.Summary, frag) && len(f.Evidence) >= 2 && len(f.Remedy) > 0
				}) {
					t.Errorf("no %s on %s with %q in %+v", id, host, frag, got)
				}
			}
		})
	}
}
