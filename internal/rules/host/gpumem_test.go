package host

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
)

func TestCheckPastedGPUMemory(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"pending remap", "    Remapped Rows\n        Correctable Error : 0\n        Uncorrectable Error : 4\n        Pending : Yes\n", []string{"gpu.row_remap/warning pending"}},
		{"remapping failure", "GPU 00000000:07:00.0\n    Remapped Rows\n        Uncorrectable Error : 8\n        Pending : Yes\n        Remapping Failure Occurred : Yes\n", []string{"gpu.row_remap/critical failed"}},
		{"applied remaps", "    Remapped Rows\n        Uncorrectable Error : 2\n        Pending : No\n        Remapping Failure Occurred : No\n", []string{"gpu.row_remap/info remapped"}},
		{"healthy", "    Remapped Rows\n        Correctable Error : 0\n        Uncorrectable Error : 0\n        Pending : No\n        Remapping Failure Occurred : No\n", nil},
		// Azure/azhpc-images#506 (analyze testdata/realworld-fresh40,
		// nvsmi-q-azhpcimages506-fabric-insufficient-resources.txt).
		{"fabric registration failed", "Fabric\n    State                             : Completed\n    Status                            : Insufficient Resources\n    CliqueId                          : 0\n    ClusterUUID                       : 00000000-0000-0000-0000-000000000000\n",
			[]string{"gpu.nvlink_fabric/critical status \"Insufficient Resources\" (CliqueId 0 and a zero ClusterUUID"}},
		// The same block with its State line lost: the status alone says
		// the registration ended without the GPU.
		{"fabric status without its state", "Fabric\n    Status                            : Insufficient Resources\n    CliqueId                          : 0\n",
			[]string{"gpu.nvlink_fabric/critical status \"Insufficient Resources\""}},
		{"fabric registered", "GPU 00000000:18:00.0\n    Fabric\n        State                             : Completed\n        Status                            : Success\n        CliqueId                          : 32766\n        ClusterUUID                       : 9a5f1e2c-0d4b-4c8e-a1f0-3b2d6e7c8f90\n", nil},
		{"fabric in progress", "GPU 00000000:18:00.0\n    Fabric\n        State                             : In Progress\n        Status                            : N/A\n", []string{"gpu.nvlink_fabric/warning still registering"}},
		{"fabric not started", "GPU 00000000:18:00.0\n    Fabric\n        State                             : Not Started\n        Status                            : N/A\n", []string{"gpu.nvlink_fabric/critical has not started"}},
		{"no fabric on this system", "GPU 00000000:18:00.0\n    Product Name : NVIDIA L40S\n    Fabric\n        State                             : N/A\n        Status                            : N/A\n", nil},
		{"pages pending retirement", "    Retired Pages\n        Single Bit ECC : 0\n        Double Bit ECC : 1\n        Pending Page Blacklist : Yes\n", []string{"gpu.row_remap/warning pending retirement"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, err := nvsmi.ParseQuery(strings.NewReader(tt.in), "q.txt")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range CheckPastedGPUMemory(q, "q.txt") {
				got = append(got, fmt.Sprintf("%s/%s", f.ID, f.Severity))
				if len(f.Evidence) != 1 || !strings.HasPrefix(f.Evidence[0].Source, "q.txt:") {
					t.Errorf("evidence %+v", f.Evidence)
				}
				if !strings.Contains(f.Summary, strings.SplitN(tt.want[len(got)-1], " ", 2)[1]) {
					t.Errorf("summary %q", f.Summary)
				}
			}
			var ids []string
			for _, w := range tt.want {
				ids = append(ids, strings.SplitN(w, " ", 2)[0])
			}
			if !slices.Equal(got, ids) {
				t.Errorf("got %q, want %q", got, ids)
			}
		})
	}
	// The real samples: one pending remap each.
	for _, file := range []string{"q-a100-pending-mlengineering.txt", "q-row-remapper-pending-dbe.txt"} {
		f, err := os.Open("../../parse/nvsmi/testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		q, err := nvsmi.ParseQuery(f, file)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if fs := CheckPastedGPUMemory(q, file); len(fs) != 1 || fs[0].Severity != "warning" || fs[0].Subject.GPU == "" {
			t.Errorf("%s: %+v", file, fs)
		}
	}
}
