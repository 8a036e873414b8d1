package nccllog

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The real lines below come from two pastes of the realworld-fresh20
// collection: github.com/magnate3/linux-riscv-dev nccl/gpu/README.md
// (NCCL 2.22.3, CRLF) and github.com/bigscience-workshop/bigscience
// train/tr11-176B-ml/chronicles.md (2022-03-21).
const (
	dupWarn0  = "ubuntu1583:1585 [0] init.cc:738 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1000"
	dupWarn1  = "ubuntu1583:1586 [0] init.cc:738 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000"
	exFailed  = "Failed, NCCL error one_device_per_thread.cu:17 'invalid usage (run with NCCL_DEBUG=WARN for details)'"
	bloomCUDA = "[default3]:terminate called after throwing an instance of 'c10::CUDAError'\n" +
		"[default3]:  what():  CUDA error: unknown error\n" +
		"[default3]:Exception raised from query at ../aten/src/ATen/cuda/CUDAEvent.h:95 (most recent call first):\n" +
		"[default3]:frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x42 (0x1518a06137d2 in /gpfswork/rech/six/commun/conda/tr11-176B-ml/lib/python3.8/site-packages/torch/lib/libc10.so)\n" +
		"[default3]:frame #1: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x11a (0x15190c6c29ea in /gpfswork/rech/six/commun/conda/tr11-176B-ml/lib/python3.8/site-packages/torch/lib/libtorch_cuda_cpp.so)\n" +
		"[default3]:frame #2: c10d::ProcessGroupNCCL::WorkNCCL::isCompleted() + 0x50 (0x15190c6c4fd0 in /gpfswork/rech/six/commun/conda/tr11-176B-ml/lib/python3.8/site-packages/torch/lib/libtorch_cuda_cpp.so)\n" +
		"[default3]:frame #3: c10d::ProcessGroupNCCL::workCleanupLoop() + 0x145 (0x15190c6c6265 in /gpfswork/rech/six/commun/conda/tr11-176B-ml/lib/python3.8/site-packages/torch/lib/libtorch_cuda_cpp.so)\n"
)

// TestFailedCalls: the reports of a failed NCCL or CUDA call that programs
// print besides NCCL's own lines are read as failed-call events, and a
// CUDA error only when ProcessGroupNCCL raised it.
func TestFailedCalls(t *testing.T) {
	type ev struct {
		Kind      EventKind
		Line      int
		Call, Err string
		Rank      int
		Peer, Bus string
		Watchdog  bool
		Tag       string
	}
	for _, tc := range []struct {
		name, in string
		want     []ev
	}{
		{"NCCL 2.22 duplicate GPU, then the examples' NCCLCHECK", dupWarn0 + "\n\n" + dupWarn1 + "\n" + exFailed + "\n" + exFailed + "\n", []ev{
			{Kind: EventDuplicateGPU, Line: 1, Err: "invalid usage", Rank: 0, Peer: "1", Bus: "0000:01:00.0"},
			{Kind: EventDuplicateGPU, Line: 3, Err: "invalid usage", Rank: 1, Peer: "0", Bus: "0000:01:00.0"},
			{Kind: EventFailed, Line: 4, Call: "NCCL", Err: "invalid usage (run with NCCL_DEBUG=WARN for details)", Rank: -1},
			{Kind: EventFailed, Line: 5, Call: "NCCL", Err: "invalid usage (run with NCCL_DEBUG=WARN for details)", Rank: -1},
		}},
		{"older NCCL prints the busId with %x; a full PCI address", "[1] NCCL WARN Duplicate GPU detected : rank 3 and rank 2 both on CUDA device 1b000\n", []ev{
			{Kind: EventDuplicateGPU, Line: 1, Err: "invalid usage", Rank: 3, Peer: "2", Bus: "0000:1b:00.0"},
		}},
		{"the examples' CUDACHECK, after an mpirun tag", "[1,0]<stdout>:Failed: Cuda error allreduce.cu:41 'out of memory'\n", []ev{
			{Kind: EventFailed, Line: 1, Call: "CUDA", Err: "out of memory", Rank: -1},
		}},
		{"Failed without the macro's shape is not a failure", "Failed, NCCL error here\nFailed: Cuda error x.cu:1 unquoted\n[0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n", nil},
		{"PyTorch 1.8 NCCL error in:", "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1616554793803/work/torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8\n", []ev{
			{Kind: EventFailed, Line: 1, Call: "NCCL", Err: "unhandled system error", Rank: -1},
		}},
		{"BLOOM: c10::CUDAError thrown in workCleanupLoop", bloomCUDA, []ev{
			{Kind: EventFailed, Line: 2, Call: "CUDA", Err: "unknown error", Rank: -1, Watchdog: true, Tag: "default3"},
		}},
		{"PyTorch 2.x watchdog: the line names ProcessGroupNCCL",
			"[rank7]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 7] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n", []ev{
				{Kind: EventFailed, Line: 1, Call: "CUDA", Err: "an illegal memory access was encountered", Rank: 7, Watchdog: true},
			}},
		{"a CUDA error with no ProcessGroupNCCL frame after it is not NCCL's",
			"[0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nRuntimeError: CUDA error: out of memory\nframe #0: c10::Error::Error\n```\nframe #1: c10d::ProcessGroupNCCL::allreduce\n", nil},
		{"prose that names a CUDA error is none", "[0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nwe saw CUDA error: unknown error again\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, crlf := range []bool{false, true} {
				in := tc.in
				if crlf {
					in = strings.ReplaceAll(in, "\n", "\r\n")
				}
				lg, err := Parse(strings.NewReader(in), "f")
				if err != nil && tc.want != nil {
					t.Fatal(err)
				}
				var got []ev
				if lg != nil {
					for _, e := range lg.Events {
						got = append(got, ev{e.Kind, e.Line, e.Call, e.Error, e.Rank, e.Peer, e.BusID, e.Watchdog, e.Tag})
					}
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("crlf %v: events\n got %+v\nwant %+v", crlf, got, tc.want)
				}
			}
		})
	}
}

// TestCRLFReadsAsLF: a CRLF log handed to Line with its CR left on (a
// reader that splits at LF only) reads exactly as its LF twin, for every
// log of testdata and the real lines above.
func TestCRLFReadsAsLF(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.log"))
	ins := []string{dupWarn0 + "\n\n" + dupWarn1 + "\n" + exFailed + "\n", bloomCUDA}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, string(b))
	}
	if len(ins) < 5 {
		t.Fatalf("only %d inputs", len(ins))
	}
	read := func(in, end string) (*Log, error) {
		p := NewParser("f", false)
		for i, l := range strings.Split(strings.TrimSuffix(in, "\n"), "\n") {
			p.Line(i+1, l+end)
		}
		return p.Log()
	}
	for i, in := range ins {
		in = strings.ReplaceAll(in, "\r\n", "\n")
		lf, lerr := read(in, "")
		crlf, cerr := read(in, "\r")
		if (lerr == nil) != (cerr == nil) || !reflect.DeepEqual(lf, crlf) {
			t.Errorf("input %d: CRLF reads differently from LF (errors %v, %v)", i, lerr, cerr)
		}
		if !Detect(strings.ReplaceAll(in, "\n", "\r\n")) && Detect(in) {
			t.Errorf("input %d: detected as LF, not as CRLF", i)
		}
	}
}

func TestBusIDString(t *testing.T) {
	for id, want := range map[int64]string{0x1000: "0000:01:00.0", 0x1b000: "0000:1b:00.0", 0xb3000: "0000:b3:00.0", 0x141001: "0001:41:00.1"} {
		if got := busIDString(id); got != want {
			t.Errorf("%#x: %s, want %s", id, got, want)
		}
	}
}

// TestTCPXSlow: the GPUDirect-TCPX plugin's slowness report
// (google/nccl-plugin-gpudirecttcpx src/net_tcpx.cc; the lines of its
// issue #1) is a timeout event with Call TCPXSlowCall, the NIC's
// interface and the seconds waited; other wordings are not.
func TestTCPXSlow(t *testing.T) {
	for _, tc := range []struct {
		msg, hca, peer string
		secs           int64
		ok             bool
	}{
		{"0xadca8062b70:0xadca805d0f0, nic 0, enp12s0, 172.16.0.11<39187><-172.16.0.95<46723> rx rx ctrl timeout cnt 7331502, nanos 10000000585", "enp12s0", "172.16.0.11<39187><-172.16.0.95<46723> rx", 10, true},
		{"0x1:0x2, nic 3, eth4, 10.0.0.1<1><-10.0.0.2<2> tx tx ctrl timeout cnt 12, nanos 25000000000 ", "eth4", "10.0.0.1<1><-10.0.0.2<2> tx", 25, true},
		{"ctrl timeout cnt 5, nanos 100", "", "", 0, false},
		{"NET/Socket : peer timed out", "", "", 0, false},
	} {
		e, ok := tcpxSlow(tc.msg)
		if ok != tc.ok || e.HCA != tc.hca || e.Peer != tc.peer || e.StuckS != tc.secs || ok && (e.Kind != EventTimeout || e.Call != TCPXSlowCall) {
			t.Errorf("%q: %+v %v", tc.msg, e, ok)
		}
	}
}

// TestTruncated: NCCL's truncated-message warnings (src/transport/
// net_socket.cc of 2.20 as in sail-sg/zero-bubble-pipeline-parallelism#60,
// realworld-fresh70; 2.4's without the peer; src/bootstrap.cc's).
func TestTruncated(t *testing.T) {
	for _, tc := range []struct {
		msg, peer, err string
		ok             bool
	}{
		{"NET/Socket : peer 10.0.5.194<41988> message truncated : receiving 4 bytes instead of 2. If you believe your socket network is in healthy state,           there may be a mismatch in collective sizes or environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks", "10.0.5.194", "NET/Socket: 4 bytes instead of 2", true},
		{"NET/Socket : message truncated : receiving 1048576 bytes instead of 524288", "", "NET/Socket: 1048576 bytes instead of 524288", true},
		{"Message truncated : received 64 bytes instead of 32", "", "bootstrap: 64 bytes instead of 32", true},
		{"the message truncated at 4 bytes", "", "", false},
	} {
		e, ok := truncated(tc.msg)
		if ok != tc.ok || e.Peer != tc.peer || e.Error != tc.err || ok && (e.Kind != EventFailed || e.Call != TruncCall) {
			t.Errorf("%q: %+v %v", tc.msg, e, ok)
		}
	}
}
