package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// gpu.init_failed and gpu.gsp_timeout: one critical finding per GPU; the
// lines that name no GPU join the one the others name. The lines are from
// analyze testdata/realworld-fresh52 (a CMP 40HX the driver cannot
// initialise; a Hopper GPU whose GSP stopped answering).
func TestCheckGPUDown(t *testing.T) {
	for _, tt := range []struct {
		name  string
		check func(*Input) []finding.Finding
		log   []string
		want  string
	}{
		{"RmInitAdapter failed, in a loop", checkGPUInitFailed, []string{
			"[   21.091872] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:894)",
			"[   21.092238] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0",
			"[   21.238204] NVRM: osInitNvMapping: *** Cannot attach gpu",
			"[   21.238209] NVRM: RmInitAdapter: osInitNvMapping failed, bailing out of RmInitAdapter",
			"[   21.238218] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:894)",
		}, "gpu.init_failed critical 0000:01:00.0: the NVIDIA driver could not initialise GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:894); rm_init_adapter failed, device minor number 0; osInitNvMapping: *** Cannot attach gpu; RmInitAdapter: osInitNvMapping failed (5 messages in the kernel log); the GPU cannot be opened, nvidia-smi and CUDA do not see it"},
		{"GSP heartbeat and memory subsystem error", checkGSPTimeout, []string{
			"[   24.302465] NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 812751949 heartbeat 1899482 heartbeatWithOffsetMs 812745879 diff 6070 timeout 5200",
			"[   84.300480] NVRM: GPU6 kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error detected. kbusSendSysmembarSingle failed.",
			"[   84.300488] NVRM: GPU6 _kgspLogRpcTimeout: ********************************* GSP Timeout **********************************",
		}, "gpu.gsp_timeout critical : the GSP firmware of GPU6 (the driver's numbering) stopped answering the NVIDIA driver: GSP heartbeat timed out; memory subsystem error; GSP RPC timeout (3 messages in the kernel log); the GPU is hung until it is reset, and jobs on it fail or hang"},
		{"an NVRM line of another kind: none", checkGSPTimeout, []string{
			"[   14.650646] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  595.71.05  Release Build  (root@epyc)  Fri Jul  3 11:27:00 AM UTC 2026",
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range tt.check(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf(tt.log...)}) {
				got = append(got, f.ID+" "+string(f.Severity)+" "+f.Subject.PCI+": "+f.Summary)
			}
			if g := strings.Join(got, "\n"); g != tt.want {
				t.Errorf("got\n%s\nwant\n%s", g, tt.want)
			}
		})
	}
}
