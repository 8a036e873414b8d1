package nccllog

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitRecords covers NCCL records pasted on one line (line ends lost
// in a markdown quote) and lines that only look like several records.
func TestSplitRecords(t *testing.T) {
	// LlamaFactory issue 6111 (comment by xiazhi1, 2025-01-23): six
	// records on one markdown-quoted line.
	const llama = "> > [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0. [0] NCCL INFO NCCL_IB_HCA set to mlx5_0:1,mlx5_1:1 [0] NCCL INFO NET/IB : No device found. [0] NCCL INFO NET/Socket : Using [0]eth0:10.47.14.218<0> [0] NCCL INFO Using non-device net plugin version 0 [0] NCCL INFO Using network Socket"
	tests := []struct {
		name, line string
		want       []string
	}{
		{"quoted records run together", llama, []string{
			"> > [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0. ",
			"[0] NCCL INFO NCCL_IB_HCA set to mlx5_0:1,mlx5_1:1 ",
			"[0] NCCL INFO NET/IB : No device found. ",
			"[0] NCCL INFO NET/Socket : Using [0]eth0:10.47.14.218<0> ",
			"[0] NCCL INFO Using non-device net plugin version 0 ",
			"[0] NCCL INFO Using network Socket",
		}},
		{"host prefix and a WARN with its source position",
			"h1:93569:93569 [0] NCCL INFO Bootstrap : Using em1:10.193.84.3<0> h1:93569:93569 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
			[]string{"h1:93569:93569 [0] NCCL INFO Bootstrap : Using em1:10.193.84.3<0> ", "h1:93569:93569 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]"}},
		{"NCCL version is one record",
			"h1:1:1 [0] NCCL INFO NCCL version 2.8.3+cuda10.0",
			[]string{"h1:1:1 [0] NCCL INFO NCCL version 2.8.3+cuda10.0"}},
		{"NCCL INFO quoted inside a message without a device field",
			"h1:1:1 [0] NCCL INFO grep for 'NCCL INFO Using network' lines",
			[]string{"h1:1:1 [0] NCCL INFO grep for 'NCCL INFO Using network' lines"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitRecords(tc.line); !slices.Equal(got, tc.want) {
				t.Errorf("splitRecords:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	// The parser reads every record of the line, all at line 1.
	lg, err := Parse(strings.NewReader(llama), "q.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Procs) != 1 {
		t.Fatalf("%d processes, want 1", len(lg.Procs))
	}
	p := lg.Procs[0]
	if nw, line := p.EffectiveNetwork(); nw != "Socket" || line != 1 {
		t.Errorf("network %q at line %d, want Socket at 1", nw, line)
	}
	if p.IBNoDevice != 1 || p.IBDisableLine != 1 || p.IBDisable != 0 {
		t.Errorf("IBNoDevice %d, IBDisable %d at %d; want the no-device line and NCCL_IB_DISABLE=0 at line 1", p.IBNoDevice, p.IBDisable, p.IBDisableLine)
	}
	if got := p.Env["NCCL_IB_HCA"]; got != "mlx5_0:1,mlx5_1:1" {
		t.Errorf("NCCL_IB_HCA %q, want mlx5_0:1,mlx5_1:1", got)
	}
	if !slices.Equal(p.SocketIfs, []string{"eth0"}) {
		t.Errorf("socket interfaces %q, want eth0", p.SocketIfs)
	}
}
