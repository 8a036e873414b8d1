package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestDuplicateGPUAndWatchdogCUDA: NCCL refusing a communicator whose ranks
// share a GPU (realworld-fresh20, github.com/magnate3/linux-riscv-dev
// nccl/gpu/README.md, NCCL 2.22.3, CRLF) and a rank that ProcessGroupNCCL's
// watchdog took down on a CUDA error (realworld-fresh20, BLOOM 176B
// chronicle, github.com/bigscience-workshop/bigscience
// train/tr11-176B-ml/chronicles.md) are critical, say where and what to
// do; out of memory is not called a GPU fault.
func TestDuplicateGPUAndWatchdogCUDA(t *testing.T) {
	const (
		dup = "ubuntu1583:1585 [0] init.cc:738 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1000\r\n\r\n" +
			"ubuntu1583:1586 [0] init.cc:738 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000\r\n" +
			"Failed, NCCL error one_device_per_thread.cu:17 'invalid usage (run with NCCL_DEBUG=WARN for details)'\r\n"
		bloom = "[default3]:terminate called after throwing an instance of 'c10::CUDAError'\n" +
			"[default3]:  what():  CUDA error: unknown error\n" +
			"[default3]:Exception raised from query at ../aten/src/ATen/cuda/CUDAEvent.h:95 (most recent call first):\n" +
			"[default3]:frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x42 (0x1518a06137d2 in /x/torch/lib/libc10.so)\n" +
			"[default3]:frame #1: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x11a (0x15190c6c29ea in /x/torch/lib/libtorch_cuda_cpp.so)\n"
	)
	for _, tt := range []struct {
		name, in   string
		want       []string
		says, nots []string
		remedy     string
	}{
		{"duplicate GPU, then the program's failed call", dup, []string{"nccl.call_failed/critical"},
			[]string{"rank 0 and rank 1 both chose the GPU at PCI 0000:01:00.0", "job cannot start", "program then stopped (line 4)"}, nil,
			"LOCAL_RANK"},
		{"duplicate GPU alone, named host", "node7:1585:1585 [0] init.cc:738 NCCL WARN Duplicate GPU detected : rank 2 and rank 5 both on CUDA device b3000\n",
			[]string{"nccl.call_failed/critical"}, []string{"rank 2 and rank 5", "0000:b3:00.0 on host node7"}, []string{"program then stopped"}, "--gpus-per-task"},
		{"BLOOM: CUDA error in the watchdog", bloom, []string{"nccl.call_failed/critical"},
			[]string{"[default3]", "died on a GPU fault", "'CUDA error: unknown error'", "Xid"}, []string{"rerun with NCCL_DEBUG"}, "NVRM: Xid"},
		{"PyTorch 2.x: out of memory in the watchdog is no GPU fault",
			"[rank4]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 4] Process group watchdog thread terminated with exception: CUDA error: out of memory\n",
			[]string{"nccl.call_failed/critical"}, []string{"rank 4 died", "ran out of GPU memory"}, []string{"GPU fault"}, "batch size"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tt.in), "p.log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			f := a.Findings[0]
			for _, s := range tt.says {
				if !strings.Contains(f.Summary, s) {
					t.Errorf("summary lacks %q: %s", s, f.Summary)
				}
			}
			for _, s := range tt.nots {
				if strings.Contains(f.Summary, s) {
					t.Errorf("summary has %q: %s", s, f.Summary)
				}
			}
			if !strings.Contains(strings.Join(f.Remedy, "\n"), tt.remedy) {
				t.Errorf("remedy lacks %q: %q", tt.remedy, f.Remedy)
			}
		})
	}
}
