package proc

import (
	"errors"
	"strings"
	"testing"
)

// TestParseUlimit: the locked-memory row of `ulimit -a` in bash
// (openucx/ucx#8229: "max locked memory       (kbytes, -l) 64" above a
// failing ibv_create_cq), zsh (macOS and Linux pastes: "-l:
// locked-in-memory size (kbytes)  64") and dash, and /proc/<pid>/limits,
// in bytes; ulimit -a shows the soft limit only.
func TestParseUlimit(t *testing.T) {
	tests := []struct {
		name, in  string
		soft      uint64
		unlimited bool
		hardKnown bool
		line      int
		err       bool
	}{
		{"bash", "ulimit -a\ncore file size          (blocks, -c) 0\nmax locked memory       (kbytes, -l) 64\nopen files                      (-n) 1024\n", 64 << 10, false, false, 3, false},
		{"bash 5.1", "real-time non-blocking time  (microseconds, -R) unlimited\nmax locked memory           (kbytes, -l) 8192\n", 8 << 20, false, false, 2, false},
		{"bash unlimited", "max locked memory       (kbytes, -l) unlimited\n", 0, true, false, 1, false},
		{"zsh", "-s: stack size (kbytes)             8192\n-l: locked-in-memory size (kbytes)  64\n", 64 << 10, false, false, 2, false},
		{"dash", "memory(kbytes)       unlimited\nlocked memory(kbytes) 8192\n", 8 << 20, false, false, 2, false},
		{"proc limits", "Limit                     Soft Limit           Hard Limit           Units\nMax locked memory         65536                65536                bytes\n", 65536, false, true, 2, false},
		{"bad value", "max locked memory       (kbytes, -l) lots\n", 0, false, false, 1, true},
		{"no memlock row", "open files                      (-n) 1024\n", 0, false, false, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, line, err := ParseUlimit(strings.NewReader(tt.in), "u.txt")
			if tt.err {
				if err == nil || !errors.Is(err, ErrMalformed) || line != tt.line {
					t.Errorf("want an error at line %d, got %v, %d", tt.line, err, line)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Soft != tt.soft || l.SoftUnlimited != tt.unlimited || l.HardUnknown == tt.hardKnown || line != tt.line {
				t.Errorf("limit %+v line %d", l, line)
			}
		})
	}
}

// TestUlimitLine: the rows of `ulimit -a` (bash, zsh, dash) and
// /proc/<pid>/limits are one kind of line; kernel, NCCL and prose lines
// ending in a number are not.
func TestUlimitLine(t *testing.T) {
	yes := []string{
		"core file size          (blocks, -c) 0",
		"scheduling priority             (-e) 0",
		"pipe size            (512 bytes, -p) 8",
		"virtual memory          (kbytes, -v) unlimited",
		"-n: file descriptors                256",
		"-t: cpu time (seconds)              unlimited",
		"time(seconds)        unlimited",
		"locked memory(kbytes) 64",
		"Max open files            1024                 4096                 files",
		"Max nice priority         0                    0",
	}
	no := []string{
		"",
		"[  12.345678] mlx5_core 0000:17:00.0: firmware version: 28.39.1002",
		"node1:1234:1250 [0] NCCL INFO comm 0x55 rank 0 nranks 16",
		"We tried with 4 nodes (16 GPUs) and got 64",
		"Max bandwidth was 100",
		"process              96364",
		"- a: 5",
	}
	for _, l := range yes {
		if !UlimitLine(l) {
			t.Errorf("%q not a ulimit row", l)
		}
	}
	for _, l := range no {
		if UlimitLine(l) {
			t.Errorf("%q taken for a ulimit row", l)
		}
	}
	if !IsLimitsHeader("Limit                     Soft Limit           Hard Limit           Units") || IsLimitsHeader("Limit 5") {
		t.Error("limits header")
	}
}
