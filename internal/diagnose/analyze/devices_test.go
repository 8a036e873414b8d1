package analyze

import (
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestVerbsDevicesPastes: ibv_devices' table (rdma-core
// libibverbs/examples/device_list.c) is read by its header, whatever the
// command line above says; listed devices are a judgement (user space
// sees them), the header with no row is no device usable, and an
// ibv_devinfo cut after its device header judges nothing by itself.
func TestVerbsDevicesPastes(t *testing.T) {
	// siderolabs/docs issue 566: "CMD:i bv_devices" (the poster's typo),
	// the table, a note, then ibv_devinfo cut before its port section.
	const table = "    device                 node GUID\n    ------              ----------------\n" +
		"    mlx5_0              88e9a4ffffa746e6\n    mlx5_1              88e9a4ffff8dadde\n"
	const devinfoHead = "hca_id: mlx5_0\n        transport:                      InfiniBand (0)\n        fw_ver:                         20.29.1016\n" +
		"        node_guid:                      88e9:a4ff:ffa7:46e6\n        vendor_id:                      0x02c9\n"
	tests := []struct {
		name, text string
		kinds      []Kind
		want       []string
		exit       int
		summary    string
	}{
		{"listed, typo'd command", "CMD:i bv_devices\n---\n" + table + "\n# => Looks good\n",
			[]Kind{KindVerbsDevices}, nil, 0, "user space sees 2 RDMA devices (mlx5_0, mlx5_1)"},
		{"listed, then ibv_devinfo without ports", "CMD:i bv_devices\n---\n" + table + "\n# => Looks good\nCMD: ibv_devinfo -d mlx5_0\n---\n" + devinfoHead,
			[]Kind{KindVerbsDevices, KindDevinfo}, nil, 0, "user space sees 2 RDMA devices"},
		{"ibv_devinfo without ports alone is not judged", "$ ibv_devinfo -d mlx5_0\n" + devinfoHead,
			[]Kind{KindDevinfo}, nil, 3, ""},
		{"no device: the header alone", "$ ibv_devices\n    device                 node GUID\n    ------              ----------------\n$ lsmod | grep mlx\n",
			[]Kind{KindVerbsDevices}, []string{"port.missing/critical"}, 2, "no RDMA device listed"},
		{"cut after the header", "$ ibv_devices\n    device                 node GUID\n",
			[]Kind{KindVerbsDevices}, nil, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tt.text, Options{})
			var kinds []Kind
			var fs []finding.Finding
			sums := ""
			for _, s := range fr.Segments {
				if s.Kind != KindUnknown {
					kinds = append(kinds, s.Kind)
				}
				fs = append(fs, s.Findings...)
				sums += s.Summary + "\n"
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("kinds %v, want %v", kinds, tt.kinds)
			}
			if got := ids(fs); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			if !strings.Contains(sums, tt.summary) {
				t.Errorf("summaries %q, want %q", sums, tt.summary)
			}
			if got := Run([]Input{{Name: "p.txt", Text: tt.text}}, Options{}).ExitCode; got != tt.exit {
				t.Errorf("exit %d, want %d", got, tt.exit)
			}
		})
	}
}
