package nccllog

import (
	"strings"
	"testing"
)

func TestFindInstance(t *testing.T) {
	for _, tc := range []struct {
		line, name, net string
	}{
		{"node.kubernetes.io/instance-type=p5.48xlarge", "p5.48xlarge", "EFA"},
		{"instance p4d.24xlarge in us-east-1", "p4d.24xlarge", "EFA"},
		{"p5en.48xlarge", "p5en.48xlarge", "EFA"},
		{"type: p6-b200.48xlarge", "p6-b200.48xlarge", "EFA"},
		{"machine-type: a3-highgpu-8g", "a3-highgpu-8g", "GPUDirect-TCPX "},
		{"--machine-type=a3-megagpu-8g", "a3-megagpu-8g", "GPUDirect-TCPXO"},
		{"a3-ultragpu-8g", "a3-ultragpu-8g", "GPUDirect RDMA"},
		{"vm size Standard_ND96isr_H100_v5", "Standard_ND96isr_H100_v5", "InfiniBand"},
		{"Standard_ND96asr_v4", "Standard_ND96asr_v4", "InfiniBand"},
		{"Standard_ND96amsr_A100_v4,", "Standard_ND96amsr_A100_v4", "InfiniBand"},
		// not whole tokens, or types without the accelerated network
		{"xp5.48xlarge", "", ""},
		{"p5.48xlargex", "", ""},
		{"g5.48xlarge", "", ""},
		{"a3-highgpu-4g", "", ""},
		{"a2-highgpu-8g", "", ""},
		{"NCCL INFO Channel 00/16 : 0 7 6 5 4 3 2 1 8 15", "", ""},
	} {
		name, net, ok := FindInstance(tc.line)
		if ok != (tc.name != "") || name != tc.name || !strings.HasPrefix(net, strings.TrimSpace(tc.net)) || tc.net == "GPUDirect-TCPX " && strings.HasPrefix(net, "GPUDirect-TCPXO") {
			t.Errorf("FindInstance(%q) = %q, %q, %v; want %q, %q", tc.line, name, net, ok, tc.name, tc.net)
		}
	}
}

func TestHostInstance(t *testing.T) {
	for _, tc := range []struct{ host, want string }{
		{"ini-worker-ray-worker-p5", "p5"},
		{"p4d-queue-st-p4d-24xlarge-1", "p4d"},
		{"train_p5en_03", "p5en"},
		{"ip-10-0-1-2.ec2.internal", ""},
		{"gpu-ap5-node", ""},
		{"p5x-node", ""},
		{"hp5", ""},
		{"", ""},
	} {
		if got, _ := HostInstance(tc.host); got != tc.want {
			t.Errorf("HostInstance(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}

func TestParseInstanceLine(t *testing.T) {
	in := "Node: node-7 instance-type=p5.48xlarge\nnode-7:12:12 [0] NCCL INFO Using network Socket\n"
	lg, err := Parse(strings.NewReader(in), "x.log")
	if err != nil {
		t.Fatal(err)
	}
	if lg.Instance == nil || lg.Instance.Name != "p5.48xlarge" || lg.Instance.Line != 1 || lg.Instance.Source != "x.log" {
		t.Fatalf("Instance = %+v", lg.Instance)
	}
}

// FuzzFindInstance: any line or host name reads without a panic, and a
// match is a substring of its input with a network.
func FuzzFindInstance(f *testing.F) {
	for _, s := range []string{"ini-worker-ray-worker-p5", "instance-type=p5.48xlarge", "a3-highgpu-8g", "Standard_ND96isr_H100_v5", "p6-b200.48xlarge", "gpu-ap5-node", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if name, net, ok := FindInstance(s); ok && (!strings.Contains(s, name) || net == "") {
			t.Fatalf("FindInstance(%q) = %q, %q", s, name, net)
		}
		if name, net := HostInstance(s); name != "" && net == "" {
			t.Fatalf("HostInstance(%q) = %q without a network", s, name)
		}
	})
}
