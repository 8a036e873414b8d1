package ucx

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxlog"
)

// TestCheck: what UCX logs are judged to say. Lines from openucx/ucx
// issues #5199, #9515, #857, #8487, #10451 and #6253 (sources in
// internal/parse/ucxlog/testdata/README.md).
func TestCheck(t *testing.T) {
	retry := "[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)\n" +
		"[master:19546:0:19546] ib_mlx5_log.c:139  DCI QP 0xa9f wqe[0]: SEND s-e [rqpn 0xa66 rlid 703] [inl len 18]\n" +
		"[master:19545:0:19545] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)\n" +
		"[master:19545:0:19545] ib_mlx5_log.c:139  DCI QP 0xa04 wqe[0]: SEND s-e [rqpn 0xa83 rlid 703] [inl len 18]\n"
	tests := []struct {
		name, log string
		id        string // "" for no finding
		sev       finding.Severity
		device    string
		says      []string
	}{
		{"retry exceeded on two ranks naming one LID", retry, "ucx.completion_error", finding.Critical, "mlx5_0",
			[]string{"on mlx5_0 port 1 (IB) of master", "syndrome 0x15 = status 12 IBV_WC_RETRY_EXC_ERR", "vendor syndrome 0x81", "2 completion errors from 2 processes on master", "every one names remote LID 703"}},
		{"retry exceeded, then endpoint timeouts that follow from it", retry +
			"[1661938336.553723] [master:19546:6]           flush.c:26   UCX  ERROR req 0x7fc2d40b3c00: error during flush: Endpoint timeout, flush comp 0x7fc2d40b3c90 count reduced to 2\n",
			"ucx.completion_error", finding.Critical, "mlx5_0", []string{"1 later UCX error line(s) follow from it"}},
		// openucx/ucx#5634: the lines pasted without UCX's prefix.
		{"retry exceeded without the prefix", strings.NewReplacer("[master:19546:0:19546] ", "", "[master:19545:0:19545] ", "").Replace(retry), "ucx.completion_error", finding.Critical, "mlx5_0",
			[]string{"2 completion errors (the lines do not say which process or host)"}},
		{"local protection with GPU buffers", "[a670n1:162239:0:162239] ib_mlx5_log.c:177  Local protection on mlx5_0:1/IB (synd 0x4 vend 0x51 hw_synd 0/2)\n" +
			"[a670n1:162239:0:162239] ib_mlx5_log.c:177  RC QP 0x169 wqe[3]: SEND s-- [inl len 10] [va 0x7f1c3c800000 len 1 lkey 0xb5d2] [rqpn 0x169 dlid=12 sl=0 port=1 src_path_bits=0]\n",
			"ucx.completion_error", finding.Critical, "mlx5_0", []string{"status 4 IBV_WC_LOC_PROT_ERR", "GPUDirect RDMA", "the peer is remote LID 12"}},
		// ai-dynamo/nixl#1983: EFA SRD send completions, all flushed (the
		// peer disconnected); the first error is not in the paste.
		{"flushes alone", "[1784621081.896649] [kimi-k2-7-disagg-on-sp-v1-prefill-92c6hc-07210529-x04q3qgn-pod:537  :1]       srd_iface.c:221  UCX  ERROR send completion[0] with error on rdmap132s0/0x55cf4425cfb0: Work Request Flushed Error, vendor_err 0x1 wr_id 0x7f8b20022480\n",
			"ucx.completion_error", finding.Critical, "rdmap132s0", []string{"status 5 IBV_WC_WR_FLUSH_ERR", "every completion error here is a flush"}},
		{"verbs transport: the status text", "[1467152048.497975] [softiron-3:3087 :0] rc_verbs_iface.c:47   UCX  ERROR Send completion with error: transport retry counter exceeded\n",
			"ucx.completion_error", finding.Critical, "", []string{"status 12 IBV_WC_RETRY_EXC_ERR", "of softiron-3"}},
		{"endpoint timeout", "[1661938336.553723] [vhost-node1:1499693:6]           flush.c:26   UCX  ERROR req 0x7fc2d40b3c00: error during flush: Endpoint timeout, flush comp 0x7fc2d40b3c90 count reduced to 2\n" +
			"[1661938336.553729] [vhost-node1:1499693:6]           flush.c:26   UCX  ERROR req 0x7fc2d40b3c00: error during flush: Endpoint timeout, flush comp 0x7fc2d40b3c90 count reduced to 1\n",
			"ucx.error", finding.Critical, "", []string{"on vhost-node1:1499693 (flush.c:26)", "a timeout: the peer stopped answering", "2 error lines from 1 process"}},
		{"the MPI layer's line follows the DEVX failure that caused it", "1737742661.094513] [cn0244:260472:0]      ib_mlx5_dv.c:430  UCX  ERROR   mlx5dv_devx_obj_create(QP) failed on mlx5_0, syndrome 0x2c4154: Remote I/O error\n" +
			"[cn0244:260472] pml_ucx.c:421  Error: ucp_ep_create(proc=47) failed: Input/output error\n",
			"ucx.error", finding.Critical, "", []string{"(ib_mlx5_dv.c:430): mlx5dv_devx_obj_create(QP) failed", "a verbs call failed"}},
		{"fatal UD timeout", "[compute-0-20:9358 :0:9358]    ud_iface.c:737  UCX Fatal: transport error: Endpoint timeout\n",
			"ucx.error", finding.Critical, "", []string{"UCX fatal on compute-0-20:9358", "transport error: Endpoint timeout"}},
		{"requested device missing, only TCP offered (ai-dynamo/dynamo#1209)", "ucp_context.c:1321 UCX  WARN  network device 'mlx5_bond_0:1' is not available, please use one or more of: 'bond0'(tcp), 'bond1'(tcp), 'eth0'(tcp), 'lo'(tcp)\n",
			"ucx.error", finding.Critical, "", []string{"network device 'mlx5_bond_0:1' is not available", "sees no RDMA device", "runs over TCP"}},
		{"requested device misnamed, RDMA devices offered (openucx/ucx#11220)", "[1590482937.540412] [node1:1234:0]     ucp_context.c:1508 UCX  WARN  network devices 'nonexistent_dev1','nonexistent_dev2' are not available, please use one or more of: 'ens10f0np0'(tcp), 'mlx5_0:1'(ib), 'mlx5_2:1'(ib)\n",
			"ucx.error", finding.Warning, "", []string{"on node1:1234", "the device name is wrong"}},
		// openucx/ucx#8746: osu_bcast over sm,self still runs, but UCX
		// could not create a CQ on mlx5_0 under a 64 KiB limit.
		{"create CQ fails under a 64 KiB memlock limit", "[1668693503.473099] [ampere:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)\n" +
			"[1668693503.473424] [ampere:1188442:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)\n",
			"host.memlock_limited", finding.Critical, "mlx5_0", []string{"UCX on ampere:1188443: mlx5_0: ibv_create_cq() failed: Cannot allocate memory, under a locked-memory limit (ulimit -l) of 64 KiB", "2 processes report it"}},
		// A cluster FAQ quoting UCX's ib_md.c line, the " : Please set" wording.
		{"reg_mr fails under a 512 MiB limit (newer wording)", "[1765653660.705652] [magi175:640743:0] ib_md.c:287 UCX ERROR ibv_reg_mr(address=0x15213b956010, length=65536, access=0xf) failed: Cannot allocate memory : Please set max locked memory (ulimit -l) to 'unlimited' (current: 524288 kbytes)\n",
			"host.memlock_limited", finding.Warning, "", []string{"ibv_reg_mr(address=0x15213b956010, length=65536, access=0xf) failed: Cannot allocate memory, under a locked-memory limit (ulimit -l) of 524288 KiB"}},
		// openucx/ucx#7991: ucp_client_server's endpoint error on a RoCE
		// bond, the device from its command line.
		{"client-server destination unreachable on a RoCE bond", "export UCX_TLS=rc; export UCX_NET_DEVICES=mlx5_bond_0:1; ./ucp_client_server -c am -s 102400 -a 108.80.25.56\n" +
			"error handling callback was invoked with status -6 (Destination is unreachable)\n" +
			"unable to send UCX message (Destination is unreachable)\n",
			"ucx.error", finding.Critical, "mlx5_bond_0", []string{"UCX error: error handling callback was invoked with status -6 (Destination is unreachable) — no transport reaches the peer", "UCX_NET_DEVICES=mlx5_bond_0:1"}},
		{"info and diagnostics only", "[1701292112.829711] [a670n1:162239:0]      ucp_worker.c:1855 UCX  INFO    0x100b240 inter-node cfg#3 tag(rc_mlx5/mlx5_0:1 rc_mlx5/mlx5_0:1)\n" +
			"[1467152048.498544] [softiron-3:3087 :1]      ib_device.c:132  UCX  WARN  IB Async event on mlx5_0: SRQ-attached QP 0xa18 was flushed\n",
			"", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := ucxlog.Parse(strings.NewReader(tt.log), "paste.txt")
			if err != nil {
				t.Fatal(err)
			}
			fs := Check(lg)
			if tt.id == "" {
				if len(fs) != 0 {
					t.Fatalf("findings %+v, want none", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].ID != tt.id || fs[0].Severity != tt.sev || fs[0].Subject.Device != tt.device {
				t.Fatalf("findings %+v, want one %s %s on %q", fs, tt.id, tt.sev, tt.device)
			}
			for _, s := range tt.says {
				if !strings.Contains(fs[0].Summary, s) {
					t.Errorf("summary %q lacks %q", fs[0].Summary, s)
				}
			}
			if !strings.HasPrefix(fs[0].Evidence[0].Source, "paste.txt:") {
				t.Errorf("evidence %+v", fs[0].Evidence)
			}
		})
	}
}

// TestCausesForStatus: a retry-exceeded finding keeps the causes of
// status 12 and drops those written for other statuses.
func TestCausesForStatus(t *testing.T) {
	lg, err := ucxlog.Parse(strings.NewReader("[ast1815:6807 :0:6807] ib_mlx5_log.c:115  FATAL: Error on mlx5_3:1 QP 0xe6d7 wqe[7821]: Transport retry count exceeded (synd 0x15 vend 0x81) opcode SEND\n"), "p")
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(lg)
	if len(fs) != 1 {
		t.Fatalf("findings %+v", fs)
	}
	for _, c := range append(fs[0].Causes, fs[0].Remedy...) {
		if strings.HasPrefix(c, "status ") && !strings.HasPrefix(c, "status 12:") {
			t.Errorf("kept %q", c)
		}
	}
	if len(fs[0].Causes) != 1 || !strings.HasPrefix(fs[0].Causes[0], "status 12:") {
		t.Errorf("causes %q", fs[0].Causes)
	}
}
