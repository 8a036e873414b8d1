package nccllog

import (
	"strings"
	"testing"
)

// TestLegacyInfo: INFO lines of NCCL 2.0-2.2 (no "NCCL" before the
// level) are known by NCCL's own wordings, and the device list of that
// release's IB transport ("NET/IB: [0] mlx4_0:1/IB") is read
// (realworld-fresh44's horovod489 README row: a healthy NCCL 2 init on
// mlx4 InfiniBand, eight Horovod ranks of one host).
func TestLegacyInfo(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"nmyjs-202-75:24500:24664 [1] INFO NET/IB: [0] mlx4_0:1/IB", true},
		{"nmyjs-202-75:24502:24684 [3] INFO Using internal Network IB", true},
		{"nmyjs-202-75:24503:24695 [4] INFO NET : Using interface eth0:10.141.202.75<0>", false},
		{"nmyjs-202-75:24499:24701 [0] INFO CUDA Dev 0, IB Ports : mlx4_0/1(PIX)", false},
		{"nmyjs-202-75:24502:24684 [3] INFO Using NCCL Low-latency algorithm for sizes below 16384", true},
		{"worker [0] INFO Starting epoch 3", false},
		{"2024-01-01 12:00:00 INFO NET/IB setup done", false},
		{"INFO NET/IB: [0] mlx4_0:1/IB", false},
	} {
		if got := LegacyInfo(tc.line); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.line, got, tc.want)
		}
	}
	in := "nmyjs-202-75:24500:24664 [1] INFO NET/IB: [0] mlx4_0:1/IB\n" +
		"nmyjs-202-75:24502:24684 [3] INFO Using internal Network IB\n" +
		"nmyjs-202-75:24503:24695 [4] INFO NET/IB: [0] mlx4_0:1/IB [1] mlx4_1:2/RoCE\n"
	if !Detect(in) {
		t.Error("not detected")
	}
	lg, err := Parse(strings.NewReader(in), "t")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range lg.Procs {
		for _, d := range p.IBDevices {
			got = append(got, p.Name()+" "+d.Name+":"+string(rune('0'+d.Port))+"/"+d.LinkLayer)
		}
	}
	if want := "nmyjs-202-75:24500 mlx4_0:1/IB|nmyjs-202-75:24503 mlx4_0:1/IB|nmyjs-202-75:24503 mlx4_1:2/RoCE"; strings.Join(got, "|") != want {
		t.Errorf("devices %q, want %q", strings.Join(got, "|"), want)
	}
}
