package ucxlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

func parseFile(t *testing.T, name string) *Log {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lg, err := Parse(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

// TestRealCompletions: the completion errors of real UCX pastes, decoded
// to their device, port, syndrome and ibv_wc_status, with the peer LID of
// the WQE dump that follows.
func TestRealCompletions(t *testing.T) {
	tests := []struct {
		file string
		n    int
		// want describes the first completion.
		want string
	}{
		{"ucx5199-retry-dci.log", 4, "master:19546 mlx5_0/1 IB synd 0x15 vend 0x81 status 12 lid 703 \"Transport retry count exceeded\""},
		{"ucx9590-retry-cut-bracket.log", 2, "lxbk1127:2330856 mlx5_0/1 IB synd 0x15 vend 0x81 status 12 lid 1037 \"Transport retry count exceeded\""},
		{"ucx9515-local-protection-gdr.log", 1, "a670n1:162239 mlx5_0/1 IB synd 0x4 vend 0x51 status 4 lid 12 \"Local protection\""},
		{"ucx5472-remote-qp-synd14.log", 1, "sh03-01n01:26318 mlx5_0/1 IB synd 0x14 vend 0x89 status 11 lid 99 \"Remote QP\""},
		{"ucx2973-old-fatal-error-on.log", 1, "ast1815:6807 mlx5_3/1  synd 0x15 vend 0x81 status 12 lid 0 \"Transport retry count exceeded\""},
		{"ucx857-verbs-send-completion.log", 2, "softiron-2:2132 /0  synd 0x0 vend 0x0 status 2 lid 0 \"local QP operation error\""},
		{"ucx7774-verbs-vendor-err.log", 1, "swx-rdmz-ucx-gpu-02:1884 /0  synd 0x0 vend 0x51 status 4 lid 0 \"local protection error\""},
		{"ucx1569-dc-verbs-on-qp.log", 1, "vegas06:14879 /0  synd 0x0 vend 0x88 status 10 lid 0 \"remote access error\""},
		{"ucx8487-flush-endpoint-timeout.log", 0, ""},
		{"ucx10451-devx-remote-io.log", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			lg := parseFile(t, tt.file)
			if len(lg.Completions) != tt.n {
				t.Fatalf("%d completions, want %d", len(lg.Completions), tt.n)
			}
			if tt.n == 0 {
				return
			}
			c := lg.Completions[0]
			got := fmt.Sprintf("%s %s/%d %s synd %#x vend %#x status %d lid %d %q", c.Record.Proc(), c.Device, c.Port, c.LinkLayer, c.Syndrome, c.Vendor, int(c.Status), c.RemoteLID, c.What)
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestRealRecords: every UCX line of the pastes is read with its level,
// process and source location; backtraces and other programs' lines are
// passed over.
func TestRealRecords(t *testing.T) {
	tests := []struct {
		file    string
		records int
		levels  string // the levels of the records, in order
		first   string // proc file:line of the first record
	}{
		{"ucx5199-retry-dci.log", 8, "FATAL FATAL FATAL FATAL FATAL FATAL FATAL FATAL", "master:19546 ib_mlx5_log.c:139"},
		{"ucx9515-local-protection-gdr.log", 4, "INFO DIAG FATAL FATAL", "a670n1:162239 ucp_worker.c:1855"},
		{"ucx5472-remote-qp-synd14.log", 2, "FATAL FATAL", "sh03-01n01:26318 ib_mlx5_log.c:139"},
		{"ucx857-verbs-send-completion.log", 3, "ERROR ERROR WARN", "softiron-2:2132 rc_verbs_iface.c:47"},
		{"ucx8487-flush-endpoint-timeout.log", 3, "ERROR ERROR ERROR", "vhost-node1:1499693 flush.c:26"},
		{"ucx6253-ud-fatal-endpoint-timeout.log", 1, "FATAL", "compute-0-20:9358 ud_iface.c:737"},
		{"ucx7785-ud-unhandled-timeout.log", 1, "FATAL", "mu01:17626 ud_ep.c:270"},
		{"ucx10738-unreachable-perftest.log", 3, "ERROR ERROR ERROR", "TENCENT64:1392 select.c:649"},
		{"ucx10451-devx-remote-io.log", 3, "ERROR ERROR ERROR", "cn0244:260472 ib_mlx5_dv.c:430"},
		{"ucx3513-tcp-unreachable.log", 3, "ERROR ERROR ERROR", "jazz04:185061 spml_ucx.c:264"},
		// Behind Open MPI's --timestamp-output --tag-output prefix.
		// Quoted and cut to the source location (ai-dynamo/dynamo#1209).
		{"dynamo1209-net-device-not-available.log", 1, "WARN", " ucp_context.c:1321"},
		{"ucx1881-tag-timestamp-output.log", 3, "ERROR ERROR ERROR", "clx-hercules-012:26727 ucp_worker.c:373"},
		{"ucx3087-ud-fatal-tag-output.log", 2, "FATAL FATAL", "hpc-polar-01-vm001:13210 ud_iface.c:732"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			lg := parseFile(t, tt.file)
			var lv []string
			for _, r := range lg.Records {
				lv = append(lv, string(r.Level))
			}
			if len(lg.Records) != tt.records || strings.Join(lv, " ") != tt.levels {
				t.Errorf("records %d %v, want %d %s", len(lg.Records), lv, tt.records, tt.levels)
			}
			r := lg.Records[0]
			if got := fmt.Sprintf("%s %s:%d", r.Proc(), r.File, r.SrcLine); got != tt.first {
				t.Errorf("first record %s, want %s", got, tt.first)
			}
		})
	}
	lg := parseFile(t, "ucx8487-flush-endpoint-timeout.log")
	if r := lg.Records[0]; r.Time != 1661938336.553723 || !strings.HasPrefix(r.Msg, "req 0x7fc2d40b3c00: error during flush: Endpoint timeout") {
		t.Errorf("time %f msg %q", r.Time, r.Msg)
	}
}

// TestNotUCX: lines of other tools that look alike are not UCX's.
func TestNotUCX(t *testing.T) {
	for _, l := range []string{
		"[   41.670135] pcieport 0000:00:1c.1: AER: Multiple Corrected error received: 0000:00:1c.1",
		"gpu01:1234:1234 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB",
		"[1,0]<stdout>:# OSU MPI Bandwidth Test",
		"==== backtrace (tid:  26318) ====",
		" 0  /share/software/user/open/ucx/1.8.1/lib/libucs.so.0(ucs_handle_error+0x1ac) [0x7f79af9b000c]",
		"[LOG_CAT_COMMPATTERNS]   isend failed in  comm_allreduce_pml at iterations 1",
		"[Fri Aug 29 20:09:52 2025] mlx5_core 0000:06:00.0: mlx5_cmd_check:795: failed",
		"[root@gpu17 ~]# ucx_info -d",
		"",
	} {
		if DetectLine(l) {
			t.Errorf("%q read as a UCX line", l)
		}
	}
	_, err := Parse(strings.NewReader("hello\nworld\n"), "x")
	var pe *ParseError
	if !errors.Is(err, ErrNoData) || !errors.As(err, &pe) || pe.Source != "x" {
		t.Errorf("err %v", err)
	}
}

// TestSyndromeStatus: the mlx5 syndromes decode as rdma-core's mlx5
// provider does.
func TestSyndromeStatus(t *testing.T) {
	for synd, want := range map[uint64]nccllog.WCStatus{0x15: nccllog.WCRetryExcErr, 0x16: nccllog.WCRNRRetryErr, 0x4: nccllog.WCLocProtErr, 0x13: nccllog.WCRemAccessErr, 0x5: nccllog.WCWRFlushErr} {
		if got, ok := SyndromeStatus(synd); !ok || got != want {
			t.Errorf("synd %#x: %v %v, want %v", synd, got, ok, want)
		}
	}
	if _, ok := SyndromeStatus(0x99); ok {
		t.Error("unknown syndrome decoded")
	}
}

// TestDetect: one error line is enough, one info line is not.
func TestDetect(t *testing.T) {
	if !Detect("[ast1815:6807 :0:6807] ib_mlx5_log.c:115  FATAL: Error on mlx5_3:1 QP 0xe6d7 wqe[7821]: Transport retry count exceeded (synd 0x15 vend 0x81) opcode SEND\n") {
		t.Error("one fatal line not detected")
	}
	if Detect("[1701292112.829711] [a670n1:162239:0]      ucp_worker.c:1855 UCX  INFO    0x100b240 inter-node cfg#3 tag(rc_mlx5/mlx5_0:1 rc_mlx5/mlx5_0:1)\n") {
		t.Error("one info line detected")
	}
}

// TestCutBracket: a fatal-handler line whose opening "[" the paste cut
// (openucx/ucx#7586) is still the process's completion error, decoded.
func TestCutBracket(t *testing.T) {
	in := "b5244:224582:0:224582] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)\n" +
		"[b5244:224582:0:224582] ib_mlx5_log.c:139  DCI QP 0x7fba wqe[266]: SEND s-e [rqpn 0xfec4 rlid 485] [va 0x0 len 586 lkey 0x2911]\n"
	if !DetectLine(strings.SplitN(in, "\n", 2)[0]) {
		t.Error("the cut line is not detected")
	}
	lg, err := Parse(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Completions) != 1 {
		t.Fatalf("completions %+v", lg.Completions)
	}
	c := lg.Completions[0]
	if got := fmt.Sprintf("%s %s:%d %d lid %d", c.Record.Proc(), c.Device, c.Port, int(c.Status), c.RemoteLID); got != "b5244:224582 mlx5_0:1 12 lid 485" {
		t.Errorf("completion %s", got)
	}
}

// TestNoPrefix: UCX's transport lines pasted without the [host:pid]
// prefix and without the level (openucx/ucx#5634) are read by their
// source file, UCX's own; another program's "file.c:line message" is not.
func TestNoPrefix(t *testing.T) {
	in := "ib_mlx5_log.c:132  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)\n" +
		"ib_mlx5_log.c:132  RC QP 0x3340 wqe[687]: RDMA_READ s-- [rva 0x7fca6ecf2600 rkey 0x46c894] [va 0x7f51a90a5000 len 68992 lkey 0x640d6d]\n"
	if !Detect(in) {
		t.Fatal("not detected")
	}
	lg, err := Parse(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Completions) != 1 || lg.Completions[0].Device != "mlx5_0" || lg.Completions[0].Port != 1 || lg.Completions[0].QP == "" {
		t.Fatalf("completions %+v", lg.Completions)
	}
	for _, l := range []string{"main.c:12  Transport retry count exceeded", "ib_mlx5_log.c:132", "ib_mlx5_log.c:x  message"} {
		if DetectLine(l) {
			t.Errorf("%q read as a UCX line", l)
		}
	}
}

// TestEndpointError: the endpoint error lines of a UCP program built on
// UCX's examples/ucp_client_server.c are error records, and the
// UCX_NET_DEVICES its command line sets is kept. Lines from
// openucx/ucx#7991 (analyze testdata/realworld-fresh43,
// ucx-log-ucx7991-roce-bond-client-server-destination-unreachable.txt).
func TestEndpointError(t *testing.T) {
	for _, tt := range []struct {
		line string
		ok   bool
	}{
		{"error handling callback was invoked with status -6 (Destination is unreachable)", true},
		{"unable to send UCX message (Destination is unreachable)", true},
		{"unable to receive UCX message (Endpoint timeout)", true},
		{"error handling callback was invoked with status x (y)", false},
		{"unable to open UCX message (x)", false},
		{"unable to send the file", false},
	} {
		r, ok := ParseLine(tt.line)
		if ok != tt.ok || ok && (r.Level != LevelError || r.Msg != tt.line) {
			t.Errorf("%q: %+v %v, want ok %v", tt.line, r, ok, tt.ok)
		}
		if DetectLine(tt.line) != tt.ok {
			t.Errorf("%q: DetectLine %v", tt.line, !tt.ok)
		}
	}
	lg, err := Parse(strings.NewReader("export UCX_LOG_FILE=./ucx_client.log;export UCX_TLS=rc; export UCX_NET_DEVICES=mlx5_bond_0:1; ./ucp_client_server -c am -s 102400 -a 108.80.25.56\n"+
		"error handling callback was invoked with status -6 (Destination is unreachable)\n"), "x")
	if err != nil || len(lg.Records) != 1 || lg.NetDevices != "mlx5_bond_0:1" {
		t.Fatalf("%+v %v", lg, err)
	}
	for l, want := range map[string]string{
		"mpirun -x UCX_NET_DEVICES=ib0 -x UCX_TLS=tcp ./a.out": "ib0",
		"UCX_NET_DEVICES=all ucx_perftest":                     "",
		"no setting here":                                      "",
	} {
		if got := NetDevices(l); got != want {
			t.Errorf("NetDevices(%q) = %q, want %q", l, got, want)
		}
	}
}

// TestIfaceVerbsCompletion: UCX's ib_iface.h UCT_IB_IFACE_VERBS_COMPLETION_ERR
// ("%s completion[%d] with error on %s/%p: %s, vendor_err 0x%x wr_id
// 0x%lx"), as EFA's srd_iface.c prints it (ai-dynamo/nixl#1983).
func TestIfaceVerbsCompletion(t *testing.T) {
	in := "[1784621081.896649] [prefill-pod:537  :1]       srd_iface.c:221  UCX  ERROR send completion[0] with error on rdmap132s0/0x55cf4425cfb0: Work Request Flushed Error, vendor_err 0x1 wr_id 0x7f8b20022480\n"
	lg, err := Parse(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Completions) != 1 {
		t.Fatalf("completions %+v", lg.Completions)
	}
	c := lg.Completions[0]
	if got := fmt.Sprintf("%s %s %d %q vend %#x", c.Record.Proc(), c.Device, int(c.Status), c.What, c.Vendor); got != `prefill-pod:537 rdmap132s0 5 "Work Request Flushed Error" vend 0x1` {
		t.Errorf("completion %s", got)
	}
}

// TestMidLine: a ucs_log line after words a person or a log collector put
// before it is still UCX's when the file:line, a UCX component and a
// level follow each other; other "file.c:line WORD WORD" text is not.
// Line from an AIBrix NIXL pod (analyze testdata/realworld-fresh77,
// ucx-log-aibrix1770-umr-qp-rtr-no-such-device.txt).
func TestMidLine(t *testing.T) {
	l := "Pod log says: ib_mlx5dv_md.c:1100 UCX  ERROR mlx5_1: ibv_modify_qp(UMR QP 0x2c5c) failed to modify to RTR: No such device"
	r, ok := ParseLine(l)
	if !ok || r.File != "ib_mlx5dv_md.c" || r.SrcLine != 1100 || r.Level != LevelError || !strings.HasPrefix(r.Msg, "mlx5_1: ibv_modify_qp") || r.Text != l {
		t.Fatalf("%+v %v", r, ok)
	}
	if !Detect(l) {
		t.Error("one error line not detected")
	}
	for _, s := range []string{
		"see main.c:12 NCCL WARN something",
		"Pod log says: main.c:12 UCX SOMETHING else",
		"Pod log says: ib_mlx5dv_md.c:x UCX ERROR m",
	} {
		if DetectLine(s) {
			t.Errorf("%q read as a UCX line", s)
		}
	}
}
