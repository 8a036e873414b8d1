package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// kmsg.segfault: a process killed inside a communication library is a
// warning naming the process and the library; elsewhere info. The first
// line is gpud's testdata dmesg.decode.iso.log (testdata/realworld-fresh8).
func TestCheckCrashes(t *testing.T) {
	nccl := "kern  :warn  : 2025-01-21T04:41:44,285060+00:00 pt_main_thread[2536443]: segfault at 7f797fe00000 ip 00007f7c7ac69996 sp 00007f7c12fd7c30 error 4 in libnccl.so.2[7f7c7ac00000+d3d3000]"
	for _, tt := range []struct {
		name string
		log  []string
		want []string // severity: summary fragment
	}{
		{"NCCL, twice", []string{nccl, strings.Replace(nccl, "04:41:44", "04:42:44", 1)},
			[]string{"warning: process pt_main_thread (pid 2536443) was killed by a memory access fault in libnccl.so.2, 2 times in the kernel log: the job on this node crashed inside NCCL"}},
		{"verbs provider", []string{"[ 10.0] python3[4123]: segfault at 0 ip 00007f0c3a2b1c40 sp 00007ffd5a1e2f10 error 4 in libmlx5.so.1.24.44.0[7f0c3a2a0000+3f000] likely on CPU 3 (core 3, socket 0)"},
			[]string{"warning: process python3 (pid 4123) was killed by a memory access fault in libmlx5.so.1.24.44.0, 1 time in the kernel log: the job on this node crashed inside the verbs stack"}},
		{"UCX, general protection", []string{"[ 10.0] traps: ucx_perftest[99] general protection fault ip:7f0c3a2b1c40 sp:7ffd5a1e2f10 error:0 in libuct_ib.so.0.0.0[7f0c3a290000+16000]"},
			[]string{"warning: process ucx_perftest (pid 99) was killed by a memory access fault in libuct_ib.so.0.0.0, 1 time in the kernel log: the job on this node crashed inside UCX"}},
		{"libc: info", []string{"[ 10.0] gnome-shell[2211]: segfault at 8 ip 00007f5e1c2a1234 sp 00007ffc2b1c3d40 error 4 in libc.so.6[7f5e1c200000+195000]"},
			[]string{"info: process gnome-shell (pid 2211) was killed by a memory access fault in libc.so.6, 1 time in the kernel log"}},
		{"no file named", []string{"[ 10.0] a.out[77]: segfault at 10 ip 0000000000401136 sp 00007ffc1b2d4e60 error 6"},
			[]string{"info: process a.out (pid 77) was killed by a memory access fault at an address in no file, 1 time in the kernel log"}},
		{"a library whose name only starts alike", []string{"[ 10.0] x[1]: segfault at 8 ip 0 sp 0 error 4 in libucsi.so[7f5e1c200000+195000]"},
			[]string{"info: process x (pid 1) was killed by a memory access fault in libucsi.so, 1 time in the kernel log"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range checkCrashes(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf(tt.log...)}) {
				if f.ID != "kmsg.segfault" {
					t.Errorf("ID %s", f.ID)
				}
				got = append(got, string(f.Severity)+": "+f.Summary)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// host.memory_error: an EDAC UE is critical, CEs info, per DIMM. The UE
// line is testdata/realworld-fresh9/dmesg-lwa117-edac-ue-apei-pcie-nvme.txt.
func TestCheckMemory(t *testing.T) {
	ue := "[11189.970968] EDAC MC3: 1 UE memory read error on CPU_SrcID#1_MC#1_Chan#2_DIMM#0 (channel:2 slot:0 page:0xb757589 offset:0x140 grain:32 -  OVERFLOW err_code:0101:0092 socket:1 imc:1 rank:0 bg:3 ba:0 row:1a1e8 col:180)"
	ce := "[11190.000000] EDAC MC0: 3 CE memory read error on CPU_SrcID#0_MC#0_Chan#0_DIMM#0 (channel:0 slot:0 page:0x1 offset:0x0 grain:32 syndrome:0x0)"
	for _, tt := range []struct {
		name string
		log  []string
		want []finding.Severity
		sum  string
	}{
		{"one UE", []string{ue, "[11219.196715] EDAC skx MC3: HANDLING MCE MEMORY ERROR"}, []finding.Severity{finding.Critical}, "1 uncorrected memory error on CPU_SrcID#1_MC#1_Chan#2_DIMM#0"},
		{"CEs summed", []string{ce, ce}, []finding.Severity{finding.Info}, "6 corrected memory errors on CPU_SrcID#0_MC#0_Chan#0_DIMM#0"},
		{"both", []string{ce, ue}, []finding.Severity{finding.Info, finding.Critical}, "uncorrected"},
		{"no count, no finding", []string{"[1.0] EDAC MC0: Giving out device to module skx_edac controller Skylake Socket#0 IMC#0: DEV 0000:3a:0a.0 (INTERRUPT)"}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := checkMemory(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf(tt.log...)})
			var sev []finding.Severity
			all := ""
			for _, f := range fs {
				sev = append(sev, f.Severity)
				all += f.Summary + "\n"
				if f.ID != "host.memory_error" {
					t.Errorf("ID %s", f.ID)
				}
			}
			if len(sev) != len(tt.want) || (len(sev) > 0 && !strings.Contains(all, tt.sum)) {
				t.Fatalf("got %v %q, want %v with %q", sev, all, tt.want, tt.sum)
			}
			for i := range sev {
				if sev[i] != tt.want[i] {
					t.Errorf("severity %d = %s, want %s", i, sev[i], tt.want[i])
				}
			}
		})
	}
}
