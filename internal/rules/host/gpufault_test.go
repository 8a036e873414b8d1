package host

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// gpu.page_fault and the refused peer-memory hooks (nccl.peermem_missing)
// on the lines of vllm-project/vllm#29076 (analyze
// testdata/realworld-fresh40, dmesg-vllm29076-amdgpu-page-fault-peermem-symbol.txt)
// and an older kernel's one-line fault.
func TestGPUFaultAndPeerMemSymbol(t *testing.T) {
	fault := []string{
		"[353418.322500] amdgpu 0000:63:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:56 vmid:8 pasid:32794)",
		"[353418.322553] amdgpu 0000:63:00.0: amdgpu:  Process ray::RayWorkerW pid 1138406 thread ray::RayWorkerW pid 1138406",
		"[353418.322601] amdgpu 0000:63:00.0: amdgpu:   in page starting at address 0x000079e2cc8d7000 from client 10",
		"[353418.322634] amdgpu 0000:63:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x008C1071",
		"[353418.322661] amdgpu 0000:63:00.0: amdgpu:     Faulty UTCL2 client ID: TCP (0x8)",
	}
	peer := []string{
		"[353265.120797] failing symbol_get of non-GPLONLY symbol ib_unregister_peer_memory_client.",
		"[353265.126458] failing symbol_get of non-GPLONLY symbol ib_register_peer_memory_client.",
	}
	for _, tt := range []struct {
		name    string
		lines   []string
		want    []string
		summary []string // a fragment of each finding's summary
	}{
		{"fault and its process", fault, []string{"gpu.page_fault/warning"},
			[]string{"GPU 0000:63:00.0 (amdgpu): 1 GPU page fault in the kernel log (gfxhub): a GPU kernel of ray::RayWorkerW pid 1138406 accessed memory"}},
		{"older one-line fault", []string{"[  9.0] amdgpu 0000:03:00.0: amdgpu: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:8 pasid:32772, for process python3 pid 4242 thread python3 pid 4242)"},
			[]string{"gpu.page_fault/warning"}, []string{"(gfxhub0): a GPU kernel of python3 pid 4242"}},
		{"peer-memory hooks refused beside an amdgpu fault", append(slices.Clone(peer), fault...), []string{"gpu.page_fault/warning", "nccl.peermem_missing/warning"},
			[]string{"1 GPU page fault", "The kernel refused amdgpu's peer-memory client, the ROCm analogue of nvidia-peermem, (2 lines in the kernel log: failing symbol_get of ib_register_peer_memory_client, ib_unregister_peer_memory_client)"}},
		{"peer-memory hooks refused alone", peer, []string{"nccl.peermem_missing/warning"}, []string{"a GPU driver's peer-memory client, one that looks the API up at run time,"}},
		{"symbol_get of another symbol", []string{"[  1.0] failing symbol_get of non-GPLONLY symbol some_other_symbol."}, nil, nil},
		{"fault detail lines alone", fault[2:], nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckPastedKernelLog(logOf(tt.lines...), time.Time{}, 0)
			var got []string
			for _, f := range fs {
				if f.ID == "kmsg.driver_error" {
					continue
				}
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("findings = %v, want %v", ids(fs), tt.want)
			}
			i := 0
			for _, f := range fs {
				if f.ID == "kmsg.driver_error" {
					continue
				}
				if !strings.Contains(f.Summary, tt.summary[i]) {
					t.Errorf("summary %q\nwant it to hold %q", f.Summary, tt.summary[i])
				}
				i++
			}
		})
	}
}
