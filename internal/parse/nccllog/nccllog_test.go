package nccllog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func parseFile(t *testing.T, path string) *Log {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lg, err := Parse(f, filepath.Base(path))
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return lg
}

func TestParseFacts(t *testing.T) {
	lg := parseFile(t, "testdata/nccl-tests185-roce-init.log")
	if lg.Version != "2.19.3+cuda12.3" || len(lg.Procs) != 2 {
		t.Fatalf("version %q procs %d", lg.Version, len(lg.Procs))
	}
	p := lg.Procs[0]
	want := []IBDevice{{"mlx5_10", 1, "RoCE"}, {"mlx5_11", 1, "RoCE"}}
	if diff := cmp.Diff(want, p.IBDevices); diff != "" || p.Host != "dgxh100-4" || p.Pid != 460770 {
		t.Errorf("proc %s:%d devices (-want +got):\n%s", p.Host, p.Pid, diff)
	}
	r := parseFile(t, "testdata/nccl392-roce-no-host-prefix.log")
	q := r.Procs[0]
	if diff := cmp.Diff(map[string]string{"NCCL_IB_DISABLE": "0", "NCCL_IB_GID_INDEX": "3"}, q.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if net, _ := q.EffectiveNetwork(); q.Channels != 2 || !q.Trees || net != "IB" || q.Via["NET/IB"] != 2 || q.Name() != "(no host prefix)" {
		t.Errorf("proc %+v network %q", q, net)
	}
	d := parseFile(t, "testdata/nv_peer_memory56-ib-bootstrap-socket.log")
	if n := len(d.Procs); n != 4 || d.Procs[0].IBDisable != 0 {
		t.Errorf("procs %d ib_disable %d", n, d.Procs[0].IBDisable)
	}
	m := parseFile(t, "../nccltests/testdata/meowth-oob-failed-socket.txt")
	if len(m.Events) != 1 || m.Events[0].Kind != EventWarn || m.Events[0].Line != 21 || m.Procs[0].NoVerbs != 15 {
		t.Errorf("events %+v no_verbs %d", m.Events, m.Procs[0].NoVerbs)
	}
}

// TestMaxRanks: the ranks of a process in its largest communicator are
// kept apart from those of smaller ones (bytedance/byteps#97's NCCL 2.3.7
// line; a world of 16 then a tensor-parallel group of 8 in the 2.12 form).
func TestMaxRanks(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		n        int
		ranks    []int
	}{
		{"NCCL 2.3.7", "ai-2080ti-18:5584:5584 [5] NCCL INFO comm 0x19b0d460 rank 5 nranks 6\n", 6, []int{5}},
		// horovod/horovod#969: NCCL 2.3.7's bare "rank R nranks N".
		{"NCCL 2.3.7 bare rank line", "ptv-gpu01:11009:11097 [2] NCCL INFO rank 2 nranks 4\n", 4, []int{2}},
		{"bare rank line with more words is not it", "h:1:1 [2] NCCL INFO rank 2 nranks 4 is late\n", 0, nil},
		{"world then a smaller group", "h:1:1 [3] NCCL INFO comm 0x1 rank 11 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0\n" +
			"h:1:1 [3] NCCL INFO comm 0x2 rank 3 nRanks 8 nNodes 1 localRanks 8 localRank 3 MNNVL 0\n", 16, []int{11}},
		{"smaller group first", "h:1:1 [3] NCCL INFO comm 0x2 rank 3 nRanks 8 nNodes 1 localRanks 8 localRank 3 MNNVL 0\n" +
			"h:1:1 [3] NCCL INFO comm 0x1 rank 11 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0\n", 16, []int{11}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tc.in), "log")
			if err != nil {
				t.Fatal(err)
			}
			if p := lg.Procs[0]; p.MaxNRanks != tc.n || !slices.Equal(p.MaxRanks, tc.ranks) {
				t.Errorf("max nranks %d ranks %v, want %d %v", p.MaxNRanks, p.MaxRanks, tc.n, tc.ranks)
			}
		})
	}
}

// TestEffectiveNetworkNoVerbs: a log at NCCL_DEBUG=WARN that only says
// libibverbs could not be opened (NVIDIA/nccl-tests#82) ran over sockets;
// "No device found" alone does not say so (a net plugin may carry it).
func TestEffectiveNetworkNoVerbs(t *testing.T) {
	for _, tc := range []struct {
		line, want string
	}{
		{"v100-gpu-5:9210:9210 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]", "Socket"},
		{"h:1:1 [0] NCCL INFO NET/IB : No device found.", ""},
	} {
		lg, err := Parse(strings.NewReader(tc.line+"\n"), "w.log")
		if err != nil {
			t.Fatal(err)
		}
		if net, _ := lg.Procs[0].EffectiveNetwork(); net != tc.want {
			t.Errorf("%s: network %q, want %q", tc.line, net, tc.want)
		}
	}
}

// Completion errors in the three formats NCCL has printed, and the
// events of the other kinds.
func TestParseEvents(t *testing.T) {
	tests := []struct {
		line string
		want Event
	}{
		{"h:1:2 [0] net_ib.cc:1 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<1> with status=local protection error(4) opcode=RDMA_WRITE(1) vendor_err=81 hca mlx5_0",
			Event{Kind: EventCompletion, Host: "h", Pid: 1, Peer: "10.0.0.2<1>", Status: WCLocProtErr, Opcode: 1, VendorErr: 81, HCA: "mlx5_0", Rank: -1}},
		{"h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=5 opcode=0 len=0 vendor err 249 (Recv)",
			Event{Kind: EventCompletion, Host: "h", Pid: 1, Peer: "10.0.0.2<1>", Status: WCWRFlushErr, VendorErr: 249, Req: "Recv", Rank: -1}},
		{"NCCL WARN NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129",
			Event{Kind: EventCompletion, Status: WCRetryExcErr, VendorErr: 129, Rank: -1}},
		{"h:1:2 [0] NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory",
			Event{Kind: EventResource, Host: "h", Pid: 1, Call: "ibv_reg_mr", Error: "Cannot allocate memory", Rank: -1}},
		{"h:1:2 [0] NCCL WARN Timeout waiting for connection", Event{Kind: EventTimeout, Host: "h", Pid: 1, Rank: -1}},
		// NCCL 2.19+ prints the errno number and the QP transition after
		// the error text; "timed out" there is the verbs call's errno,
		// not a collective timeout (NVIDIA/nccl#2013).
		{"h:1:2 [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_1:1, curr state INIT, next state RTR, local GID index 3",
			Event{Kind: EventResource, Host: "h", Pid: 1, Call: "ibv_modify_qp", Error: "Connection timed out", HCA: "mlx5_1", Port: 1, CurrState: "INIT", NextState: "RTR", Rank: -1}},
		{"h:1:2 [0] NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable",
			Event{Kind: EventResource, Host: "h", Pid: 1, Call: "ibv_modify_qp", Error: "Network is unreachable", Rank: -1}},
		// A WARN quoted in a sentence of an issue (NVIDIA/nccl#1129).
		{"\u201dmisc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed\u201c",
			Event{Kind: EventResource, Call: "ibv_create_qp", Rank: -1}},
		// A net plugin's completion error quoted in a sentence, no NCCL
		// line prefix (NVIDIA/nccl#1664).
		{"yet encountered the errors mentioned above. NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 vendor err 129 (Send)",
			Event{Kind: EventCompletion, Peer: "7.6.13.83<36315>", Status: WCRetryExcErr, Opcode: 32698, VendorErr: 129, Req: "Send", Rank: -1}},
		// NCCL 2.1: no "NCCL" before the level (horovod/horovod#98, the
		// host hidden as "machine"; NVIDIA/nccl#111 style host:pid:tid).
		{"machine [0] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp failed",
			Event{Kind: EventResource, Call: "ibv_create_qp", Rank: -1}},
		{"dgx1:4242:4250 [3] misc/ibvwrap.cu:269 WARN Call to ibv_reg_mr failed",
			Event{Kind: EventResource, Host: "dgx1", Pid: 4242, Call: "ibv_reg_mr", Rank: -1}},
		// Failed sockets, as NCCL words them across releases. sglang
		// issue 3820 (realworld-fresh21): misc/socket.cc socketPollConnect.
		{"node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No route to host) errno 115(Operation now in progress)",
			Event{Kind: EventConnect, Host: "node5", Pid: 240, Peer: "10.0.0.4", Error: "No route to host", Rank: -1}},
		// horovod/horovod#210: NCCL 2.1 socketProgress, no peer named.
		{"ml-gpu-ser015:2123:2230 [3] include/socket.h:194 WARN Call to recv failed : Connection reset by peer",
			Event{Kind: EventConnect, Host: "ml-gpu-ser015", Pid: 2123, Call: "recv", Error: "Connection reset by peer", Rank: -1}},
		// NVIDIA/nccl#224 (without Open MPI's output tag): createListenSocket.
		{"gpu7:4105:4372 [0] include/socket.h:318 NCCL WARN Net : Socket creation failed : Address family not supported by protocol",
			Event{Kind: EventConnect, Host: "gpu7", Pid: 4105, Call: "socket", Error: "Address family not supported by protocol", Rank: -1}},
		// Newer socketProgressOpt names the peer.
		{"h:1:2 [0] misc/socket.cc:49 NCCL WARN Net : Call to recv from 10.1.1.2<4711> failed : Connection reset by peer",
			Event{Kind: EventConnect, Host: "h", Pid: 1, Call: "recv", Peer: "10.1.1.2", Error: "Connection reset by peer", Rank: -1}},
		// NVIDIA/nccl-tests#185 (realworld-fresh10): socketProgress read 0 bytes.
		{"dgxh100-3:225140:225289 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer dgxh100-3<41109>",
			Event{Kind: EventConnect, Host: "dgxh100-3", Pid: 225140, Call: "recv", Peer: "dgxh100-3", Error: "Connection closed by remote peer", Rank: -1}},
		{"h:1:2 [0] NCCL WARN Net : Connection closed by remote peer",
			Event{Kind: EventConnect, Host: "h", Pid: 1, Call: "recv", Error: "Connection closed by remote peer", Rank: -1}},
		// A failed call that is no socket call stays a plain warning.
		{"h:1:2 [0] NCCL WARN Call to posix_fallocate failed : No space left on device",
			Event{Kind: EventWarn, Host: "h", Pid: 1, Rank: -1}},
		{"[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600060 milliseconds before timing out. NCCL",
			Event{Kind: EventTimeout, Rank: 3, SeqNum: 7, OpType: "ALLREDUCE", TimeoutMS: 600000, RanForMS: 600060}},
	}
	for _, tt := range tests {
		lg, err := Parse(strings.NewReader(tt.line+"\n"), "t.log")
		if err != nil {
			t.Fatalf("%s: %v", tt.line, err)
		}
		if len(lg.Events) != 1 {
			t.Fatalf("%s: events %+v", tt.line, lg.Events)
		}
		got := lg.Events[0]
		got.Source, got.Line, got.Text = "", 0, ""
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestParseErrors(t *testing.T) {
	_, err := Parse(strings.NewReader("just text\n"), "x.log")
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrNoData) {
		t.Errorf("err = %v", err)
	}
}

// nccl-tests output is not an NCCL log unless NCCL lines are interleaved.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"testdata/nccl1814-retry-then-flush.log", true},
		{"testdata/llamafactory7396-watchdog.log", true},
		{"../nccltests/testdata/meowth-oob-failed-socket.txt", true},
		{"../nccltests/testdata/not-mpi-two-headers.txt", false},
		{"../nccltests/testdata/util-cu-writer-2rank.json", false},
	} {
		b, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := Detect(string(b)); got != tc.want {
			t.Errorf("Detect(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
	// NCCL 2.0-2.3 lines: a WARN naming its source file is NCCL's; a
	// plain INFO line, or a WARN of another program, is not enough.
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"machine [0] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp failed\n", true},
		{"we saw NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 vendor err 129 (Send)\n", true},
		{"NET/IB is fine, we got completion of the task\n", false},
		{"dgx1:4242:4242 [0] INFO NET : Using interface eth0:10.0.0.1<0>\n", false},
		{"2024-01-01 12:00:00 WARN disk almost full\n", false},
	} {
		if got := Detect(tc.text); got != tc.want {
			t.Errorf("Detect(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestMerge(t *testing.T) {
	ib := parseFile(t, "testdata/nccl-tests185-roce-init.log")
	sock := parseFile(t, "../nccltests/testdata/meowth-oob-failed-socket.txt")
	if Merge(ib) != ib {
		t.Error("Merge of one log is not that log")
	}
	m := Merge(ib, sock)
	if m.Source != "nccl-tests185-roce-init.log, meowth-oob-failed-socket.txt" || len(m.Procs) != 3 || m.Procs[2].Source != "meowth-oob-failed-socket.txt" ||
		m.Version != ib.Version || m.NCCLLines != ib.NCCLLines+sock.NCCLLines || len(m.Events) != 1 {
		t.Errorf("merged %+v", m)
	}
}

func TestWCStatuses(t *testing.T) {
	tab := WCStatuses()
	if len(tab) != 24 || tab[12].Name != "IBV_WC_RETRY_EXC_ERR" || !tab[5].Fallout || tab[4].Text != "local protection error" {
		t.Errorf("table: %d entries, 12=%+v", len(tab), tab[12])
	}
	if got := WCStatus(99).Info().Name; got != "status 99" {
		t.Errorf("unknown = %q", got)
	}
	if !slices.ContainsFunc(tab, func(i WCStatusInfo) bool { return i.Name == "IBV_WC_TM_RNDV_INCOMPLETE" }) {
		t.Error("table lacks the last status")
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.log"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	// The failed-call shapes of failures.go, CRLF included.
	f.Add(strings.ReplaceAll(dupWarn0+"\n"+dupWarn1+"\n"+exFailed+"\n", "\n", "\r\n"))
	f.Add(bloomCUDA)
	// Failed sockets in three releases' wording.
	f.Add("node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No route to host) errno 115(Operation now in progress)\n" +
		"h:1:2 [3] include/socket.h:194 WARN Call to recv failed : Connection reset by peer\n" +
		"gpu7:4105:4372 [0] include/socket.h:318 NCCL WARN Net : Socket creation failed : Address family not supported by protocol\n")
	// A failed ibv_modify_qp wrapped after its errno (realworld-fresh32).
	f.Add("misc/ibvwrap.cc:380 (wrap_ibv_modify_qp) NCCL WARN Call to ibv_modify_qp failed with 61\n" +
		"No data available, on dev roceP2p1s0f0:1, curr state INIT, next state RTR, local GID index 3, local GID ::\n")
	// aws-ofi-nccl's instance type and NIC count, RCCL's DMA-BUF probe
	// trace that the process goes past (realworld-fresh50).
	f.Add("ip-172-31-47-132:11752:11839 [6] NCCL INFO NET/OFI Running on p4d.24xlarge platform, Setting NCCL_TOPO_FILE environment variable to /opt/amazon/ofi-nccl/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml\n" +
		"ip-172-31-47-132:11749:11843 [3] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 1 nics)\n" +
		"pdfc-aig-00000H:2664391:2666940 [5] NCCL INFO /long_pathname_so_that_rpms_can_package_the_debug_info/src/rccl/build/hipify/src/transport/net_ib.cc:652 -> 2\n" +
		"pdfc-aig-00000H:2664391:2666940 [5] NCCL INFO Using network IB\n")
	f.Fuzz(func(t *testing.T, in string) {
		lg, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, e := range lg.Events {
			if e.Line < 1 || e.Text == "" {
				t.Fatalf("event without line or text: %+v", e)
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "nccl-tests185-roce-init.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(strings.NewReader(string(data)), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCompletionWordings: completion errors in older NCCL wording ("with
// error 12, opcode 1") and from net plugins that log them at INFO level.
func TestCompletionWordings(t *testing.T) {
	in := "NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 32768, vendor err 129\n" +
		"node1:123:456 [0] NCCL INFO NET/IBP: Got completion from peer 10.0.0.2<1234> with error 4, opcode 0\n" +
		"node1:123:456 [0] NCCL INFO Channel 00/02 :    0   1\n"
	lg, err := Parse(strings.NewReader(in), "c.log")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range lg.Events {
		got = append(got, fmt.Sprintf("%s %d %s line %d", e.Kind, int(e.Status), e.Peer, e.Line))
	}
	want := []string{"completion 12  line 1", "completion 4 10.0.0.2<1234> line 2"}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestAsyncEventWordings: every wording NCCL's ibv async event thread has
// printed (transport/net_ib.cc[u] of 2.0-2.18, net_ib/common.cc since),
// with and without the device, is one async event with its event text.
func TestAsyncEventWordings(t *testing.T) {
	for _, tt := range []struct {
		line, hca string
		port      int
		async     string
	}{
		{"gpu48:34050:34121 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error", "", 0, "port error"},
		{"node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : local access violation work queue error", "mlx5_0", 1, "local access violation work queue error"},
		{"n1:1:2 [3] NCCL WARN NET/IB : mlx5_3:1 Got async error event: local catastrophic error", "mlx5_3", 1, "local catastrophic error"},
		{"n1:1:2 [3] NCCL WARN NET/IB : mlx5_3:1 Got non-fatal async event: port error(10)", "mlx5_3", 1, "port error"},
		{"n1:1:2 [3] NCCL WARN NET/IB : mlx5_3:1 Got non-fatal async event: SM change(13)", "mlx5_3", 1, "SM change"},
		{"n1:1:2 [3] NCCL WARN NET/IB : mlx5_3:1 async fatal event: local catastrophic error", "mlx5_3", 1, "local catastrophic error"},
		{"n1:1:2 [3] NCCL WARN NET/IB : mlx5_3:1 async fatal event on QP (0x55d0c5a0) qpn=4711 handle=3 send_cq=1 recv_cq=1 state=6 sq_psn=77 rq_psn=78: local work queue catastrophic error", "mlx5_3", 1, "local work queue catastrophic error"},
		{"n1:1:2 [3] NCCL WARN NET/IB : mlx5_3:1 async fatal event on CQ (0x55d0c5a0) handle=1 cqe=4096: CQ error", "mlx5_3", 1, "CQ error"},
		{"n1:1:2 [3] NCCL WARN NET/IB : mlx5_3:1 GID table changed", "mlx5_3", 1, "GID table change"},
		// Azure/msccl-executor-nccl's resilient plugin appends the type and device.
		{"n1:1:2 [3] NCCL WARN NET/IB : Got async event : port error event type: 10 deviceid:0 device name:mlx5_0", "", 0, "port error"},
		{"n1:1:2 [3] NCCL WARN NET/IB : mlx5_3:1 unknown event type (22)", "mlx5_3", 1, "event type 22"},
		// Quoted by a maintainer in NVIDIA/nccl issue #905, without the prefix.
		{"NCCL WARN NET/IB : Got async event : port error", "", 0, "port error"},
	} {
		lg, err := Parse(strings.NewReader(tt.line+"\n"), "a.log")
		if err != nil {
			t.Fatal(err)
		}
		if len(lg.Events) != 1 {
			t.Fatalf("%q: %d events", tt.line, len(lg.Events))
		}
		e := lg.Events[0]
		if e.Kind != EventAsync || e.HCA != tt.hca || e.Port != tt.port || e.Async != tt.async {
			t.Errorf("%q: kind %s hca %q port %d async %q, want async %q %d %q", tt.line, e.Kind, e.HCA, e.Port, e.Async, tt.hca, tt.port, tt.async)
		}
	}
}

// TestNetPlugin: the plugin a NET/ line shows, from NCCL's "Loaded net
// plugin" line (src/plugin/net.cc) or a plugin's own prefix; NCCL's
// built-in transports and NET/Plugin's failures show none.
func TestNetPlugin(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"NET/Plugin: Loaded net plugin AWS Libfabric (v5)", "AWS Libfabric"},
		{"NET/Plugin: Loaded net plugin gIB (v11)", "gIB"},
		{"NET/Plugin : Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so", ""},
		{"NET/Plugin: No plugin found (libnccl-net.so)", ""},
		{"NET/Plugin: Failed to find ncclCollNetPlugin_v8 symbol.", ""},
		{"NET/OFI Selected Provider is efa", "OFI"},
		{"NET/IBext : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>", "IBext"},
		{"NET/IB : No device found.", ""},
		{"NET/IB: No device found.", ""},
		{"NET/Socket : Using [0]eth0:10.0.0.1<0>", ""},
	} {
		if got := netPlugin(tc.msg); got != tc.want {
			t.Errorf("netPlugin(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// TestBootstrapLoopback: bootstrapNetInit's interface line (NCCL
// src/bootstrap.cc) names a loopback address only when every interface it
// lists has one; NVIDIA/nccl#300 (NCCL 2.5.6 in a container) shows the
// first wording.
func TestBootstrapLoopback(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"Bootstrap : Using [0]lo:127.0.0.1<0>", true},
		{"Bootstrap: Using lo:127.0.0.1<0>", true},
		{"Bootstrap : Using [0]lo:::1<0>", true},
		{"Bootstrap : Using [0]eth0:10.0.0.1<0>", false},
		{"Bootstrap : Using [0]lo:127.0.0.1<0> [1]eth0:10.0.0.1<0>", false},
		{"Bootstrap: Using eth0:172.17.0.2<0>", false},
		{"Bootstrap : Using", false},
		{"Bootstrap timings total 0.001 (create 0.000, send 0.000)", false},
		{"Bootstrap : Using [0lo:127.0.0.1<0>", false},
	} {
		if got := bootstrapLoopback(tc.msg); got != tc.want {
			t.Errorf("bootstrapLoopback(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
	// A later non-loopback line of the same process clears it.
	lg, err := Parse(strings.NewReader("h:1:2 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\nh:1:2 [0] NCCL INFO Bootstrap : Using [0]eth0:10.0.0.1<0>\ng:1:2 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n"), "log")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, p := range lg.Procs {
		got[p.Host] = p.BootstrapLo
	}
	if got["h"] != 0 || got["g"] != 3 {
		t.Errorf("BootstrapLo by host = %v, want h:0 g:3", got)
	}
}

// TestTestFailure: nccl-tests' report of a failed NCCL or CUDA call
// (NVIDIA/nccl-tests#36, an Azure NC24rs_v3 pair; NVIDIA/nccl-tests#24's
// "gpu5:" line) is an EventFailed naming the host and the error; a line
// without the quoted error is not.
func TestTestFailure(t *testing.T) {
	tests := []struct {
		in               string
		ok               bool
		host, call, text string
	}{
		{"pkb-aa8dbd1b-1: Test NCCL failure common.cu:345 'unhandled system error'", true, "pkb-aa8dbd1b-1", "NCCL", "unhandled system error"},
		{"gpu5: Test NCCL failure common.cu:343 'unhandled cuda error'", true, "gpu5", "NCCL", "unhandled cuda error"},
		{"node1: Test CUDA failure common.cu:892 'out of memory'", true, "node1", "CUDA", "out of memory"},
		{" .. pkb-aa8dbd1b-1: Test failure common.cu:393", false, "", "", ""},
		{"gpu5: Test NCCL failure common.cu:343 (no error string)", false, "", "", ""},
	}
	for _, tt := range tests {
		lg, err := Parse(strings.NewReader(tt.in+"\n"), "p.txt")
		if !tt.ok {
			if err == nil && len(lg.Events) > 0 {
				t.Errorf("%q: events %+v", tt.in, lg.Events)
			}
			continue
		}
		if err != nil || len(lg.Events) != 1 {
			t.Fatalf("%q: %v %+v", tt.in, err, lg)
		}
		e := lg.Events[0]
		if e.Kind != EventFailed || e.Host != tt.host || e.Call != tt.call || e.Error != tt.text || e.Line != 1 {
			t.Errorf("%q: %+v", tt.in, e)
		}
	}
}

// TestInitFailed: NCCLCHECK's error return trace out of init.cc or
// bootstrap.cc marks the process whose communicator setup failed (sglang
// issue 3820's "init.cc:1534 -> 2", horovod/horovod#210's NCCL 2.1
// "INFO bootstrap.cu:169 -> 2"); other files, ncclSuccess and
// ncclInProgress do not.
func TestInitFailed(t *testing.T) {
	for _, tc := range []struct {
		in         string
		line, code int
	}{
		{"node5:240:240 [6] NCCL INFO misc/socket.cc:570 -> 2\nnode5:240:240 [6] NCCL INFO bootstrap.cc:285 -> 2\nnode5:240:240 [6] NCCL INFO init.cc:1534 -> 2\n", 2, 2},
		{"ml-gpu-ser015:2123:2230 [3] INFO bootstrap.cu:169 -> 3\n", 1, 3},
		{"h:1:2 [0] NCCL INFO init.cc:1534 -> 6 [Net]\n", 1, 6},
		{"h:1:2 [0] NCCL INFO transport/net.cc:330 -> 2\n", 0, 0},
		{"h:1:2 [0] NCCL INFO init.cc:1534 -> 7\n", 0, 0},
		{"h:1:2 [0] NCCL INFO init.cc:1534 -> x\n", 0, 0},
		{"h:1:2 [0] NCCL INFO init.cc: ranks -> 2 nodes\n", 0, 0},
	} {
		lg, err := Parse(strings.NewReader(tc.in), "t.log")
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if p := lg.Procs[0]; p.InitFailed != tc.line || p.InitCode != tc.code {
			t.Errorf("%q: init failed at line %d code %d, want %d, %d", tc.in, p.InitFailed, p.InitCode, tc.line, tc.code)
		}
	}
}
