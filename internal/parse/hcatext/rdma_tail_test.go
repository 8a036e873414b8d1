package hcatext

import (
	"strings"
	"testing"
)

// TestRdmaTailHeaders reads sysfs port files as tail -v and head -v print
// them: "==> FILE <==" above each value (coreutils tail.c write_header),
// as the "cat" and "=== name ===" forms are read.
func TestRdmaTailHeaders(t *testing.T) {
	tests := []struct {
		name, in string
		state    string
		counter  string
		value    uint64
	}{
		{"port attributes",
			"$ tail -v -n +1 /sys/class/infiniband/mlx5_0/ports/1/{state,phys_state}\n==> /sys/class/infiniband/mlx5_0/ports/1/state <==\n1: DOWN\n\n==> /sys/class/infiniband/mlx5_0/ports/1/phys_state <==\n3: Disabled\n",
			"DOWN", "", 0},
		{"a port counter",
			"==> /sys/class/infiniband/mlx5_0/ports/1/counters/link_downed <==\n3\n",
			"", "link_downed", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRdma(strings.NewReader(tt.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			p := r.Snap.Port("mlx5_0", 1)
			if p == nil {
				t.Fatalf("no port: %+v", r.Snap.Devices)
			}
			if tt.state != "" && p.State.String() != tt.state {
				t.Errorf("state %v, want %s", p.State, tt.state)
			}
			if tt.counter != "" {
				if c, ok := p.Counter(tt.counter); !ok || c.Value != tt.value {
					t.Errorf("%s = %+v %v, want %d", tt.counter, c, ok, tt.value)
				}
			}
		})
	}
}
