package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestSocketFallbackOnCloudInstance: a multi-node job on NCCL's socket
// transport is critical when the log names a cloud GPU instance whose
// accelerated network NCCL should use (EFA on AWS p4d/p5, GPUDirect-TCPX
// on GCP a3-highgpu-8g, InfiniBand on Azure ND96 v4/v5), a warning
// without such a name, and a note on one node. The Ray line is from
// awsome-distributed-training#386 (EKS p5 node group, NET/Socket),
// without the Ray worker prefix analyze strips.
func TestSocketFallbackOnCloudInstance(t *testing.T) {
	const ray = "ini-worker-ray-worker-p5:944:3818 [0] NCCL INFO Channel 13/0 : 0[0] -> 8[0] [receive] via NET/Socket/0\n"
	const noDev = "NCCL INFO NET/IB : No device found.\nNCCL INFO NET/Socket : Using [0]eth0:10.140.0.7<0>\nNCCL INFO Using network Socket\n"
	for _, tc := range []struct {
		name, in string
		want     []string
		has      []string
	}{
		{"EKS p5 host name", ray, []string{"nccl.socket_fallback/critical"},
			[]string{"names p5, which has EFA", "aws-ofi-nccl", "host ini-worker-ray-worker-p5 (instance family p5)"}},
		{"a3-highgpu-8g named in the paste", "machine type a3-highgpu-8g, 3 nodes\n" + noDev, []string{"nccl.socket_fallback/critical"},
			[]string{"a3-highgpu-8g", "GPUDirect-TCPX", "machine type a3-highgpu-8g, 3 nodes"}},
		{"Azure ND H100 v5", "vmSize: Standard_ND96isr_H100_v5\n" + noDev, []string{"nccl.socket_fallback/critical"},
			[]string{"Standard_ND96isr_H100_v5", "InfiniBand"}},
		{"no instance named stays a warning", noDev, []string{"nccl.socket_fallback/warning"},
			[]string{"fine only for a cluster without RDMA"}},
		{"p5 inside a word does not count", strings.ReplaceAll(ray, "worker-p5", "workerp5"), []string{"nccl.socket_fallback/warning"},
			[]string{"fine only for a cluster without RDMA"}},
		{"a3-highgpu-4g has no TCPX NICs", "machine type a3-highgpu-4g\n" + noDev, []string{"nccl.socket_fallback/warning"}, nil},
		{"one node on p5 stays a note",
			"node-p5:1:1 [0] NCCL INFO NET/IB : No device found.\nnode-p5:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.0.5<0>\nnode-p5:1:1 [0] NCCL INFO Using network Socket\nnode-p5:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0\n",
			nil, []string{"one node"}},
		{"no device, network not logged, on p5.48xlarge", "instance-type=p5.48xlarge\nh1:1:1 [0] NCCL INFO NET/IB : No device found.\n",
			[]string{"nccl.socket_fallback/critical"}, []string{"p5.48xlarge, which has EFA"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tc.in), "log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tc.want, ids(a.Findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			text := strings.Join(a.Notes, "\n")
			if len(a.Findings) > 0 {
				text = a.Findings[0].Summary
				for _, e := range a.Findings[0].Evidence {
					text += "\n" + e.Value
				}
			}
			for _, h := range tc.has {
				if !strings.Contains(text, h) {
					t.Errorf("lacks %q:\n%s", h, text)
				}
			}
		})
	}
}
