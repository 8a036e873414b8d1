package analyze

import (
	"bufio"
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// The real-world corpus: outputs people pasted into public issue threads,
// mailing lists, wikis and vendor documentation, byte-exact, each with its
// source in testdata/realworld/README.md. expect.tsv says what an
// experienced operator concludes from each paste alone:
//
//	file <TAB> verdict <TAB> must <TAB> must-not <TAB> options <TAB> note
//
// verdict is healthy, warning, critical or not_judged, or two of them
// ("warning|critical") where an operator could defensibly read the paste
// either way; must and must-not
// are comma-separated finding IDs ("-" for none); options are
// comma-separated key=value pairs (line_rate=GBPS, expect_ib=true,
// year=YYYY). A note that starts with "known miss:" marks a sample the
// analyser still gets wrong, with why: it counts against the score and is
// reported, but does not fail the test on its own.
//
// IBDOCTOR_REALWORLD_DIR points the test at another folder of the same
// layout: a held-out collection that nobody tuned the parsers to.
var realWorldDir = cmp.Or(os.Getenv("IBDOCTOR_REALWORLD_DIR"), "testdata/realworld")

// minRealWorldScore is the share of samples that must be diagnosed right.
const minRealWorldScore = 0.95

type realWorldCase struct {
	file, verdict string
	must, mustNot []string
	opts          Options
	knownMiss     string
	line          int
}

func readRealWorld(t *testing.T) []realWorldCase {
	t.Helper()
	return readRealWorldFrom(t, realWorldDir)
}

func readRealWorldFrom(t *testing.T, dir string) []realWorldCase {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "expect.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []realWorldCase
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 5 {
			t.Fatalf("expect.tsv line %d: want at least 5 tab-separated columns, have %d", n, len(cols))
		}
		c := realWorldCase{file: cols[0], verdict: cols[1], must: idList(cols[2]), mustNot: idList(cols[3]), line: n}
		for _, v := range strings.Split(c.verdict, "|") {
			switch v {
			case "healthy", "warning", "critical", "not_judged":
			default:
				t.Fatalf("expect.tsv line %d: verdict %q", n, v)
			}
		}
		for _, kv := range idList(cols[4]) {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "line_rate":
				c.opts.LineRateGbps, err = strconv.ParseFloat(v, 64)
			case "expect_ib":
				c.opts.ExpectIB = v == "true"
			case "year":
				c.opts.Year, err = strconv.Atoi(v)
			default:
				t.Fatalf("expect.tsv line %d: unknown option %q", n, k)
			}
			if err != nil {
				t.Fatalf("expect.tsv line %d: option %s: %v", n, kv, err)
			}
		}
		if len(cols) > 5 {
			if r, ok := strings.CutPrefix(cols[5], "known miss:"); ok {
				c.knownMiss = strings.TrimSpace(r)
			}
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func idList(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" || s == "-" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// judgeRealWorld analyses one sample and says what is wrong with the
// result, "" when it is right.
func judgeRealWorld(c realWorldCase, text string) (got string, wrong []string) {
	r := Run([]Input{{Name: c.file, Text: text}}, c.opts)
	got = r.Verdict
	if r.ExitCode == 3 {
		got = "not_judged"
	}
	var have []string
	for _, f := range r.Findings {
		have = append(have, f.ID)
	}
	if !slices.Contains(strings.Split(c.verdict, "|"), got) {
		wrong = append(wrong, "verdict "+got+", want "+c.verdict+" ("+strings.Join(have, ",")+")")
	}
	for _, id := range c.must {
		if !slices.Contains(have, id) {
			wrong = append(wrong, "missing "+id)
		}
	}
	for _, id := range c.mustNot {
		if slices.Contains(have, id) {
			wrong = append(wrong, "must not report "+id)
		}
	}
	// A paste that is healthy (or at worst a warning) never gets a
	// critical finding.
	if !strings.Contains(c.verdict, "critical") {
		for _, f := range r.Findings {
			if f.Severity == finding.Critical {
				wrong = append(wrong, "critical "+f.ID+" on a healthy paste")
			}
		}
	}
	return got, wrong
}

func TestRealWorldCorpus(t *testing.T) { scoreRealWorld(t, realWorldDir, minRealWorldScore) }

// TestRealWorldFresh4 keeps the fourth held-out collection honest: it
// scored 14 of 20 fresh, 16 of 20 after the fixes it prompted and 20 of
// 20 after the UCX reader, the headless ibstat fragment, the slow Active
// rate and the steady corrected-AER stream; a known miss that turns right
// fails until its note is dropped, so the score can only go up. 19 of 20
// since IPoIB netdevs Down are a warning: fresh23's tester read the same
// ibdev2netdev pattern as a down fabric (see the known miss).
func TestRealWorldFresh4(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh4", 0.95) }

// TestRealWorldFresh5 keeps the fifth held-out collection honest: it
// scored 14 of 24 fresh and 22 of 24 after the fixes it prompted (logread
// and any netdev's link flaps, bonding, ibdev2netdev, NCCL async events,
// nvidia-smi -q row remapping, headerless perfquery behind a themed
// prompt, lspci LnkCap/LnkSta), and 24 of 24 with the UCX reader.
func TestRealWorldFresh5(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh5", 1) }

// TestRealWorldFresh6 keeps the sixth held-out collection (sources off
// GitHub: forums, mailing lists, vendor pages, paste sites) honest: it
// scored 16 of 24 fresh, and 24 of 24 once paste-site line numbers,
// ibdiagnet link messages quoted in a manual, NIC receive drops on any
// driver, a lone Down port, any netdev's link flaps, lspci link lines and
// PCI domains behind Intel VMD (five hex digits) were read by class.
func TestRealWorldFresh6(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh6", 1) }

// TestRealWorldFresh7 keeps the seventh held-out collection honest (13
// pastes; the public index held few that no test had used): gathered
// while fresh5 and fresh6 were being fixed and scored once after, it
// scored 11 of 13 fresh, and 13 of 13 once per-queue receive drops
// (be2net) and sysfs port attributes (grep and cat) were read.
func TestRealWorldFresh7(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh7", 1) }

// TestRealWorldFresh8 keeps the eighth held-out collection (vendor docs,
// paste sites and other repositories' captured outputs) honest: 14 of 25
// fresh, 24 of 25 after the fixes it prompted (WinOF ibstat, the first
// rdma link format, perfquery -E, run-together Xid records, dmesg -x,
// journal carrier flaps, crashes in libnccl, Disabled spare ports).
func TestRealWorldFresh8(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh8", 0.96) }

// TestRealWorldFresh9 keeps the ninth held-out collection (issue threads
// outside the most used repositories) honest: 12 of 23 fresh, 22 of 23
// after the fixes it prompted (lshca, a sysfs counter loop, show_gids in a
// pod, Open MPI's help messages, EDAC and firmware-first PCIe errors, a
// UCX line without its bracket, an all-zero GID in perftest).
func TestRealWorldFresh9(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh9", 0.95) }

// TestRealWorldFresh10 keeps the tenth held-out collection honest: scored
// after the fresh8 and fresh9 fixes, 15 of 23 fresh, 22 of 23 after the
// fixes it prompted (NCCL records run together, single-node socket runs,
// untitled perftest rows, ibstatus without devices, ulimit -a, mlx5
// command failures, a show_gids paste cut before a v2 GID).
func TestRealWorldFresh10(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh10", 0.95) }

// TestRealWorldFresh11 keeps the eleventh held-out collection (issue
// threads of repositories not mined before) honest: 16 of 26 fresh, 26 of
// 26 after the fixes it prompted (mlx5 CQ errors and error CQEs of kernel
// RDMA users, libmlx5 CQE dumps, libfabric and other ibv_wc_status lines,
// perftest key exchange failures, ibqueryerrors congestion without a
// topology, old NCCL single-node runs, NCCL_IB_GID_INDEX beside show_gids,
// a missing verbs provider).
func TestRealWorldFresh11(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh11", 0.96) }

// TestRealWorldFresh12 keeps the twelfth held-out collection (mailing
// lists, paste sites, repositories) honest: 12 of 22 fresh, 21 of 22 after
// the fixes it prompted (kernel crash reports in RDMA and GPU drivers,
// mlx5 error CQE dumps, wrapped AER lines, rates compared within a subnet,
// wrapped watchdog reports, ranks spliced mid-line, GDR off on one node,
// perftest QP creation failures). The one miss left is Xid 79's ID.
func TestRealWorldFresh12(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh12", 0.95) }

// TestRealWorldFresh13 keeps the thirteenth held-out collection (issue
// threads of repositories not mined before) honest: 13 of 20 fresh, 19 of
// 20 after the fixes it prompted (NCCL 2.3 single-host runs, a cut
// show_gids table, UCX's locked-memory hint, infiniband-diags without an
// SM, nccl-tests' unhandled system error, an NCCL log quoted as the
// expected one). The one miss left is an ID the catalog gives another
// meaning.
func TestRealWorldFresh13(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh13", 0.95) }

// TestRealWorldFresh14 keeps the fourteenth held-out collection (outputs
// captured in repositories and list mirrors) honest: 15 of 21 fresh, 18
// of 21 after the fixes it prompted (a switch port's narrower link, NCCL
// connect failures, perftest's --output=latency). The three misses left
// are Xid 79's ID, a topology the main corpus judges the other way, and a
// slow run whose paste gives no line rate.
func TestRealWorldFresh14(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh14", 0.85) }

// TestRealWorldFresh15 keeps the fifteenth held-out collection (gathered
// after every fix of fresh11-14) honest: 15 of 20 fresh, with no critical
// on a healthy paste and no fault called HEALTHY; 20 of 20 after the
// fixes it prompted (perftest's failed TCP connection, UCX lines without
// their prefix, a peer address of no IP family, a watchdog report wrapped
// at its colon, NCCL errors raised in Python under Ray).
func TestRealWorldFresh15(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh15", 0.95) }

// TestRealWorldFresh16 keeps the sixteenth held-out collection (issue
// threads of repositories not mined before) honest: 14 of 19 fresh, 19 of
// 19 after the fixes it prompted (the device plugin's Xid lines, PyTorch's
// heartbeat monitor wrapped mid-word, topology cells run together, a
// WARN_ON placed by its source file, a verbs provider of another ABI).
func TestRealWorldFresh16(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh16", 0.95) }

// TestRealWorldFresh17 keeps the seventeenth held-out collection (pastes
// of the pages and docs corpora) honest: 10 of 20 fresh, 20 of 20 after
// the fixes it prompted (a degraded PCIe link critical only on a device
// that carries a training job's traffic, ethtool links below their
// advertised speed, ethtool -S rate views, old nccl-tests and nvidia-smi
// -q, a corrected AER cut to "kernel:").
func TestRealWorldFresh17(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh17", 0.95) }

// TestRealWorldFresh18 keeps the eighteenth held-out collection (captures
// committed in repositories) honest: 15 of 19 fresh, 18 of 19 after the
// fixes it prompted (Xid 79 as gpu.xid, GPU Direct RDMA unused, a refused
// SET_ROCE_ADDRESS, rdma_cm events decoded). The one miss left is a
// rejected rdma_cm connection the tester called critical.
func TestRealWorldFresh18(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh18", 0.94) }

// TestRealWorldFresh19 keeps the nineteenth held-out collection (issue
// threads; gathered while the fresh16-18 fixes were made) honest: 14 of 20
// fresh, every miss a fault read as HEALTHY; 20 of 20 after the fixes it
// prompted (FreeBSD link state lines, Xid 45 before a hung task, dmesg -H
// deltas, LNet o2ib timeouts, a driver's own PCIe link report, a
// SoftRoCE pingpong that never finished).
func TestRealWorldFresh19(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh19", 0.95) }

// TestRealWorldFresh20 keeps the twentieth held-out collection (captures in
// repositories and kernel mails) honest: 13 of 17 fresh; 17 of 17 after the
// fixes it prompted (stalled transmit queues, quoted mlx5 command
// timeouts, NCCL's duplicate GPU, a CUDA error in PyTorch's watchdog).
func TestRealWorldFresh20(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh20", 0.95) }

// TestRealWorldFresh21 keeps the twenty-first held-out collection (issue
// threads, gathered while the fresh19/20 fixes were made) honest: 12 of 17
// fresh, scored after every fix fresh16-20 prompted; 17 of 17 after the
// fixes it prompted (NCCL socket and bootstrap errors in every wording and
// their error return chain, a GPU that needs a reset, a 1 GbE port's
// flaps a warning).
func TestRealWorldFresh21(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh21", 0.95) }

// TestRealWorldFresh22 keeps the twenty-second held-out collection
// (captures in repositories and kernel mails) honest: 10 of 16 fresh; 15
// of 16 after the fixes it prompted (quoted-printable mails, mlx5 command
// timeouts and refusals before a failed load, ibdev2netdev's Down port,
// qperf's RTR failure). The one miss left is a pingpong failure the
// tester did not count.
func TestRealWorldFresh22(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh22", 0.93) }

// TestRealWorldFresh23 keeps the twenty-third held-out collection (issue
// threads) honest: 16 of 20 fresh, after the unclassified NCCL WARN
// fallback; 20 of 20 after the fixes it prompted (an error return trace
// out of NCCL's net transport, IPoIB netdevs Down, the plain nvidia-smi
// table, ucx_perftest results).
func TestRealWorldFresh23(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh23", 1) }

// TestRealWorldFresh24 keeps the twenty-fourth held-out collection
// (captures in repositories, kernel mails) honest: 7 of 10 fresh, after
// the NCCL WARN and driver error fallbacks; 10 of 10 after the fixes it
// prompted (a bandwidth floor for multi-node runs of data-center GPUs,
// four-level mail quoting, a NIC gone from the bus).
func TestRealWorldFresh24(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh24", 1) }

// TestRealWorldFresh25 keeps the twenty-fifth held-out collection (issue
// threads) honest: 16 of 20 fresh; 19 of 20 after the fixes it prompted
// (NVMe over RDMA connect failures, NCCL connect retries that spend their
// budget). The one miss left is a one-host socket log whose expectation
// conflicts with fresh19's (see its known-miss note).
func TestRealWorldFresh25(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh25", 0.95) }

// TestRealWorldFresh26 keeps the twenty-sixth held-out collection (issue
// threads) honest: 16 of 20 fresh, after every fix of fresh23-25; 20 of
// 20 after the fixes it prompted (NVMe over RDMA I/O timeouts, editor line
// numbers glued to dmesg stamps, a job bootstrapped on loopback, an RDMA
// application's numeric completion status).
func TestRealWorldFresh26(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh26", 1) }

// TestRealWorldFresh27 keeps the twenty-seventh held-out collection
// (issue threads: SPDK, Open MPI/UCX, Mooncake, Omni-Path, Talos) honest:
// 13 of 19 fresh (11 on the code before the driver catch-all's wider list
// and paste.failure_lines); 19 of 19 after the fixes it prompted
// (ibv_devices, a printf loop over hw_counters, NCCL devices it could not
// open beside those it uses, libibverbs provider warnings in any
// program's log, async events and "general error" completions in an
// application's log, a perftest banner under its failure).
func TestRealWorldFresh27(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh27", 1) }

// TestRealWorldFresh28 keeps the twenty-eighth held-out collection
// (documentation, blogs, repositories) honest: 15 of 16 fresh; 16 of 16
// once an NCCL IB device list mixing RoCE and IB ports and mpirun's
// non-zero exit beside an NCCL log were read.
func TestRealWorldFresh28(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh28", 1) }

// TestRealWorldFresh29 keeps the twenty-ninth held-out collection (issue
// threads) honest: 16 of 18 fresh; 18 of 18 after the fixes it prompted
// (RDMA kernel modules that fail to load on symbol mismatches, sysfs PCIe
// link files printed by tail -v).
func TestRealWorldFresh29(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh29", 1) }

// TestRealWorldFresh30 keeps the thirtieth held-out collection (mailing
// lists, documentation, blogs) honest: 16 of 20 fresh; 19 of 20 after the
// fixes it prompted (an mlx5 module event quoted without its address, a
// perftest that died on any real completion status, a one-host
// nccl-tests run under 1 GB/s). The miss left is a NIC's PCIe link at half
// its capability, kept critical (see its known-miss note).
func TestRealWorldFresh30(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh30", 0.95) }

// TestRealWorldFresh31 keeps the thirty-first held-out collection (issue
// threads: UCX, SPDK, Mooncake, HCCL, lspci, topo) honest: 10 of 16
// fresh; 16 of 16 after the fixes it prompted (an application's RDMA
// transport that could not start, SPDK's parenthesised completion
// status, HCCL's RoCE error completion, plain lspci lines of a device
// that reads rev ff, GPU rows of a topo matrix without its header, a
// perftest with masked addresses).
func TestRealWorldFresh31(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh31", 1) }

// TestRealWorldFresh32 keeps the thirty-second held-out collection
// (mailing lists, forum archives, blogs, notes) honest: 18 of 20 fresh,
// after the fresh27/28 fixes; 20 of 20 after the fixes it prompted
// (printk caller ids in front of kernel lines, NCCL's modify_qp failure on
// an empty GID index).
func TestRealWorldFresh32(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh32", 1) }

// TestRealWorldFresh33 keeps the thirty-third held-out collection (issue
// threads: Horovod, PyTorch, Ray, DeepSpeed, UCX, Mooncake, UCCL) honest:
// 9 of 11 fresh; 11 of 11 after the fix it prompted (a program's lines
// that a queue pair could not be moved to RTR, with the error number).
func TestRealWorldFresh33(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh33", 1) }

// TestRealWorldFresh34 keeps the thirty-fourth held-out collection
// (repositories, blogs, mailing lists) honest: 9 of 10 fresh; 10 of 10
// after the fix it prompted (a Polling second port beside its own ACTIVE
// port 1 is a dual-port card's spare, a warning).
func TestRealWorldFresh34(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh34", 1) }

// TestRealWorldFresh35 keeps the thirty-fifth held-out collection (issue
// threads: SPDK, aws-ofi-nccl, libfabric, UCX, DPDK) honest: 9 of 13
// fresh; 13 of 13 after the fixes it prompted (aws-ofi-nccl's NET/OFI
// failures, EFA's ALLOC_PD refusals, DPDK's mlx5 error CQE dumps).
func TestRealWorldFresh35(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh35", 1) }

// TestRealWorldFresh36 keeps the thirty-sixth (AI-framework and cluster
// software threads) honest: 13 of 15 fresh; 15 of 15 after its fixes
// (a paste cut short is no proof that no port works; Mooncake's GID lines).
func TestRealWorldFresh36(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh36", 1) }

// TestRealWorldFresh37 keeps the thirty-seventh (mailing lists, forums)
// honest: 12 of 14 fresh; 14 of 14 after its fixes (KASAN reports,
// Solaris Hermon error completions).
func TestRealWorldFresh37(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh37", 1) }

// TestRealWorldFresh38 keeps the thirty-eighth (docs and repositories)
// honest: 9 of 13 fresh; 12 of 13 after its fixes (a spare Polling port,
// a GPU that reads rev ff, no RDMA link that slow, tmux pane borders),
// one known miss (an unused VPI Ethernet port's warning by policy).
func TestRealWorldFresh38(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh38", 0.9) }

// TestRealWorldFresh39 keeps the thirty-ninth (storage and MPI issue
// threads) honest: 14 of 18 fresh; 18 of 18 after its fixes (3FS accept
// timeouts, libiscsi's iSER completions, old kernels' oops IP line, Open
// MPI's TCP errors, a wrapped PyTorch watchdog line).
func TestRealWorldFresh39(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh39", 1) }

// TestRealWorldFresh40 keeps the fortieth (AI-framework issue threads)
// honest: 11 of 19 fresh; 19 of 19 after its fixes (NCCL 2.3 on IPoIB,
// c10d socket timeouts, loopback-only runs, GPU lost from the bus, mlx5
// QP errors, amdgpu page faults, the NVLink fabric state, perftest RTR);
// 18 of 19 once the amdgpu page fault was made a warning as Xid 31 is (a
// known miss).
func TestRealWorldFresh40(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh40", 0.9) }

// TestRealWorldFresh41 keeps the forty-first (repositories' notes and
// docs) honest: 12 of 16 fresh; 14 of 16 after its fixes (a few pasted
// corrected AER reports said as info, a watchdog line wrapped after
// "timeout:"), two known misses.
func TestRealWorldFresh41(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh41", 0.85) }

// TestRealWorldFresh42 keeps the forty-second (repositories) honest: 14
// of 14 fresh, scored after the fixes fresh35-41 prompted.
func TestRealWorldFresh42(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh42", 1) }

// TestRealWorldFresh43 keeps the forty-third (UCX, MPI, storage issue
// threads) honest: 7 of 11 fresh; 11 of 11 after its fixes (RDMA consumer
// modules that cannot load, UCX client/server errors, aws-ofi-nccl on a
// TCP provider, UCX over IPoIB only).
func TestRealWorldFresh43(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh43", 1) }

// TestRealWorldFresh44 keeps the forty-fourth (AI-framework issue threads)
// honest: 15 of 22 fresh; 22 of 22 after its fixes (a rate below its
// siblings' in a paste with no HCA model, UCCL's failed status checks,
// XLA's NCCL aborts, a program's own bus bandwidth, one-node jobs that
// asked for IB, /dev/shm too small, NCCL 2.0-2.2 lines).
func TestRealWorldFresh44(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh44", 1) }

// TestRealWorldFresh45 keeps the forty-fifth (notes, docs, blogs) honest:
// 9 of 13 fresh; 13 of 13 after its fixes (wrapped mlx5 slot-power lines,
// ethtool -m alarms, a multi-node busbw floor, NCCL lines without their
// prefix).
func TestRealWorldFresh45(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh45", 1) }

// TestRealWorldFresh46 keeps the forty-sixth (repositories' notes) honest:
// 10 of 13 fresh; 13 of 13 after its fixes (UD latency floor, a busbw
// collapse at large sizes, a transmit timeout beside a soft lockup).
func TestRealWorldFresh46(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh46", 1) }

// TestRealWorldFresh47 keeps the forty-seventh (AI-framework issue
// threads) honest: 10 of 12 fresh; 12 of 12 after its fixes (DeepEP test
// outputs).
func TestRealWorldFresh47(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh47", 1) }

// TestRealWorldFresh48 keeps the forty-eighth (RDMA stack and MPI issue
// threads) honest: 5 of 15 fresh; 15 of 15 after its fixes (OSU tables,
// ucx_perftest CSV, dshbak blocks, Open MPI openib lines, SPDK, libfabric).
func TestRealWorldFresh48(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh48", 1) }

// TestRealWorldFresh49 keeps the forty-ninth (mailing-list archives, as
// HTML) honest: 7 of 14 fresh; 13 of 14 after its fixes (the archive's
// HTML, old openib lines, mthca probe failures; one known miss).
func TestRealWorldFresh49(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh49", 0.9) }

// TestRealWorldFresh50 keeps the fiftieth (vendor docs, blogs) honest: 7
// of 10 fresh; 10 of 10 after its fixes (a caught RCCL probe that was read
// as a failed call, EFA NICs missing, CellCLI).
func TestRealWorldFresh50(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh50", 1) }

// TestRealWorldFresh51 keeps the fifty-first (repositories' notes) honest:
// 11 of 12 fresh; 12 of 12 after its fixes.
func TestRealWorldFresh51(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh51", 1) }

// TestRealWorldFresh52 keeps the fifty-second (kernel and GPU logs)
// honest: 9 of 15 fresh; 15 of 15 after its fixes (crashes critical
// wherever they are, GSP timeouts, GPUs the driver cannot initialise,
// systemctl status).
func TestRealWorldFresh52(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh52", 1) }

// TestRealWorldFresh53 keeps the fifty-third (fabric tools, OpenSM)
// honest: 5 of 10 fresh; 10 of 10 after its fixes.
func TestRealWorldFresh53(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh53", 1) }

// TestRealWorldFresh54 keeps the fifty-fourth (RoCE, containers, storage)
// honest: 11 of 16 fresh; 15 of 16 after its fixes (one known miss).
func TestRealWorldFresh54(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh54", 0.9) }

// TestRealWorldFresh55 keeps the fifty-fifth (Open MPI archives again,
// gathered after the fresh49 fixes) honest: 13 of 15 fresh; 15 of 15
// after its fixes.
func TestRealWorldFresh55(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh55", 1) }

// TestRealWorldFresh56 keeps the fifty-sixth (smaller RDMA projects'
// threads) honest: 9 of 14 fresh; 14 of 14 after its fixes.
func TestRealWorldFresh56(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh56", 1) }

// TestRealWorldFresh57 keeps the fifty-seventh (health and monitoring
// tools' threads) honest: 8 of 16 fresh; 14 of 16 after its fixes (two
// known misses).
func TestRealWorldFresh57(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh57", 0.85) }

// TestRealWorldFresh58 keeps the fifty-eighth (non-English notes) honest:
// 9 of 9 fresh.
func TestRealWorldFresh58(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh58", 1) }

// TestRealWorldFresh59 keeps the fifty-ninth (RDMA hardware other than
// NVIDIA's) honest: 9 of 15 fresh; 14 of 15 after its fixes (one known
// miss).
func TestRealWorldFresh59(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh59", 0.9) }

// TestRealWorldFresh60 keeps the sixtieth (linux-rdma mails) honest: 1 of
// 4 fresh; 4 of 4 after its fixes.
func TestRealWorldFresh60(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh60", 1) }

// TestRealWorldFresh61 keeps the sixty-first (GPU-cloud and Kubernetes
// threads, scored on the session's final code) honest: 8 of 12 fresh; 12
// of 12 after its fixes (grep'd ACSCtl lines, NCCL over lo).
func TestRealWorldFresh61(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh61", 1) }

// TestRealWorldFresh62 keeps the sixty-second (KV-transfer and MoE
// libraries) honest: 9 of 13 fresh; 12 of 13 after its fixes, 13 of 13
// once flush-only completion errors were judged critical everywhere.
func TestRealWorldFresh62(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh62", 1) }

// TestRealWorldFresh63 keeps the sixty-third (HPC applications and MPI
// libraries) honest: 12 of 16 fresh; 16 of 16 after its fixes (Intel MPI
// fabrics, Charm++ OFI, OMB 7 tables).
func TestRealWorldFresh63(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh63", 1) }

// TestRealWorldFresh64 keeps the sixty-fourth (storage over RDMA) honest:
// 3 of 13 fresh; 12 of 13 after its fixes (SPDK target, lnetctl, DAOS,
// Ganesha, brpc, unstamped crash reports; one known miss).
func TestRealWorldFresh64(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh64", 0.9) }

// TestRealWorldFresh65 keeps the sixty-fifth (NCCL and nccl-tests issues, gathered as the natural mix people paste) honest:
// 7 of 13 fresh; 10 of 13 after its fixes (elided Xid addresses, EFA provider errors, a silent multi-rank launch, GB10 and the floor a third under it); three known misses.
func TestRealWorldFresh65(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh65", 0.75) }

// TestRealWorldFresh66 keeps the sixty-sixth (linux-rdma list and rdma-core) honest:
// 6 of 12 fresh; 12 of 12 after its fixes (iperf beside perftest, rping's CM events, the link-local GID index, WARN messages and the drivers in their traces).
func TestRealWorldFresh66(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh66", 1) }

// TestRealWorldFresh67 keeps the sixty-seventh (DGX Spark notes) honest:
// 7 of 11 fresh; 11 of 11 after its fixes (ethtool --show-fec and grep'd ethtool lines, GB10 held to the data-center floor).
func TestRealWorldFresh67(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh67", 1) }

// TestRealWorldFresh68 keeps the sixty-eighth (homelab and SMB Direct) honest:
// 11 of 12 fresh; 12 of 12 after its fixes (refcount_t use-after-free reports).
func TestRealWorldFresh68(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh68", 1) }

// TestRealWorldFresh69 keeps the sixty-ninth (Kubernetes and clouds) honest:
// 7 of 14 fresh; 13 of 14 after its fixes (aws-ofi-nccl's provider lines, TCPX slowness, fi_pingpong, ifconfig, cloud instance types as RDMA evidence); one known miss.
func TestRealWorldFresh69(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh69", 0.9) }

// TestRealWorldFresh70 keeps the seventieth (training frameworks' issues) honest:
// 10 of 14 fresh; 13 of 14 after its fixes (NVSHMEM IBGDA fallback, rank tracebacks, NET/Socket truncation); one known miss.
func TestRealWorldFresh70(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh70", 0.9) }

// TestRealWorldFresh71 keeps the seventy-first (Open MPI and UCX threads) honest:
// 10 of 13 fresh; 12 of 13 after its fixes (ucx_info); one known miss.
func TestRealWorldFresh71(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh71", 0.9) }

// TestRealWorldFresh72 keeps the seventy-second (vendor documentation) honest:
// 5 of 13 fresh; 13 of 13 after its fixes (Exadata tools, mlnx_qos, Onyx show roce, init scripts, GPFS).
func TestRealWorldFresh72(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh72", 1) }

// TestRealWorldFresh73 keeps the seventy-third (result files in repositories), scored after the fresh65-72 fixes honest:
// 12 of 14 fresh; 13 of 14 after its fixes (libibverbs provider config); one known miss.
func TestRealWorldFresh73(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh73", 0.9) }

// TestRealWorldFresh74 keeps the seventy-fourth (bug trackers), scored after the fresh65-72 fixes honest:
// 8 of 12 fresh; 12 of 12 after its fixes (ethtool -i, /sys/class/infiniband_mad, hung tasks queued in the RDMA core).
func TestRealWorldFresh74(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh74", 1) }

// TestRealWorldFresh75 keeps the seventy-fifth (CJK blogs and notes), scored on the final code of its session honest:
// 6 of 10 fresh; its misses (RoCE netdevs in ifconfig, nvidia-smi -q -d ECC and nvlink -s, a one-host run read as IB disabled) are not fixed yet.
func TestRealWorldFresh75(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh75", 0.6) }

// TestRealWorldFresh76 keeps the seventy-sixth (HPC centre documentation), scored on the final code of its session honest:
// 9 of 12 fresh; its misses (an OSU CUDA-buffer latency, a P2P-disabled run, a GPU-aware MPI test) are not fixed yet.
func TestRealWorldFresh76(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh76", 0.75) }

// TestRealWorldFresh77 keeps the seventy-seventh (projects that ride on RDMA) honest:
// 6 of 14 fresh; 10 of 14 after its first fixes (UCX lines inside prose, DPDK's PMD without Verbs devices, NVSHMEM's failed IBGDA init); DeepEP and testpmd outputs are not fixed yet.
func TestRealWorldFresh77(t *testing.T) { scoreRealWorld(t, "testdata/realworld-fresh77", 0.7) }

// scoreRealWorld judges every sample of dir against its expect.tsv and
// fails below minScore, on an unlisted file, on a new miss, or on a known
// miss that is now right.
func scoreRealWorld(t *testing.T, dir string, minScore float64) {
	cases := readRealWorldFrom(t, dir)
	if len(cases) == 0 {
		t.Fatal("expect.tsv lists no samples")
	}
	right := 0
	listed := map[string]bool{}
	for _, c := range cases {
		listed[c.file] = true
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Errorf("expect.tsv line %d: %v", c.line, err)
			continue
		}
		_, wrong := judgeRealWorld(c, string(b))
		switch {
		case len(wrong) == 0 && c.knownMiss != "":
			right++
			t.Errorf("%s: listed as a known miss (%s) but now right: drop the note", c.file, c.knownMiss)
		case len(wrong) == 0:
			right++
		case c.knownMiss != "":
			t.Logf("%s: known miss (%s): %s", c.file, c.knownMiss, strings.Join(wrong, "; "))
		default:
			t.Errorf("%s: %s", c.file, strings.Join(wrong, "; "))
		}
	}
	// Every sample in the folder is judged.
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if n := e.Name(); n != "README.md" && n != "expect.tsv" && !listed[n] {
			t.Errorf("%s is not in expect.tsv", n)
		}
	}
	score := float64(right) / float64(len(cases))
	t.Logf("%s:", dir)
	t.Logf("real-world corpus: %d of %d right (%.1f%%)", right, len(cases), 100*score)
	if score < minScore {
		t.Errorf("real-world corpus: %d of %d right (%.1f%%), want at least %.0f%%", right, len(cases), 100*score, 100*minScore)
	}
}
