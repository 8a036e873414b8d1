package nccllog

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// watchdog matches by hand what reWatchdog matches: the same submatches
// on real reports, on near misses and on random cuts and splices of them.
func TestWatchdogAsRegexp(t *testing.T) {
	lines := []string{
		"[rank0]:[E ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=41, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600123 milliseconds before timing out.",
		"[E ProcessGroupNCCL.cpp:475] [Rank 12] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800047 milliseconds before timing out.",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=_ALLGATHER_BASE, NumelIn=8, NumelOut=64, Timeout(ms)=10) ran for 11 milliseconds",
		"[Rank x] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=SEND, Timeout(ms)=10) ran for 11 milliseconds",
		"[Rank ] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=SEND, Timeout(ms)=10) ran for 11 milliseconds",
		"[Rank 3]  Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=SEND, Timeout(ms)=10) ran for 11 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=XTimeout(ms)=5) ran for 3 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=X Timeout(ms)=) ran for 3 milliseconds Timeout(ms)=4) ran for 5 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=X, Timeout(ms)=4) ran for x milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=, OpType=X, Timeout(ms)=4) ran for 5 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=, Timeout(ms)=4) ran for 5 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=A, NumelIn=1\nTimeout(ms)=4) ran for 5 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=x) [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=B, Timeout(ms)=4) ran for 5 milliseconds",
		"Watchdog caught collective operation timeout",
		"NCCL INFO comm 0x1 rank 0 nranks 2",
	}
	check := func(l string) {
		t.Helper()
		if got, want := watchdog(l), reWatchdog.FindStringSubmatch(l); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", l, got, want)
		}
	}
	for _, l := range lines {
		check(l)
	}
	rnd := rand.New(rand.NewSource(1))
	for range 20000 {
		a, b := lines[rnd.Intn(len(lines))], lines[rnd.Intn(len(lines))]
		i, j := rnd.Intn(len(a)+1), rnd.Intn(len(b)+1)
		l := a[:i] + b[j:]
		if rnd.Intn(2) == 0 {
			k := rnd.Intn(len(l) + 1)
			l = l[:k] + string("0 ]()=,\nTx"[rnd.Intn(10)]) + l[k:]
		}
		check(l)
		check(strings.Repeat(l, 2))
	}
}

// TestWrappedWatchdog: a watchdog report wrapped over lines is read whole
// at its first line. The two-line one is from a markdown write-up
// (github.com/MarioPasc/MU-Diff, NCCL_TIMEOUT_FIX.md); one that never
// completes is still a timeout, and the lines after it are read as usual.
func TestWrappedWatchdog(t *testing.T) {
	const (
		head = "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=668, OpType=ALLREDUCE,"
		tail = "NumelIn=52, NumelOut=52, Timeout(ms)=600000) ran for 600097 milliseconds before timing out."
		info = "node1:123:456 [0] NCCL INFO Using network IB"
	)
	type ev struct {
		line, rank      int
		seq             int64
		op              string
		timeout, ranFor int64
	}
	tests := []struct {
		name  string
		in    string
		want  []ev
		lines int // NCCL lines read
	}{
		{"two lines in a markdown fence", "```\n" + head + "\n" + tail + "\n```\n", []ev{{2, 1, 668, "ALLREDUCE", 600000, 600097}}, 1},
		{"three lines, indented", head + "\n  NumelIn=52, NumelOut=52, Timeout(ms)=600000) ran for\n  600097 milliseconds before timing out.\n",
			[]ev{{1, 1, 668, "ALLREDUCE", 600000, 600097}}, 1},
		{"cut after the head, an NCCL line next", head + "\n" + info + "\n", []ev{{1, 1, 668, "ALLREDUCE", 0, 0}}, 2},
		{"cut after the head, a blank line next", head + "\n\n" + tail + "\n", []ev{{1, 1, 668, "ALLREDUCE", 0, 0}}, 1},
		{"cut at the end of the paste", "x\n" + head, []ev{{2, 1, 668, "ALLREDUCE", 0, 0}}, 1},
		{"more prose than a wrap, then NCCL", head + "\nfoo\nbar\nbaz\n" + info + "\n", []ev{{1, 1, 668, "ALLREDUCE", 0, 0}}, 2},
		{"whole on one line", head + " " + tail + "\n" + info, []ev{{1, 1, 668, "ALLREDUCE", 600000, 600097}}, 2},
		// mila-iqia/milabench#269: wrapped right after the colon, under a
		// cluster log's "<job>.<node> [stderr] " prefix; the second line
		// starts with the report's own "WorkNCCL(".
		{"wrapped after the colon", "dinov2-giant-nodes.cn-d004 [stderr] [rank14]:[E909 09:55:29.307629539 ProcessGroupNCCL.cpp:607] [Rank 14] Watchdog caught collective operation timeout: \n" +
			"WorkNCCL(SeqNum=2070, OpType=REDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600034 milliseconds before timing out.\n",
			[]ev{{1, 14, 2070, "REDUCE", 600000, 600034}}, 1},
		// analyze testdata/realworld-fresh41 torch-watchdog-stored60302518743 (a write-up
		// of a quantization run on 8x H100): the bare report, no log prefix, wrapped
		// after the colon and again inside WorkNCCL(…), in a markdown fence.
		{"bare, wrapped after the colon and once more", "```text\n[Rank 3] Watchdog caught collective operation timeout:\n" +
			"WorkNCCL(SeqNum=5, OpType=BROADCAST, NumelIn=2, NumelOut=2,\n" +
			"Timeout(ms)=600000) ran for 600017 milliseconds before timing out.\n```\n",
			[]ev{{2, 3, 5, "BROADCAST", 600000, 600017}}, 1},
		{"bare head after the colon, the paste ends", "[Rank 3] Watchdog caught collective operation timeout: \n",
			[]ev{{1, 3, 0, "", 0, 0}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tt.in), "paste")
			if err != nil {
				t.Fatal(err)
			}
			var got []ev
			for _, e := range lg.Events {
				if e.Kind == EventTimeout {
					got = append(got, ev{e.Line, e.Rank, e.SeqNum, e.OpType, e.TimeoutMS, e.RanForMS})
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("timeouts %+v, want %+v", got, tt.want)
			}
			if lg.NCCLLines != tt.lines {
				t.Errorf("NCCL lines %d, want %d", lg.NCCLLines, tt.lines)
			}
		})
	}
}

// TestWatchdogHeadWrapped: only a line that ends where a watchdog report
// wrapped after its colon starts a wrapped report (what the paste splitter
// also reads it by).
func TestWatchdogHeadWrapped(t *testing.T) {
	for l, want := range map[string]bool{
		"[Rank 3] Watchdog caught collective operation timeout:":                                      true,
		"[Rank 14] Watchdog caught collective operation timeout: \r\n":                                true,
		"initialization with an NCCL watchdog timeout:":                                               false,
		"Watchdog caught collective operation timeout: see below":                                     false,
		"[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=BROADCAST,": false,
	} {
		if got := WatchdogHeadWrapped(l); got != want {
			t.Errorf("WatchdogHeadWrapped(%q) = %v", l, got)
		}
	}
}

// TestPythonNCCLError: an NCCL error a Python program raised (PyTorch,
// CuPy, Ray: "ncclInternalError: Internal check failed.") is a failed NCCL
// call, with the "Last error:" detail NCCL adds after it and the host a
// launcher's prefix names (vllm-project/vllm#798 under Ray); the same
// words inside another name are not.
func TestPythonNCCLError(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // Host|Error of each failed call
	}{
		{"ray prefix and the last error", "(LLMEngine pid=2347640, ip=10.58.226.15) ncclInternalError: Internal check failed.\n" +
			"(LLMEngine pid=2347640, ip=10.58.226.15) Last error:\n" +
			"(LLMEngine pid=2347640, ip=10.58.226.15) Proxy Call to rank 7 failed (Connect)\n" +
			"(LLMEngine pid=2347640, ip=10.58.226.15)   File \"/x/vllm/worker/worker.py\", line 62, in init_model\n",
			[]string{"10.58.226.15|internal error (Internal check failed.); last error: Proxy Call to rank 7 failed (Connect)"}},
		{"bare, no detail, the paste ends", "RuntimeError: something\nncclUnhandledCudaError: Call to CUDA function failed.\n",
			[]string{"|unhandled cuda error (Call to CUDA function failed.)"}},
		{"the detail line missing: the error as it is", "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\nTraceback (most recent call last):\n",
			[]string{"|unhandled system error (System call (e.g. socket, malloc) or external library call failed or device error.)"}},
		{"not an NCCL result name", "myncclInternalError: no\nncclSomething: no\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Detect(tt.in); got != (tt.want != nil) {
				t.Errorf("Detect = %v", got)
			}
			lg, err := Parse(strings.NewReader(tt.in), "paste")
			if tt.want == nil {
				if err == nil {
					t.Errorf("parsed %+v", lg.Events)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range lg.Events {
				if e.Kind == EventFailed {
					got = append(got, e.Host+"|"+e.Error)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("failed calls %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHeartbeatReport: PyTorch's heartbeat monitor report that the
// ProcessGroupNCCL watchdog got stuck is a timeout of the rank it names,
// on one line or hard-wrapped at a fixed column mid-word (the lines of
// om-ai-lab/VLM-R1#257, wrapped at 116 columns with the trailing spaces
// kept), or word-wrapped with the space at the cut dropped. The old
// wording ("Heartbeat monitor timed out!") too; the "preparing to dump
// debug info" line after it is none.
func TestHeartbeatReport(t *testing.T) {
	const (
		l1   = "[rank6]:[E429 13:55:49.384372190 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 6] ProcessGroupNCCL'"
		l2   = "s watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This typically indi"
		l3   = "cates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread "
		l4   = "[rank6]:[E429 13:55:49.384620373 ProcessGroupNCCL.cpp:1533] [PG ID 0 PG GUID 0(default_pg) Rank 6] ProcessGroupNCCL "
		l5   = "preparing to dump debug info. Include stack trace: 1                                                                "
		one  = "[rank6]:[E429 13:55:49.384372190 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 6] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives."
		old  = "[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=0"
		info = "node1:123:456 [0] NCCL INFO Using network IB"
	)
	type ev struct {
		line, rank int
		secs       int64
	}
	tests := []struct {
		name  string
		in    string
		want  []ev
		lines int
	}{
		{"wrapped mid-word at 116 columns", l1 + "\n" + l2 + "\n" + l3 + "\n" + l4 + "\n" + l5 + "\n", []ev{{1, 6, 480}}, 1},
		{"on one line", one + "\n" + info + "\n", []ev{{1, 6, 480}}, 2},
		{"word-wrapped, space dropped", "[PG 0 Rank 3] ProcessGroupNCCL's watchdog got\nstuck for 600 seconds without making progress\n", []ev{{1, 3, 600}}, 1},
		{"cut inside the number", "[PG 0 Rank 2] ProcessGroupNCCL's watchdog got stuck for 4" + strings.Repeat(" ", 60) + "\n80 seconds without\n", []ev{{1, 2, 480}}, 1},
		{"old wording", old + "\n", []ev{{1, 0, 0}}, 1},
		{"head never completed, an NCCL line next", l1 + "\n" + info + "\n", nil, 1},
		{"only the dump line", l4 + "\n" + l5 + "\n" + info + "\n", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tt.in), "paste")
			if err != nil {
				t.Fatal(err)
			}
			var got []ev
			for _, e := range lg.Events {
				if e.Kind == EventTimeout && e.Heartbeat {
					got = append(got, ev{e.Line, e.Rank, e.StuckS})
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("heartbeat reports %+v, want %+v", got, tt.want)
			}
			if lg.NCCLLines != tt.lines {
				t.Errorf("NCCL lines %d, want %d", lg.NCCLLines, tt.lines)
			}
		})
	}
}

// TestGDRConnectionLines: the first NET/IB connection without "/GDRDMA",
// the GDR flag of "Connected all rings, use ring PXN 0 GDR 0" and the
// "DMA-BUF is available" line are kept with their lines (NCCL 2.26.2
// lines of a 2-node H100 all_reduce_perf, tssala23/moc-training-scripts).
func TestGDRConnectionLines(t *testing.T) {
	const pre = "MOC-R4PCC04U37:574691:574714 [0] NCCL INFO "
	tests := []struct {
		name, in       string
		via, ring, dma int
		ringOn         bool
		viaText        string
	}{
		{"no GDR", pre + "DMA-BUF is available on GPU device 0\n" + pre + "Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/1/GDRDMA\n" +
			pre + "Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/1\n" + pre + "Connected all rings, use ring PXN 0 GDR 0\n",
			3, 4, 1, false, "Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/1"},
		{"GDR 1, sockets", pre + "Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n" + pre + "Connected all rings, use ring PXN 0 GDR 1\n",
			0, 2, 0, true, ""},
		{"older line without GDR", pre + "Connected all rings\n" + pre + "Connected all rings, use ring PXN 0 GDR x\n", 0, 0, 0, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tt.in), "paste")
			if err != nil {
				t.Fatal(err)
			}
			p := lg.Procs[0]
			if p.ViaNoGDRLine != tt.via || p.ViaNoGDRText != tt.viaText || p.RingGDRLine != tt.ring || p.RingGDR != tt.ringOn || p.DMABuf != tt.dma {
				t.Errorf("via %d %q ring %d %v dmabuf %d, want via %d %q ring %d %v dmabuf %d",
					p.ViaNoGDRLine, p.ViaNoGDRText, p.RingGDRLine, p.RingGDR, p.DMABuf, tt.via, tt.viaText, tt.ring, tt.ringOn, tt.dma)
			}
		})
	}
}
