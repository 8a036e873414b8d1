package nccl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// logData is the NCCL log corpus; its README says what each file must
// produce. One nccl-tests sample doubles as a log.
const logData = "../../parse/nccllog/testdata/"

func parseLogFile(t *testing.T, path string) *nccllog.Log {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lg, err := nccllog.Parse(f, filepath.Base(path))
	if err != nil {
		t.Fatalf("nccllog.Parse(%s): %v", path, err)
	}
	return lg
}

// TestLogCorpus states, for every real log sample, the findings it must
// produce (exactly) and facts about what was parsed.
func TestLogCorpus(t *testing.T) {
	tests := []struct {
		file        string
		opts        LogOptions
		want        []string
		network     string // effective network of the first process
		summaryHas  []string
		events      int
		firstStatus nccllog.WCStatus
	}{
		{file: logData + "nccl1814-retry-then-flush.log", want: []string{"nccl.ibv_error/critical"}, events: 3, firstStatus: 12,
			summaryHas: []string{"status 12 IBV_WC_RETRY_EXC_ERR", "peer 172.36.143.59<44206>", "2 later error(s) are consequences", "peers: 172.36.143.59<44206> ×3"}},
		{file: logData + "nccl1405-status12-ipv6-gid.log", want: []string{"nccl.ibv_error/critical"}, events: 2, firstStatus: 12,
			summaryHas: []string{"on kp-ddp-worker-0", "lossy or broken path"}},
		{file: logData + "nccl902-old-error12.log", want: []string{"nccl.ibv_error/critical"}, events: 1, firstStatus: 12},
		{file: logData + "nccl214-loc-prot-title.log", want: []string{"nccl.ibv_error/critical"}, events: 1, firstStatus: 4,
			summaryHas: []string{"IBV_WC_LOC_PROT_ERR", "GPUDirect"}},
		{file: logData + "nccl-tests185-roce-init.log", network: "IB"},
		{file: logData + "nccl-tests185-modify-qp-title.log", want: []string{"nccl.resource_error/critical"}, events: 1,
			summaryHas: []string{"ibv_modify_qp", "GID index"}},
		{file: logData + "nccl-tests206-reg-mr-title.log", want: []string{"nccl.resource_error/critical"}, events: 1,
			summaryHas: []string{"ibv_reg_mr_iova2", "ulimit -l"}},
		{file: logData + "nccl1537-roce-gdr-disabled.log", want: []string{"nccl.gdr_disabled/warning"}, network: "IB"},
		{file: logData + "nv_peer_memory56-ib-bootstrap-socket.log", network: "IB"},
		// Its "[receive] via NET/IB/0" connections carry no "/GDRDMA":
		// the traffic is staged through host memory.
		{file: logData + "nccl392-roce-no-host-prefix.log", want: []string{"nccl.gdr_disabled/warning"}, network: "IB",
			summaryHas: []string{"no connection over NET/IB carries /GDRDMA"}},
		{file: logData + "nccl952-socket-channels.log", want: []string{"nccl.socket_fallback/warning"}, network: "",
			summaryHas: []string{"<cluster_name>:926"}},
		{file: logData + "nccl952-socket-channels.log", opts: LogOptions{RDMAPresent: true}, want: []string{"nccl.socket_fallback/critical"},
			summaryHas: []string{"although IB/RoCE was expected"}},
		{file: testsData + "meowth-oob-failed-socket.txt", want: []string{"nccl.socket_fallback/warning"}, network: "Socket", events: 1,
			summaryHas: []string{"libibverbs could not be loaded"}},
		{file: testsData + "meowth-oob-failed-socket.txt", opts: LogOptions{ExpectIB: true}, want: []string{"nccl.socket_fallback/critical"}, network: "Socket", events: 1},
		// Rank 3 printed only "detected by watchdog at work: 1580".
		{file: logData + "llamafactory7396-watchdog.log", want: []string{"nccl.timeout/critical"}, events: 4,
			summaryHas: []string{"3 rank(s) timed out in ALLREDUCE SeqNum=1580 after 600000 ms"}},
		{file: logData + "pytorch118369-watchdog-seq-differ.log", want: []string{"nccl.timeout/critical"}, events: 5,
			summaryHas: []string{"ALLREDUCE SeqNum=64088 on rank(s) 7", "rank(s) 7 lag the others (SeqNum 64088"}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			lg := parseLogFile(t, tt.file)
			a := CheckLog(lg, tt.opts)
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%+v", diff, a.Findings)
			}
			if len(lg.Events) != tt.events {
				t.Errorf("events = %d, want %d", len(lg.Events), tt.events)
			}
			if tt.firstStatus != 0 && lg.Events[0].Status != tt.firstStatus {
				t.Errorf("first status = %v, want %v", lg.Events[0].Status, tt.firstStatus)
			}
			if tt.network != "" {
				if got, _ := lg.Procs[0].EffectiveNetwork(); got != tt.network {
					t.Errorf("network = %q, want %q", got, tt.network)
				}
			}
			all := ""
			for _, f := range a.Findings {
				all += f.Summary + "\n"
				for _, e := range f.Evidence {
					all += e.Value + "\n"
				}
				if len(f.Evidence) == 0 || f.Subject.File == "" {
					t.Errorf("finding %s lacks evidence or file", f.ID)
				}
			}
			for _, s := range tt.summaryHas {
				if !strings.Contains(all, s) {
					t.Errorf("summaries lack %q:\n%s", s, all)
				}
			}
		})
	}
}

// What CheckLog reports per process, beyond findings.
func TestLogSummaries(t *testing.T) {
	r := parseLogFile(t, logData+"nccl392-roce-no-host-prefix.log")
	a := CheckLog(r, LogOptions{})
	if diff := cmp.Diff([]string{"NCCL_IB_DISABLE=0", "NCCL_IB_GID_INDEX=3"}, a.Procs[0].Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if s := a.Procs[0]; s.Channels != 2 || !s.Trees || s.Network != "IB" {
		t.Errorf("summary %+v", s)
	}
	m := CheckLog(parseLogFile(t, testsData+"meowth-oob-failed-socket.txt"), LogOptions{})
	if !slices.ContainsFunc(m.Notes, func(n string) bool {
		return strings.Contains(n, "1 other NCCL WARN line(s); the first, line 21: Could not find a path for pattern 4")
	}) {
		t.Errorf("notes = %q", m.Notes)
	}
}

// TestBadFamilyCauses: a peer address that is no IP address
// (NVIDIA/nccl-tests#294) is told about the unique ID and the MPI the
// test was built with, not about firewalls.
func TestBadFamilyCauses(t *testing.T) {
	lg, err := nccllog.Parse(strings.NewReader("h100-4:739787:739914 [1] misc/socket.cc:397 NCCL WARN Net : connecting to address  with family 33621 is neither AF_INET(2) nor AF_INET6(10)\nh100-4:739787:739914 [1] NCCL INFO bootstrap.cc:256 -> 3\n"), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	fs := CheckLog(lg, LogOptions{}).Findings
	if len(fs) != 1 || fs[0].ID != "nccl.connect_failed" {
		t.Fatalf("findings %+v", fs)
	}
	f := fs[0]
	if !strings.Contains(f.Summary, "did not share one NCCL unique ID") || !strings.Contains(strings.Join(f.Causes, " "), "MPI") || strings.Contains(strings.Join(f.Remedy, " "), "firewall") {
		t.Errorf("summary %q, causes %q, remedy %q", f.Summary, f.Causes, f.Remedy)
	}
}

// Log inputs built here change one line of a real log (nccl1537) to reach
// a rule the corpus lacks.
func TestLogRules(t *testing.T) {
	base := "hostname1:25668:27396 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB primaryip:10.10.10.10<0>\n" +
		"hostname1:25668:27396 [0] NCCL INFO Using network IB\n"
	tests := []struct {
		name  string
		input string
		opts  LogOptions
		want  []string
	}{
		{"healthy IB", base, LogOptions{ExpectIB: true}, nil},
		{"ib disabled by env", "gpu1:10:11 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n" +
			"gpu1:10:11 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\ngpu1:10:11 [0] NCCL INFO Using network Socket\n",
			LogOptions{}, []string{"nccl.ib_disabled/warning", "nccl.socket_fallback/warning"}},
		{"ib disabled on an RDMA node", "gpu1:10:11 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n" +
			"gpu1:10:11 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\ngpu1:10:11 [0] NCCL INFO Using network Socket\n",
			LogOptions{RDMAPresent: true}, []string{"nccl.ib_disabled/critical", "nccl.socket_fallback/critical"}},
		{"no IB device, NCCL_IB_DISABLE too (pytorch#82091)", "c1:34:34 [3] NCCL INFO P2P plugin IBext\nc1:34:34 [3] NCCL INFO NET/IB : No device found.\n" +
			"c1:34:34 [3] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\nc1:34:34 [3] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.8<0>\nc1:34:34 [3] NCCL INFO Using network Socket\n",
			LogOptions{}, []string{"nccl.socket_fallback/warning"}},
		{"socket list with lo beside eth0 (pytorch-operator#202)", "master-0:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0> [1]eth0:192.168.4.230<0>\n",
			LogOptions{}, []string{"nccl.socket_loopback/warning"}},
		{"socket list of lo only is a one-host job", "master-0:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n",
			LogOptions{}, nil},
		{"mixed ranks", base + "hostname2:1:2 [0] NCCL INFO NET/IB : No device found.\nhostname2:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n",
			LogOptions{}, []string{"nccl.socket_fallback/critical"}},
		{"flush only", base + "hostname1:25668:27396 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=5 opcode=0 len=0 vendor err 249 (Recv)\n",
			LogOptions{}, []string{"nccl.ibv_error/critical"}},
		{"async port error on two ranks", base + "hostname1:25668:27396 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error\n" +
			"hostname1:25669:27397 [1] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error\n",
			LogOptions{}, []string{"nccl.ib_async_event/critical"}},
		{"async catastrophic then the thread fails", base + "hostname1:25668:27396 [0] NCCL WARN NET/IB : mlx5_1:1 async fatal event: local catastrophic error\n" +
			"hostname1:25668:27396 [0] misc/ibvwrap.cc:220 NCCL WARN Call to ibv_get_async_event failed\n",
			LogOptions{}, []string{"nccl.ib_async_event/critical"}},
		{"async event NCCL does not name is a warning", base + "hostname1:25668:27396 [0] NCCL WARN NET/IB : mlx5_0:1 unknown event type (22)\n",
			LogOptions{}, []string{"nccl.ib_async_event/warning"}},
		{"async sm change is informational", base + "hostname1:25668:27396 [0] NCCL WARN NET/IB : mlx5_0:1 Got non-fatal async event: SM change(13)\n",
			LogOptions{}, []string{"nccl.ib_async_event/info"}},
		{"nccl timeout warn", base + "hostname1:25668:27396 [0] NCCL WARN Timeout waiting for connection\n", LogOptions{}, []string{"nccl.timeout/critical"}},
		// felixfu's notes (realworld-fresh14): NCCL 2.4.8 bootstrap over NET/Socket.
		{"bootstrap connect: no route to host", "localhost:3401:3401 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n" +
			"localhost:3401:3401 [0] NCCL INFO NET/Socket : Using [0]enp2s0:192.168.80.156<0>\n" +
			"localhost:3401:3443 [0] include/socket.h:390 NCCL WARN Connect to 192.168.80.157<34630> failed : No route to host\n" +
			"localhost:3401:3443 [0] NCCL INFO bootstrap.cc:100 -> 2\n" +
			"localhost:3401:3444 [0] include/socket.h:390 NCCL WARN Connect to 192.168.80.157<56617> failed : No route to host\n",
			LogOptions{}, []string{"nccl.connect_failed/critical", "nccl.ib_disabled/warning", "nccl.socket_fallback/warning"}},
		{"newer socket wording, connection refused", base + "hostname1:25668:27396 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<43211> failed : Connection refused\n",
			LogOptions{}, []string{"nccl.connect_failed/critical"}},
		{"a connect failure explains nccl-tests' system error", base + "hostname1:25668:27396 [0] misc/socket.cc:484 NCCL WARN Connect to 10.0.0.2<43211> failed : No route to host\n" +
			"hostname1: Test NCCL failure common.cu:345 'unhandled system error'\n",
			LogOptions{}, []string{"nccl.connect_failed/critical"}},
		// NVIDIA/nccl-tests#294: the peer address is not one.
		{"a peer address that is no IP address", base + "h100-4:739787:739914 [1] misc/socket.cc:397 NCCL WARN Net : connecting to address  with family 33621 is neither AF_INET(2) nor AF_INET6(10)\n",
			LogOptions{}, []string{"nccl.connect_failed/critical"}},
		{"connect timed out is not a collective timeout", base + "hostname1:25668:27396 [0] misc/socket.cc:484 NCCL WARN Connect to 10.0.0.2<43211> failed : Connection timed out\n",
			LogOptions{}, []string{"nccl.connect_failed/critical"}},
		// sglang issue 3820 (realworld-fresh21): newer socketPollConnect
		// wording, then the error return chain through bootstrap/init.
		{"socketPollConnect returned no route to host", "node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No route to host) errno 115(Operation now in progress)\n" +
			"node5:240:240 [6] NCCL INFO misc/socket.cc:570 -> 2\n" +
			"node5:240:240 [6] NCCL INFO bootstrap.cc:285 -> 2\n" +
			"node5:240:240 [6] NCCL INFO init.cc:1534 -> 2\n",
			LogOptions{}, []string{"nccl.connect_failed/critical"}},
		// horovod/horovod#210: NCCL 2.1, a peer reset the bootstrap connection on two ranks.
		{"old recv reset by peer", "ml-gpu-ser015:2123:2230 [3] include/socket.h:194 WARN Call to recv failed : Connection reset by peer\n" +
			"ml-gpu-ser015:2123:2230 [3] INFO transport/net_ib.cu:555 -> 2\n" +
			"ml-gpu-ser015:2123:2230 [3] INFO bootstrap.cu:169 -> 2\n" +
			"ml-gpu-ser015:2123:2230 [3] INFO init.cu:422 -> 2\n" +
			"ml-gpu-ser015:2121:2233 [1] include/socket.h:194 WARN Call to recv failed : Connection reset by peer\n" +
			"ml-gpu-ser015:2121:2233 [1] INFO init.cu:422 -> 2\n",
			LogOptions{}, []string{"nccl.connect_failed/critical"}},
		// NVIDIA/nccl#224: socket() refused in net_ib's connection setup.
		{"socket creation: address family not supported", "gpu7:4105:4372 [0] NCCL INFO Ring 00 : 1 -> 4 [receive] via NET/IB/1/GDRDMA\n" +
			"gpu7:4105:4372 [0] include/socket.h:318 NCCL WARN Net : Socket creation failed : Address family not supported by protocol\n" +
			"gpu7:4105:4372 [0] NCCL INFO transport/net_ib.cu:407 -> 2\n" +
			"gpu7:4105:4372 [0] NCCL INFO init.cu:334 -> 2\n",
			LogOptions{}, []string{"nccl.connect_failed/critical"}},
		// A peer that closed its connection after a verbs failure is the
		// failure's consequence (NVIDIA/nccl-tests#185); alone it is the fault.
		{"closed by peer after modify_qp failure", "dgxh100-3:225140:225289 [0] NCCL WARN Call to ibv_modify_qp failed with 101 Network is unreachable\n" +
			"dgxh100-3:225140:225289 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer dgxh100-3<41109>\n",
			LogOptions{}, []string{"nccl.resource_error/critical"}},
		{"closed by peer alone", "dgxh100-3:225140:225289 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer dgxh100-3<41109>\n",
			LogOptions{}, []string{"nccl.connect_failed/critical"}},
		// An error return chain out of init/bootstrap whose WARN no other
		// rule reads: the communicator was never built.
		{"init error chain after an unread warning", "h1:10:11 [0] misc/shmutils.cc:80 NCCL WARN Call to posix_fallocate failed : No space left on device\n" +
			"h1:10:11 [0] NCCL INFO misc/shmutils.cc:121 -> 2\n" +
			"h1:10:11 [0] NCCL INFO init.cc:1534 -> 2\n" +
			"h1:10:11 [0] NCCL INFO init.cc:1799 -> 2\n",
			LogOptions{}, []string{"nccl.call_failed/critical"}},
		{"old init.cu chain, no warning", "h2:20:21 [1] INFO bootstrap.cu:169 -> 3\nh2:20:21 [1] INFO init.cu:422 -> 3\n",
			LogOptions{}, []string{"nccl.call_failed/critical"}},
		// A chain through other files only is a failed call, not a failed
		// init (NVIDIA/nccl#697: NET/Socket channels, then "include/net.h:25
		// -> 2", "transport/net.cc:515 -> 2"); ncclInProgress is no failure.
		{"chain outside init", "h3:30:31 [0] NCCL INFO transport/net.cc:330 -> 2\n", LogOptions{}, []string{"nccl.call_failed/critical"}},
		{"in progress outside init", "h3:30:31 [0] NCCL INFO transport/net.cc:330 -> 7\n", LogOptions{}, nil},
		{"in progress is no failure", "h3:30:31 [0] NCCL INFO init.cc:1534 -> 7\n", LogOptions{}, nil},
		{"newest completion format", base + "hostname1:25668:27396 [0] net_ib.cc:1 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<1> with status=local protection error(4) opcode=RDMA_WRITE(1) vendor_err=81 hca mlx5_0\n",
			LogOptions{}, []string{"nccl.ibv_error/critical"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tt.input), "t.log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, tt.opts)
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%+v", diff, a.Findings)
			}
			if tt.name == "async port error on two ranks" {
				if sum := a.Findings[0].Summary; !strings.Contains(sum, `"port error" 2 times on hostname1 (2 processes: pid 25668, 25669)`) || !strings.Contains(sum, "link went down") {
					t.Errorf("summary %q", sum)
				}
			}
			if tt.name == "async catastrophic then the thread fails" {
				if f := a.Findings[0]; f.Subject.Device != "mlx5_1" || len(f.Evidence) != 2 || !strings.Contains(f.Summary, "device fatal") {
					t.Errorf("finding %+v", f)
				}
			}
			if tt.name == "bootstrap connect: no route to host" {
				if sum := a.Findings[0].Summary; !strings.Contains(sum, "192.168.80.157 (No route to host) 2 time(s)") || !strings.Contains(sum, "firewall") {
					t.Errorf("summary %q", sum)
				}
			}
			if tt.name == "socketPollConnect returned no route to host" {
				if sum := a.Findings[0].Summary; !strings.Contains(sum, "10.0.0.4 (No route to host) 1 time(s) from node5") || !strings.Contains(sum, "firewall") {
					t.Errorf("summary %q", sum)
				}
			}
			if tt.name == "init error chain after an unread warning" {
				f := a.Findings[0]
				if !strings.Contains(f.Summary, `"init.cc:1534 -> 2" ('unhandled system error') in 1 process(es) on h1`) || !strings.Contains(f.Summary, "posix_fallocate") ||
					len(f.Evidence) != 2 || f.Evidence[0].Source != "t.log:3" {
					t.Errorf("finding %+v", f)
				}
			}
			if tt.name == "closed by peer alone" {
				if sum := a.Findings[0].Summary; !strings.Contains(sum, "recv() failed (Connection closed by remote peer) 1 time(s) with peer dgxh100-3 from dgxh100-3") {
					t.Errorf("summary %q", sum)
				}
			}
			if tt.name == "old recv reset by peer" {
				f := a.Findings[0]
				if !strings.Contains(f.Summary, "recv() failed (Connection reset by peer) 2 time(s) from ml-gpu-ser015") || !strings.Contains(f.Summary, "peer closed the connection") ||
					!strings.Contains(strings.Join(f.Causes, " "), "died or aborted first") {
					t.Errorf("finding %+v", f)
				}
			}
			if tt.name == "socket creation: address family not supported" {
				f := a.Findings[0]
				if !strings.Contains(f.Summary, "socket() failed (Address family not supported by protocol) 1 time(s) from gpu7") ||
					!strings.Contains(strings.Join(f.Remedy, " "), "NCCL_SOCKET_FAMILY=AF_INET") {
					t.Errorf("finding %+v", f)
				}
			}
			if tt.name == "newer socket wording, connection refused" {
				if sum := a.Findings[0].Summary; !strings.Contains(sum, "10.0.0.2 (Connection refused)") || !strings.Contains(sum, "nothing listens") {
					t.Errorf("summary %q", sum)
				}
			}
			if tt.name == "flush only" {
				if c := strings.Join(a.Findings[0].Causes, " "); !strings.Contains(c, "status 5: the QP had already entered the error state") || strings.Contains(c, "status 12") {
					t.Errorf("causes = %q", a.Findings[0].Causes)
				}
			}
			if tt.name == "newest completion format" {
				if c := strings.Join(a.Findings[0].Causes, " "); !strings.Contains(c, "status 4") || strings.Contains(c, "status 12") {
					t.Errorf("causes = %q", a.Findings[0].Causes)
				}
				e := lg.Events[0]
				if e.Status != nccllog.WCLocProtErr || e.HCA != "mlx5_0" || e.VendorErr != 81 || e.Opcode != 1 {
					t.Errorf("event %+v", e)
				}
			}
		})
	}
}

// FuzzCheckLog runs the rules over whatever the parser accepts.
func FuzzCheckLog(f *testing.F) {
	files, _ := filepath.Glob(logData + "*.log")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		lg, err := nccllog.Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		a := CheckLog(lg, LogOptions{ExpectIB: true})
		if len(a.Procs) != len(lg.Procs) {
			t.Fatalf("%d summaries for %d processes", len(a.Procs), len(lg.Procs))
		}
	})
}

// Logs of one job in separate files: one node fell back to sockets while
// the others use IB, which only the merged view can call a mixed job.
func TestMergeLogs(t *testing.T) {
	ib := parseLogFile(t, logData+"nccl-tests185-roce-init.log")
	sock := parseLogFile(t, testsData+"meowth-oob-failed-socket.txt")
	alone := CheckLog(sock, LogOptions{})
	if diff := cmp.Diff([]string{"nccl.socket_fallback/warning"}, ids(alone.Findings)); diff != "" {
		t.Errorf("alone (-want +got):\n%s", diff)
	}
	m := nccllog.Merge(ib, sock)
	a := CheckLog(m, LogOptions{})
	if diff := cmp.Diff([]string{"nccl.socket_fallback/critical"}, ids(a.Findings)); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
	f := a.Findings[0]
	if f.Subject.File != "meowth-oob-failed-socket.txt" || !strings.HasPrefix(f.Evidence[0].Source, "meowth-oob-failed-socket.txt:") ||
		!strings.Contains(f.Summary, "while 2 use IB/RoCE") || len(a.Procs) != 3 || a.Procs[2].Source != "meowth-oob-failed-socket.txt" {
		t.Errorf("merged finding %+v procs %+v", f, a.Procs)
	}
}

// TestSocketFallbackVariants: the wordings of a socket transport in real
// pastes (NVIDIA/nccl#690, #1653, #428, horovod/horovod#685,
// hiyouga/LlamaFactory#6111) and how much each matters. A job on one node
// gets a note, not a finding: its network transport carries nothing.
func TestSocketFallbackVariants(t *testing.T) {
	// bytedance/byteps#97: NCCL 2.3.7, six processes of one host, one
	// rank each, without libibverbs.
	const byteps97 = "ai-2080ti-18:5571:5571 [0] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]\n" +
		"ai-2080ti-18:5571:5571 [0] NCCL INFO Using internal Network Socket\n" +
		"NCCL version 2.3.7+cuda9.0\n" +
		"ai-2080ti-18:5571:5571 [0] NCCL INFO rank 0 nranks 6\n" +
		"ai-2080ti-18:5574:5574 [1] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]\n" +
		"ai-2080ti-18:5574:5574 [1] NCCL INFO Using internal Network Socket\n" +
		"ai-2080ti-18:5574:5574 [1] NCCL INFO rank 1 nranks 6\n" +
		"ai-2080ti-18:5584:5584 [5] NCCL INFO comm 0x19b0d460 rank 5 nranks 6\n" +
		"ai-2080ti-18:5580:5580 [3] NCCL INFO comm 0x196ed780 rank 3 nranks 6\n" +
		"ai-2080ti-18:5580:5580 [3] NCCL INFO NET : Using interface ib0:fe80::ee0d:9a03:9c:e0b2%ib0<0>\n" +
		"ai-2080ti-18:5579:5579 [2] NCCL INFO comm 0x1ab12940 rank 2 nranks 6\n" +
		"ai-2080ti-18:5583:5583 [4] NCCL INFO comm 0x1921dc90 rank 4 nranks 6\n" +
		"ai-2080ti-18:5571:5571 [0] NCCL INFO comm 0x1a7cf280 rank 0 nranks 6\n" +
		"ai-2080ti-18:5574:5574 [1] NCCL INFO comm 0x195e9fb0 rank 1 nranks 6\n"
	// horovod/horovod#969: NCCL 2.3.7 under mpirun, ranks 0, 2 and 3 of
	// 4 on ptv-gpu01 (the paste is cut before rank 1's lines).
	const horovod969 = "ptv-gpu01:11007:11098 [0] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]\n" +
		"ptv-gpu01:11007:11098 [0] NCCL INFO Using internal Network Socket\n" +
		"ptv-gpu01:11007:11098 [0] NCCL INFO NET : Using interface enp14s0:10.128.5.150<0>\n" +
		"ptv-gpu01:11007:11098 [0] NCCL INFO NET/Socket : 3 interfaces found\n" +
		"NCCL version 2.3.7+cuda9.0\n" +
		"ptv-gpu01:11007:11098 [0] NCCL INFO rank 0 nranks 4\n" +
		"ptv-gpu01:11009:11097 [2] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]\n" +
		"ptv-gpu01:11009:11097 [2] NCCL INFO Using internal Network Socket\n" +
		"ptv-gpu01:11009:11097 [2] NCCL INFO rank 2 nranks 4\n" +
		"ptv-gpu01:11010:11095 [3] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]\n" +
		"ptv-gpu01:11010:11095 [3] NCCL INFO Using internal Network Socket\n" +
		"ptv-gpu01:11010:11095 [3] NCCL INFO rank 3 nranks 4\n"
	// NVIDIA/nccl#428 (comment by woodlgz, 2020-12-04): all_reduce_perf
	// -g 2 in one process, whose rank list puts both ranks on this host.
	const nccl428 = "ai-vtraining-prd-10-193-84-3:93569:93569 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n" +
		"ai-vtraining-prd-10-193-84-3:93569:93569 [0] NCCL INFO NET/Socket : Using [0]em1:10.193.84.3<0> [1]tunl0:10.227.47.12<0>\n" +
		"ai-vtraining-prd-10-193-84-3:93569:93569 [0] NCCL INFO Using network Socket\n"
	// NVIDIA/nccl#300 (description by cofiiwu): NCCL 2.5.6 under mpirun
	// in one container, every rank bootstrapping on lo.
	const nccl300 = "[1,0]<stdout>:5873af64cf59:10158:10560 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n" +
		"[1,0]<stdout>:5873af64cf59:10158:10560 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation\n" +
		"[1,0]<stdout>:5873af64cf59:10158:10560 [0] NCCL INFO NET/IB : No device found.\n" +
		"[1,0]<stdout>:5873af64cf59:10158:10560 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n" +
		"[1,3]<stdout>:5873af64cf59:10161:10551 [3] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n" +
		"[1,3]<stdout>:5873af64cf59:10161:10551 [3] NCCL INFO NET/IB : No device found.\n" +
		"[1,3]<stdout>:5873af64cf59:10161:10551 [3] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n"
	for _, tc := range []struct {
		name, in string
		opts     LogOptions
		want     []string
		has      []string
	}{
		{"every process bootstraps on lo", nccl300, LogOptions{},
			nil, []string{"one node (every process bootstraps on the loopback interface"}},
		{"one process bootstraps on lo, another on eth0", nccl300 + "other:1:2 [1] NCCL INFO Bootstrap : Using [0]eth0:10.0.0.2<0>\nother:1:2 [1] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n", LogOptions{},
			[]string{"nccl.socket_fallback/warning"}, nil},
		{"one process without a bootstrap line", nccl300 + "other:1:2 [1] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n", LogOptions{},
			[]string{"nccl.socket_fallback/warning"}, nil},
		{"every process bootstraps on lo, no IB device only", "h:1:2 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\nh:1:2 [0] NCCL INFO NET/IB : No device found.\n", LogOptions{},
			nil, []string{"one node (every process bootstraps on the loopback interface"}},
		{"one host by the rank list, libibverbs missing", nccl428, LogOptions{OneHost: "ai-vtraining-prd-10-193-84-3"},
			nil, []string{"one node (all ranks on ai-vtraining-prd-10-193-84-3)", "libibverbs could not be loaded", ":3:"}},
		{"rank list on one host, the log on another", nccl428 + "other:1:1 [0] NCCL INFO Using network Socket\n", LogOptions{OneHost: "ai-vtraining-prd-10-193-84-3"},
			[]string{"nccl.socket_fallback/warning"}, nil},
		{"no rank list", nccl428, LogOptions{},
			[]string{"nccl.socket_fallback/warning"}, []string{"fine only for a cluster without RDMA"}},
		{"one host by the rank list, no IB device", "h:1:2 [0] NCCL INFO NET/IB : No device found.\n", LogOptions{OneHost: "h"},
			nil, []string{"one node (all ranks on h)", "log:1:"}},
		// hiyouga/LlamaFactory#6111: the IB transport's own wording of
		// NCCL_IB_HCA.
		{"sockets with NCCL_IB_HCA set (net_ib wording)",
			"[0] NCCL INFO NCCL_IB_HCA set to mlx5_0:1,mlx5_1:1\n[0] NCCL INFO NET/IB : No device found.\n[0] NCCL INFO Using network Socket\n", LogOptions{},
			[]string{"nccl.socket_fallback/critical"}, []string{"the environment asks for IB (NCCL_IB_HCA set by environment to mlx5_0:1,mlx5_1:1)"}},
		{"one side IB, the other Socket (WARN libibverbs)",
			"x1:870114:870114 [1] NCCL INFO Using network IB\nx0:26431:26431 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\nx0:26431:26431 [0] NCCL INFO Using network Socket\n",
			LogOptions{}, []string{"nccl.socket_fallback/critical"}, []string{"while 1 use IB/RoCE", "libibverbs could not be loaded", "x1:870114: network IB"}},
		{"single node (nNodes 1) on sockets",
			"D:1689:2800 [0] NCCL INFO Failed to open libibverbs.so[.1]\nD:1689:2800 [0] NCCL INFO NET/Socket : Using [0]eth0:172.21.131.59<0>\nD:1689:2800 [0] NCCL INFO Using network Socket\nD:1689:2800 [0] NCCL INFO comm 0x562f744f9960 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n",
			LogOptions{}, nil, []string{"one node (nNodes 1)", "libibverbs could not be loaded"}},
		{"two nodes on sockets",
			"x:1:2 [0] NCCL INFO NET/IB : No device found.\nx:1:2 [0] NCCL INFO Using network Socket\nx:1:2 [0] NCCL INFO comm 0x555e7b78acb0 rank 6 nRanks 8 nNodes 2 localRanks 4 localRank 2 MNNVL 0\n",
			LogOptions{}, []string{"nccl.socket_fallback/warning"}, []string{"NCCL found no IB device", "NET/IB : No device found."}},
		// bytedance/byteps#97: NCCL 2.3.7 logs no nNodes, but its six
		// ranks are all on one host; without rank 5 (or with a second
		// host, or a larger communicator) the job may span nodes, and
		// rank 3's "NET : Using interface ib0:…" shows the host has an
		// InfiniBand HCA it does not use: critical.
		{"NCCL 2.3.7, every rank on one host", byteps97, LogOptions{},
			nil, []string{"one node (all 6 ranks on ai-2080ti-18)", "libibverbs could not be loaded"}},
		{"NCCL 2.3.7, a rank missing", strings.Replace(byteps97, "comm 0x19b0d460 rank 5 nranks 6", "comm 0x19b0d460 rank 4 nranks 6", 1), LogOptions{},
			[]string{"nccl.socket_fallback/critical"}, []string{"over the IPoIB interface ib0"}},
		{"NCCL 2.3.7, a rank on another host", strings.Replace(byteps97, "ai-2080ti-18:5584:5584 [5] NCCL INFO comm", "ai-2080ti-19:5584:5584 [5] NCCL INFO comm", 1), LogOptions{},
			[]string{"nccl.socket_fallback/critical"}, []string{"over the IPoIB interface ib0"}},
		// horovod/horovod#969: the paste stops before rank 1; ranks 0, 2
		// and 3 of 4 on one host leave rank 1 nowhere else under block
		// or round-robin placement. Ranks 0 and 2 of 3 do not (round-robin
		// over two nodes puts rank 1 on the other).
		{"NCCL 2.3.7, ranks 0, 2, 3 of 4 on one host", horovod969, LogOptions{},
			nil, []string{"one node (3 of 4 ranks shown, the first and the last among them, all on ptv-gpu01", "libibverbs could not be loaded"}},
		{"ranks 0 and 2 of 3 on one host", strings.ReplaceAll(horovod969, "nranks 4", "nranks 3"), LogOptions{},
			[]string{"nccl.socket_fallback/warning"}, nil},
		{"ranks 0, 2 of 4 on one host (the last missing)", strings.Replace(horovod969, "rank 3 nranks 4", "rank 2 nranks 4", 1), LogOptions{},
			[]string{"nccl.socket_fallback/warning"}, nil},
		{"every rank on hosts all named localhost", strings.ReplaceAll(byteps97, "ai-2080ti-18:", "localhost:"), LogOptions{},
			[]string{"nccl.socket_fallback/warning"}, nil},
		{"six ranks of a twelve-rank world on one host", byteps97 + "ai-2080ti-18:5571:5571 [0] NCCL INFO comm 0x2a7cf280 rank 0 nranks 12\n", LogOptions{},
			[]string{"nccl.socket_fallback/critical"}, []string{"over the IPoIB interface ib0"}},
		{"NCCL 2.3 wording",
			"ml3:32632:32662 [0] NCCL INFO NET : Using interface enp0s31f6:10.92.42.96<0>\nml3:32632:32662 [0] NCCL INFO Net/IB: call to devices() returned 0 devices.\nml3:32632:32662 [0] NCCL INFO Using network Socket\n",
			LogOptions{}, []string{"nccl.socket_fallback/warning"}, []string{"Net/IB: call to devices() returned 0 devices."}},
		// pytorch/pytorch#111424: the log stops after these two lines;
		// no plugin, no "Using network": NCCL went on over sockets, and
		// NCCL_IB_DISABLE=0 says IB was meant.
		{"no IB device, IB asked for",
			"node013:37715:38896 [0] NCCL INFO NET/IB : No device found.\nnode013:37715:38896 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n",
			LogOptions{}, []string{"nccl.socket_fallback/critical"}, []string{"NCCL found no IB device", "NCCL_IB_DISABLE set by environment to 0"}},
		{"no IB device alone",
			"node013:37715:38896 [0] NCCL INFO NET/IB : No device found.\n",
			LogOptions{}, []string{"nccl.socket_fallback/warning"}, []string{"shows no net plugin", "NET/IB : No device found."}},
		{"no IB device, NCCL_IB_HCA set",
			"h:1:2 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\nh:1:2 [0] NCCL INFO NET/IB : No device found.\n",
			LogOptions{}, []string{"nccl.socket_fallback/critical"}, []string{"NCCL_IB_HCA set by environment to mlx5_0"}},
		{"no IB device on one node",
			"h:1:2 [0] NCCL INFO NET/IB : No device found.\nh:1:2 [0] NCCL INFO comm 0x555e7b78acb0 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n",
			LogOptions{}, nil, []string{"one node (nNodes 1)"}},
		{"no IB device, plugin loaded",
			"h:1:2 [0] NCCL INFO NET/Plugin: Loaded net plugin AWS Libfabric (v5)\nh:1:2 [0] NCCL INFO NET/IB : No device found.\nh:1:2 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n",
			LogOptions{}, nil, nil},
		{"sockets with NCCL_IB_HCA set",
			"x:1:2 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\nx:1:2 [0] NCCL INFO NET/IB : No device found.\nx:1:2 [0] NCCL INFO Using network Socket\n",
			LogOptions{}, []string{"nccl.socket_fallback/critical"}, []string{"the environment asks for IB (NCCL_IB_HCA set by environment to mlx5_0)"}},
		{"net plugin is not a socket fallback",
			"h:1:2 [0] NCCL INFO NET/IB : No device found.\nh:1:2 [0] NCCL INFO NET/OFI Selected Provider is efa\nh:1:2 [0] NCCL INFO Using network AWS Libfabric\n",
			LogOptions{}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tc.in), "log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, tc.opts)
			if diff := cmp.Diff(tc.want, ids(a.Findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			for _, h := range tc.has {
				// Without a finding, the note says it.
				text := strings.Join(a.Notes, "\n")
				if len(a.Findings) > 0 {
					f := a.Findings[0]
					text = f.Summary
					for _, e := range f.Evidence {
						text += "\n" + e.Value
					}
				}
				if !strings.Contains(text, h) {
					t.Errorf("finding lacks %q:\n%s", h, text)
				}
			}
		})
	}
}

// TestWatchdogWordings: PyTorch's watchdog lines in the wordings of its
// releases, with the rank in "[PG ID 0 PG GUID 0(default_pg) Rank 1]" or
// the "[rank1]:" prefix, glued to a tqdm bar, and a rank that printed only
// "detected by watchdog at work: N".
func TestWatchdogWordings(t *testing.T) {
	in := "[rank1]:[E1201 10:00:00.123456 1234 ProcessGroupNCCL.cpp:632] [PG ID 0 PG GUID 0(default_pg) Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600054 milliseconds before timing out.\n" +
		"[rank1]:[E1201 10:00:00.223456 1234 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either an error or timeout) detected by watchdog at work: 808, last enqueued NCCL work: 808, last completed NCCL work: 807.\n" +
		" 45%|████▌     | 450/1000 [10:00<12:13,  1.33s/it][E ProcessGroupNCCL.cpp:737] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600512 milliseconds before timing out.\n" +
		"[rank3]:[E1201 10:00:00.323456 1234 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank 3] Exception (either an error or timeout) detected by watchdog at work: 805, last enqueued NCCL work: 806, last completed NCCL work: 804.\n"
	lg, err := nccllog.Parse(strings.NewReader(in), "w.log")
	if err != nil {
		t.Fatal(err)
	}
	var ranks []int
	for _, e := range lg.Events {
		ranks = append(ranks, e.Rank)
	}
	if !slices.Equal(ranks, []int{1, 1, 2, 3}) {
		t.Errorf("ranks %v, want 1 1 2 3", ranks)
	}
	a := CheckLog(lg, LogOptions{})
	if diff := cmp.Diff([]string{"nccl.timeout/critical"}, ids(a.Findings)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for _, h := range []string{"ALLREDUCE SeqNum=808 on rank(s) 1,2", "a collective SeqNum=805 on rank(s) 3", "rank(s) 3 lag the others (SeqNum 805, the rest reached 808)"} {
		if !strings.Contains(a.Findings[0].Summary, h) {
			t.Errorf("summary lacks %q: %s", h, a.Findings[0].Summary)
		}
	}
}

// TestHeartbeatTimeout: PyTorch's heartbeat monitor report (the
// ProcessGroupNCCL watchdog got stuck; the lines of om-ai-lab/VLM-R1#257,
// hard-wrapped mid-word as pasted) is a critical timeout of the rank it
// names, with the seconds; ranks that reported it are listed together.
func TestHeartbeatTimeout(t *testing.T) {
	tests := []struct {
		name, in  string
		rank, has string
	}{
		{"wrapped, one rank", "[rank6]:[E429 13:55:49.384372190 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 6] ProcessGroupNCCL'\n" +
			"s watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This typically indi\n",
			"6", "rank(s) 6: PyTorch's heartbeat monitor found the ProcessGroupNCCL watchdog got stuck for 480 s"},
		{"two ranks, old wording", "[rank1]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1\n" +
			"[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1\n",
			"0,1", "rank(s) 0,1: PyTorch's heartbeat monitor found the ProcessGroupNCCL watchdog stopped making progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tt.in), "w.log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff([]string{"nccl.timeout/critical"}, ids(a.Findings)); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			f := a.Findings[0]
			if f.Subject.Rank != tt.rank || !strings.Contains(f.Summary, tt.has) {
				t.Errorf("rank %q summary %q, want rank %q and %q", f.Subject.Rank, f.Summary, tt.rank, tt.has)
			}
		})
	}
}

// TestGDROneNode: GPU Direct RDMA disabled matters only where NCCL's
// network transport carries traffic, between nodes. The one-node lines
// are from an all_reduce_perf log of two A100 PCIe on one host
// (github.com/Timez-zx/nccl-tests, nccl.log, NCCL 2.27.7).
func TestGDROneNode(t *testing.T) {
	const (
		ib   = "mew0:64904:64920 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eno8303:192.168.0.3<0>\nmew0:64904:64920 [0] NCCL INFO Using network IB\n"
		off  = "mew0:64904:64920 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\nmew0:64904:64920 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'\n"
		one  = "mew0:64904:64920 [0] NCCL INFO comm 0x55b6aa64a990 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"
		two  = "mew0:64904:64920 [0] NCCL INFO comm 0x55b6aa64a990 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n"
		note = "the job runs on one node (nNodes 1)"
	)
	tests := []struct {
		name  string
		input string
		opts  LogOptions
		want  []string
		note  bool
	}{
		{"one node (nNodes 1): a note", ib + off + one, LogOptions{}, nil, true},
		{"two nodes: a warning", ib + off + two, LogOptions{}, []string{"nccl.gdr_disabled/warning"}, false},
		{"nodes not logged: a warning", ib + off, LogOptions{}, []string{"nccl.gdr_disabled/warning"}, false},
		{"one node named by another output: a note", ib + off, LogOptions{OneHost: "mew0"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tt.input), "nccl.log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, tt.opts)
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			gdrNote := slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, "GPU Direct RDMA disabled") })
			if gdrNote != (tt.want == nil) {
				t.Errorf("GPU Direct RDMA note %v, want %v: %q", gdrNote, tt.want == nil, a.Notes)
			}
			if tt.note && !slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, note) && strings.Contains(n, "nccl.log:3:") }) {
				t.Errorf("notes %q lack %q at nccl.log:3 (the first GPU Direct RDMA line)", a.Notes, note)
			}
		})
	}
}

// TestGDRUnused: a log without "GPU Direct RDMA Enabled/Disabled" lines
// whose network connections all lack "/GDRDMA" stages every transfer
// through host memory. The lines are from a 2-node x 1 H100 all_reduce_perf
// over one RoCE HCA (github.com/tssala23/moc-training-scripts, NCCL
// 2.26.2): "via NET/IB/1", "Connected all rings, use ring PXN 0 GDR 0",
// DMA-BUF available. One connection with /GDRDMA, one node, or P2P
// connections only are no finding.
func TestGDRUnused(t *testing.T) {
	const (
		pre  = "MOC-R4PCC04U37:574691:574714 [0] NCCL INFO "
		ib   = pre + "NET/IB : Using [0]mlx5_5:1/RoCE [RO]; OOB eno7np0:169.254.103.56<0>\n" + pre + "Using network IB\n"
		dma  = pre + "DMA-BUF is available on GPU device 0\n"
		two  = pre + "comm 0x387d330 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
		one  = pre + "comm 0x387d330 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"
		recv = pre + "Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/1\n"
		send = pre + "Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/1\n"
		gdr  = pre + "Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/1/GDRDMA\n"
		p2p  = pre + "Channel 00/0 : 0[0] -> 1[0] via P2P/IPC\n"
		ring = pre + "Connected all rings, use ring PXN 0 GDR 0\n"
	)
	tests := []struct {
		name, input string
		want        []string
		has         []string // in the summary
		note        bool
	}{
		{"two nodes, GDR 0, DMA-BUF", ib + dma + two + recv + send + ring, []string{"nccl.gdr_disabled/warning"},
			[]string{"the communicator says GDR 0 and no connection over NET/IB carries /GDRDMA", "DMA-BUF is available", "too far apart in PCIe"}, false},
		{"two nodes, no ring line, no DMA-BUF", ib + two + recv + send, []string{"nccl.gdr_disabled/warning"},
			[]string{"no connection over NET/IB carries /GDRDMA", "nvidia-peermem not loaded"}, false},
		{"receive side with GDRDMA", ib + two + gdr + send + ring, nil, nil, false},
		{"one node", ib + one + recv + send + ring, nil, nil, true},
		{"GDR 0 over P2P only", ib + two + p2p + ring, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tt.input), "nccl.log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			for _, h := range tt.has {
				if !strings.Contains(a.Findings[0].Summary, h) {
					t.Errorf("summary lacks %q: %s", h, a.Findings[0].Summary)
				}
			}
			if n := slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, "NCCL uses no GPU Direct RDMA") }); n != tt.note {
				t.Errorf("one-node note %v, want %v: %q", n, tt.note, a.Notes)
			}
		})
	}
}

// TestCallFailed: nccl-tests stopping on a failed NCCL call with nothing
// above it (NVIDIA/nccl-tests#36) is nccl.call_failed, naming the error,
// the hosts and the NCCL WARN that came first when there is one; after a
// completion error (NVIDIA/nccl-tests#24) the failure is that error's
// consequence and only nccl.ibv_error is reported.
func TestCallFailed(t *testing.T) {
	const fail36 = "pkb-aa8dbd1b-1: Test NCCL failure common.cu:345 'unhandled system error'\n" +
		" .. pkb-aa8dbd1b-1: Test failure common.cu:393\n" +
		"pkb-aa8dbd1b-0: Test NCCL failure common.cu:345 'unhandled system error'\n"
	tests := []struct {
		name, in string
		want     []string
		says     []string
	}{
		{"failure alone", fail36, []string{"nccl.call_failed/critical"},
			[]string{"an NCCL call failed with 'unhandled system error' on pkb-aa8dbd1b-1, pkb-aa8dbd1b-0", "ncclSystemError", "rerun with NCCL_DEBUG=WARN"}},
		{"after a CUDA warning", "gpu5:35917:35917 [1] init.cu:194 NCCL WARN Cuda failure 'an illegal memory access was encountered'\ngpu5: Test NCCL failure common.cu:343 'unhandled cuda error'\n",
			[]string{"nccl.call_failed/critical"}, []string{"'unhandled cuda error' on gpu5", "NCCL warned first (line 1): Cuda failure 'an illegal memory access was encountered'"}},
		{"error return outside init", "dgxa100:1050:1316 [0] NCCL INFO include/net.h:25 -> 2\ndgxa100:1050:1316 [0] NCCL INFO transport/net.cc:515 -> 2\n",
			[]string{"nccl.call_failed/critical"}, []string{`a call inside NCCL failed: its error return trace shows "include/net.h:25 -> 2" ('unhandled system error') in 1 process(es) on dgxa100`}},
		// realworld-fresh57 README: nccl-log-dcgm304-nvls-multicast-bind-cuda-401.txt.
		{"NVLS multicast bind", "gpu-stress-dgc86-xfpt6:420:437 [5] transport/nvls.cc:379 (nvlsAllocateMem) NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.\n",
			[]string{"nccl.call_failed/critical"}, []string{"cuMulticastBindMem returned CUDA error 401 'the operation cannot be performed in the present state'", "NCCL_NVLS_ENABLE=0", "on gpu-stress-dgc86-xfpt6"}},
		{"NVLS multicast bind, newer wording", "h1:1:2 [0] NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 4194304 at MC group 7f00 offset 0 : CUDA error 1 'invalid argument'.\n",
			[]string{"nccl.call_failed/critical"}, []string{"returned CUDA error 1 'invalid argument'"}},
		{"CUDA check", "node1: Test CUDA failure common.cu:892 'out of memory'\n", []string{"nccl.call_failed/critical"}, []string{"a CUDA call failed with 'out of memory' on node1"}},
		{"after a completion error", "gpu5:35917:35994 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129\ngpu5: Test NCCL failure common.cu:343 'unhandled system error'\n",
			[]string{"nccl.ibv_error/critical"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tt.in), "p.log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			for _, s := range tt.says {
				if !strings.Contains(a.Findings[0].Summary, s) {
					t.Errorf("summary lacks %q: %s", s, a.Findings[0].Summary)
				}
			}
		})
	}
}

// TestResourceHintModifyQPInvalid: NVIDIA/nccl#622 (Intel E810 RoCE):
// "misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error
// Invalid argument" says the driver refused the QP's attributes, not that
// resources ran out.
func TestResourceHintModifyQPInvalid(t *testing.T) {
	lg, err := nccllog.Parse(strings.NewReader("machine1:196207:196244 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error Invalid argument\nmachine1:196207:196244 [0] NCCL INFO transport/net_ib.cc:415 -> 2\n"), "p.log")
	if err != nil {
		t.Fatal(err)
	}
	a := CheckLog(lg, LogOptions{})
	if diff := cmp.Diff([]string{"nccl.resource_error/critical"}, ids(a.Findings)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for _, h := range []string{"ibv_modify_qp", "refused the QP's attributes", "NCCL_IB_GID_INDEX"} {
		if !strings.Contains(a.Findings[0].Summary, h) {
			t.Errorf("summary lacks %q: %s", h, a.Findings[0].Summary)
		}
	}
}

// TestUnclassifiedWarn: WARN lines no rule reads are a warning when the
// log holds nothing worse, and a note beside a finding that explains the
// job's trouble. The lines are real: graph/search.cc from
// NVIDIA/nccl-tests#131 (Meowth), proxy.cc from NVIDIA/nccl-tests#185.
func TestUnclassifiedWarn(t *testing.T) {
	const pattern = "Meowth:8756:8772 [1] graph/search.cc:890 NCCL WARN Could not find a path for pattern 4, falling back to simple order\n"
	const proxy = "dgxh100-3:225140:225355 [0] proxy.cc:1519 NCCL WARN [Proxy Service 1] Failed to execute operation Connect from rank 1, retcode 2\n"
	const ibvErr = "gpu5:35917:35994 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129\n"
	tests := []struct {
		name, in string
		want     []string
		says     []string // in the first finding's summary
		note     string   // in a note
	}{
		{"one unknown warning", pattern, []string{"nccl.warned/warning"},
			[]string{"1 WARN line(s) (1 distinct)", "on Meowth", "line 1: Could not find a path for pattern 4"}, ""},
		{"two hosts, repeated", pattern + proxy + pattern, []string{"nccl.warned/warning"},
			[]string{"3 WARN line(s) (2 distinct)", "on Meowth, dgxh100-3"}, ""},
		{"beside a completion error", ibvErr + proxy, []string{"nccl.ibv_error/critical"}, nil,
			"1 other NCCL WARN line(s); the first, line 2: [Proxy Service 1] Failed to execute operation Connect"},
		{"no warning at all", "Meowth:8756:8756 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n", nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tt.in), "p.log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			for _, s := range tt.says {
				if !strings.Contains(a.Findings[0].Summary, s) {
					t.Errorf("summary lacks %q: %s", s, a.Findings[0].Summary)
				}
			}
			if tt.note != "" && !slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Errorf("notes lack %q: %q", tt.note, a.Notes)
			}
			if len(tt.want) > 0 && tt.want[0] == "nccl.warned/warning" && slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, "other NCCL WARN") }) {
				t.Errorf("the warning lines are both a finding and a note: %q", a.Notes)
			}
		})
	}
}
