package hcatext

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
)

type parser func(io.Reader, string) (*Result, error)

func parserFor(name string) parser {
	switch {
	case strings.HasPrefix(name, "ibstatus"):
		return ParseIBStatus
	case strings.HasPrefix(name, "ibstat"):
		return ParseIBStat
	case strings.HasPrefix(name, "ibv_devinfo"):
		return ParseDevinfo
	}
	return ParseRdma
}

func parseFile(t testing.TB, name string) *Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := parserFor(name)(strings.NewReader(string(b)), name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// TestCorpus parses every real sample and runs the node rules on it: what
// was read, what was skipped, and the findings that must (and, by listing
// all of them, must not) appear.
func TestCorpus(t *testing.T) {
	tests := []struct {
		file           string
		devices, ports int
		// port "dev/n" -> "STATE PhysState rate" as read ("-" for absent)
		port     map[string]string
		skipped  []int // line numbers
		findings []string
	}{
		{"ibstat-cx6-ib-down-nccl-tests-128.txt", 3, 3,
			map[string]string{"mlx5_0/1": "ACTIVE LinkUp 200", "mlx5_1/1": "DOWN Disabled 10", "mlx5_2/1": "ACTIVE LinkUp -"},
			nil, []string{"port.disabled/critical mlx5_1/1"}},
		{"ibstat-cx6dx-roce-l2fwd-nv-6.txt", 2, 2,
			map[string]string{"mlx5_0/1": "ACTIVE LinkUp 100", "mlx5_1/1": "ACTIVE LinkUp 100"}, nil, nil},
		{"ibstat-cx7-roce-mixed-mooncake-1999.txt", 3, 3,
			map[string]string{"mlx5_0/1": "ACTIVE LinkUp 200", "mlx5_10/1": "DOWN Disabled -"},
			[]int{1}, []string{"port.disabled/info mlx5_10/1"}},
		{"ibstat-ibpanic-gpud-752.txt", 1, 1,
			map[string]string{"mlx5_7/1": "ACTIVE LinkUp 200"}, []int{1, 17, 20}, nil}, // GUIDs redacted as "..." are unknown, not malformed
		{"ibstat-ibwarn-noise-rdma-core-847.txt", 1, 2,
			map[string]string{"mlx4_0/1": "DOWN Disabled 10", "mlx4_0/2": "ACTIVE LinkUp 56"},
			[]int{1, 2, 3, 4, 5, 27}, []string{"port.disabled/info mlx4_0/1"}},
		{"ibstat-mlx4-2port-ceph-17018.txt", 1, 2,
			map[string]string{"mlx4_0/1": "ACTIVE LinkUp 56", "mlx4_0/2": "ACTIVE LinkUp 56"}, []int{1}, nil},
		{"ibstat-mlx4-polling-archwiki.txt", 1, 2,
			map[string]string{"mlx4_0/1": "ACTIVE LinkUp 20", "mlx4_0/2": "DOWN Polling 10"}, nil, []string{"port.polling/critical mlx4_0/2"}},
		{"ibstatus-roce-after-topo-nccl-1866.txt", 3, 3,
			map[string]string{"mlx5_0/1": "ACTIVE LinkUp 100", "mlx5_2/1": "- - -"},
			[]int{1, 3, 4, 5, 6, 7, 29}, nil},
		{"ibv_devinfo-port-down-deepep-60.txt", 2, 1,
			map[string]string{"mlx5_0/1": "DOWN - -"}, []int{1}, []string{"port.down/info mlx5_0/1"}},
		{"ibv_devinfo-roce-h100-deepep-38.txt", 2, 1,
			map[string]string{"mlx5_2/1": "ACTIVE - -"}, []int{23}, nil},
		{"ibv_devinfo-v-openmpi-6137.txt", 1, 0, nil, nil, nil},
		{"rdma-link-polling-rccl-1423.txt", 1, 1,
			map[string]string{"mlx5_7/1": "DOWN Polling -"}, nil, []string{"port.polling/critical mlx5_7/1"}}, // LID 3403 from the SM: it was cabled and in use
		{"rdma-link-sriov-operator-635.txt", 10, 10,
			map[string]string{"mlx5_0/1": "ACTIVE LinkUp -", "mlx5_1/1": "DOWN Disabled -", "mlx5_4/1": "ACTIVE LinkUp -", "mlx5_9/1": "DOWN - -"},
			[]int{1, 11}, []string{"port.disabled/critical mlx5_1/1", "port.disabled/critical mlx5_3/1", "port.disabled/critical mlx5_5/1", "port.disabled/critical mlx5_7/1", "port.down/critical mlx5_9/1"}}, // mlx5_9's line is cut before its physical state
		{"rdma-link-roce-3fs-283.txt", 2, 2,
			map[string]string{"mlx5_0/1": "ACTIVE LinkUp -", "mlx5_1/1": "ACTIVE LinkUp -"}, []int{1}, nil},
		{"rdma-statistic-qiita.txt", 1, 1, map[string]string{"mlx5_2/1": "- - -"}, []int{1}, nil},
		{"rdma-statistic-wrapped-iproute2-patch.txt", 1, 1, map[string]string{"mlx5_2/1": "- - -"}, []int{1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r := parseFile(t, tt.file)
			if len(r.Snap.Devices) != tt.devices || r.Ports() != tt.ports {
				t.Errorf("read %d devices, %d ports; want %d, %d", len(r.Snap.Devices), r.Ports(), tt.devices, tt.ports)
			}
			for name, want := range tt.port {
				dev, n, _ := rdmaName(name)
				p := r.Snap.Port(dev, n)
				if p == nil {
					t.Errorf("port %s missing", name)
					continue
				}
				got := []string{"-", "-", "-"}
				if p.State != nil {
					got[0] = p.State.String()
				}
				if p.PhysState != nil {
					got[1] = p.PhysState.String()
				}
				if p.Rate != nil {
					got[2] = strconv.FormatFloat(p.Rate.Gbps(), 'f', -1, 64)
				}
				if s := strings.Join(got, " "); s != want {
					t.Errorf("port %s = %q, want %q", name, s, want)
				}
			}
			var lines []int
			for _, s := range r.Skipped {
				lines = append(lines, s.Line)
			}
			if !slices.Equal(lines, tt.skipped) {
				t.Errorf("skipped lines %v, want %v (%+v)", lines, tt.skipped, r.Skipped)
			}
			var got []string
			for _, f := range noderules.Check(r.Snap, nil) {
				got = append(got, f.ID+"/"+string(f.Severity)+" "+f.Subject.Device+"/"+string(rune('0'+f.Subject.Port)))
			}
			if !slices.Equal(got, tt.findings) {
				t.Errorf("findings %q, want %q", got, tt.findings)
			}
		})
	}
}
