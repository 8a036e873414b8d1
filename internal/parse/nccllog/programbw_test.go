package nccllog

import (
	"strings"
	"testing"
)

// TestProgramBW: a program's own result block beside its NCCL log, as a
// ring benchmark over a third-party net plugin prints it
// (realworld-fresh44's meshplugin56 README row: "Message Size: 1 MB",
// "Bus Bandwidth: 0.01 GB/s"), and lines that only look alike.
func TestProgramBW(t *testing.T) {
	for _, tc := range []struct {
		line string
		gbps float64 // -1: not read
	}{
		{"Bus Bandwidth: 0.01 GB/s", 0.01},
		{"  busbw = 12.5 GB/s", 12.5},
		{"# Bus bandwidth: 850 MB/s", 0.85},
		{"Bus Bandwidth: 0.01 GB/s (ring)", -1},
		{"Bus Bandwidth: fast", -1},
		{"Bus Bandwidth: 10 Gb/s", -1},
		{"The bus bandwidth: 0.01 GB/s is what I see", -1},
		{"Avg bus bandwidth    : 8.62", -1},
	} {
		v, ok := programBusBW(tc.line)
		if ok != (tc.gbps >= 0) || ok && v != tc.gbps {
			t.Errorf("%q: %v %v, want %v", tc.line, v, ok, tc.gbps)
		}
	}
	for _, tc := range []struct {
		line string
		size int64 // -1: not read
	}{
		{"Message Size: 1 MB", 1 << 20},
		{"message size = 64 KiB", 64 << 10},
		{"Message Size: 8 bytes", 8},
		{"Message Size: large", -1},
		{"Message Size: 1 parsec", -1},
	} {
		v, ok := programMsgSize(tc.line)
		if ok != (tc.size >= 0) || ok && v != tc.size {
			t.Errorf("%q: %v %v, want %v", tc.line, v, ok, tc.size)
		}
	}
	in := ":21831:21831 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Mesh/0\n" +
		"\n--- GB10 RoCEv2 Ring Perf Result ---\n" +
		"Message Size: 1 MB\n" +
		"Avg Latency:  184.368 ms\n" +
		"Bus Bandwidth: 0.01 GB/s\n" +
		"------------------------------------\n" +
		"Bus Bandwidth: 3 GB/s\n"
	lg, err := Parse(strings.NewReader(in), "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.ProgramBW) != 2 || lg.ProgramBW[0].Line != 6 || lg.ProgramBW[0].GBps != 0.01 || lg.ProgramBW[0].Size != 1<<20 || lg.ProgramBW[1].Size != 1<<20 {
		t.Errorf("program bandwidths %+v", lg.ProgramBW)
	}
}
