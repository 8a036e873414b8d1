package kmsg

import "testing"

func TestDetectLine(t *testing.T) {
	for line, want := range map[string]bool{
		"[   12.345678] mlx5_core 0000:17:00.0: mlx5_port_module_event:1131:(pid 0): Port module event: module 0, Cable unplugged": true,
		"[Tue Mar  5 10:11:12 2024] NVRM: Xid (PCI:0000:18:00): 79, pid=0, GPU has fallen off the bus.":                            true,
		"Mar 05 10:11:12 gpu017 kernel: mlx5_core 0000:17:00.0 ens1f0np0: Link down":                                               true,
		"6,1234,5678901,-;mlx5_core 0000:17:00.0: Port module event":                                                               true,
		"CA 'mlx5_0'":       false,
		"        Rate: 200": false,
		"gpu1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>": false,
		"": false,
	} {
		if got := DetectLine(line); got != want {
			t.Errorf("DetectLine(%q) = %v, want %v", line, got, want)
		}
	}
}
