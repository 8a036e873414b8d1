package nccllog

import (
	"fmt"
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

// TestSplicedRanks: two ranks writing one file without line buffering
// splice records mid-line, gluing the end of one record to the next
// record's host field. From github.com/1602615899/RADDet, nccl_debug.log
// (host ljm, pids 803563 and 803564); the glued host names the process of
// its pid whose host it ends with, and only a record cut from inside a
// line is read so.
func TestSplicedRanks(t *testing.T) {
	const (
		l1  = "ljm:803564:803564 [1] NCCL INFO cudaDriverVersion 12020"
		l8  = "ljm:803564:803604 [1] NCCL INFO comm 0x9497920 rank 1 nranks ljm:803563:803603 [0] NCCL INFO comm 0x8fe0500 rank 0 nranks 2 cudaDev 0ljm:803564:803604 [1] NCCL INFO Setting affinity for GPU 1 toljm:803563:80ljm:803564:803604 [1] NCCL INFO Trees [0] -1/-1/-1->1->0 [1] -1/-1/-1->1->0"
		l16 = "ljm:803564:803604 [1] NCCL INFO 2 coll channels, 0 nvls channels, 2 p2p channels, 2 p2p channels ljm:80356ljm:803564:803604 [1] NCCL INFO comm 0x9497920 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 3000 commId 0x245d75cdaf12704b - Init COMPLETE"
	)
	tests := []struct {
		name string
		in   string
		want []string // host:pid ranks
	}{
		{"RADDet: two processes", l1 + "\n" + l8 + "\n" + l16 + "\n", []string{"ljm:803564 [1]", "ljm:803563 [0]"}},
		{"line 8 alone: the glued hosts are the line's two processes", l8 + "\n", []string{"ljm:803564 []", "ljm:803563 [0]"}},
		{"a glued host before its process's own line is its own (nothing to match yet)",
			"ljm:803563:803603 [0] NCCL INFO comm 0x8fe0500 rank 0 nranks 2 cudaDev 0ljm:803564:803604 [1] NCCL INFO Setting affinity for GPU 1 to\n" + l1 + "\n",
			[]string{"ljm:803563 [0]", "0ljm:803564 []", "ljm:803564 []"}},
		{"a host at the start of a line is its own, whatever it ends with", l1 + "\ngpuljm:803564:803564 [0] NCCL INFO cudaDriverVersion 12020\n", []string{"ljm:803564 []", "gpuljm:803564 []"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tt.in), "nccl_debug.log")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range lg.Procs {
				got = append(got, fmt.Sprintf("%s:%d %v", p.Host, p.Pid, p.Ranks))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("processes %q, want %q", got, tt.want)
			}
		})
	}
}
