package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// judge runs one kernel-log rule over log lines and returns each
// finding as "ID severity: summary".
func judge(check func(*Input) []finding.Finding, log ...string) []string {
	var out []string
	for _, f := range check(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf(log...)}) {
		out = append(out, f.ID+" "+string(f.Severity)+": "+f.Summary)
	}
	return out
}

// checkFindings compares findings with the prefixes wanted, one each.
func checkFindings(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("got  %s\nwant %s…", got[i], want[i])
		}
	}
}

// kmsg.tx_timeout: one finding per interface with its queues; a warning
// for one stall, critical when a queue stalls again or the recovery
// fails. The mlx5e lines are from a net/sched patch description on LKML
// (analyze testdata/realworld-fresh20,
// dmesg-lkml-sched-mlx5-tx-timeout-queues-tab-indented.txt); the
// watchdog, IPoIB and recovery lines as net/sched/sch_generic.c,
// ipoib_main.c and mlx5e en/reporter_tx.c print them.
func TestCheckTxTimeout(t *testing.T) {
	q40 := "mlx5_core 0000:af:00.0 enp175s0f0: TX timeout on queue: 40, SQ: 0x13106, CQ: 0x5b5, SQ Cons: 0x1 SQ Prod: 0x1, usecs since last trans: 28559000"
	q42 := "mlx5_core 0000:af:00.0 enp175s0f0: TX timeout on queue: 42, SQ: 0x12688, CQ: 0x5b5, SQ Cons: 0x1 SQ Prod: 0x1, usecs since last trans: 15919000"
	q42b := "mlx5_core 0000:af:00.0 enp175s0f0: TX timeout on queue: 42, SQ: 0x122d6, CQ: 0x4af, SQ Cons: 0x4 SQ Prod: 0x4, usecs since last trans: 15137000"
	wd := "NETDEV WATCHDOG: enp175s0f0 (mlx5_core): transmit queue 40 timed out 28559 ms"
	for _, tt := range []struct {
		name string
		log  []string
		want []string
	}{
		{"one stall of two queues: a warning", []string{q40, q42},
			[]string{"kmsg.tx_timeout warning: enp175s0f0 (0000:af:00.0): transmit queues 40, 42 stalled: 2 TX timeout messages in the kernel log, up to 28.559 s since the queue last sent; the driver recovers"}},
		// The watchdog's line and the driver's for the same stall are one stall of queue 40.
		{"the watchdog and the driver name the same stall", []string{wd, q40},
			[]string{"kmsg.tx_timeout warning: enp175s0f0 (0000:af:00.0, mlx5_core): transmit queue 40 stalled: 2 TX timeout messages"}},
		{"a queue that stalls again: critical", []string{q40, q42, q42b},
			[]string{"kmsg.tx_timeout critical: enp175s0f0 (0000:af:00.0): transmit queues 40, 42 stalled: 3 TX timeout messages in the kernel log, up to 28.559 s since the queue last sent; 1 queue (42) timed out again"}},
		{"a failed recovery: critical", []string{q40, "mlx5_core 0000:af:00.0 enp175s0f0: mlx5e_safe_reopen_channels failed recovering from a tx_timeout, err(-110)."},
			[]string{"kmsg.tx_timeout critical: enp175s0f0 (0000:af:00.0): transmit queue 40 stalled: 1 TX timeout message in the kernel log, up to 28.559 s since the queue last sent; the driver failed to recover it (mlx5e_safe_reopen_channels failed recovering from a tx_timeout, err(-110))"}},
		{"IPoIB and another netdev: one finding each", []string{"ib0: transmit timeout: latency 9956 msecs", "NETDEV WATCHDOG: CPU: 3: transmit queue 0 timed out 5120 ms"},
			[]string{"kmsg.tx_timeout warning: ib0: its transmit queue stalled: 1 TX timeout message in the kernel log, up to 9.956 s", "kmsg.tx_timeout warning: an interface the log does not name: transmit queue 0 stalled"}},
		{"the watchdog's new form names the device", []string{"mlx5_core 0000:af:00.0 enp175s0f0: NETDEV WATCHDOG: CPU: 12: transmit queue 3 timed out 5376 ms"},
			[]string{"kmsg.tx_timeout warning: enp175s0f0 (0000:af:00.0, mlx5_core): transmit queue 3 stalled"}},
		// A soft lockup beside the timeout is the host wedged: critical. The
		// lines are a mail-quoted syslog of an NVMe hot remove (analyze
		// testdata/realworld-fresh46,
		// syslog-lfdrext4-hcd56-nvme-hotremove-soft-lockup-ib0-tx-timeout.txt),
		// quoting and syslog prefix off.
		{"IPoIB timeout during a soft lockup: critical", []string{"[88463.800033] watchdog: BUG: soft lockup - CPU#38 stuck for 23s! [irq/27-pciehp:416]", "[88463.804076] ib0: transmit timeout: latency 20428 msecs", "[88463.807609] ib0: queue stopped 1, tx_head 7638106, tx_tail 7637978"},
			[]string{`kmsg.tx_timeout critical: ib0: its transmit queue stalled: 1 TX timeout message in the kernel log, up to 20.428 s since the queue last sent; a soft lockup at the same time (line 1: "watchdog: BUG: soft lockup - CPU#38 stuck for 23s! [irq/27-pciehp:416]")`}},
		{"a soft lockup an hour before: a warning", []string{"[84863.800033] watchdog: BUG: soft lockup - CPU#38 stuck for 23s! [irq/27-pciehp:416]", "[88463.804076] ib0: transmit timeout: latency 20428 msecs"},
			[]string{"kmsg.tx_timeout warning: ib0: its transmit queue stalled"}},
		{"other mlx5e lines: nothing", []string{"mlx5_core 0000:af:00.0 enp175s0f0: Link up", "mlx5_core 0000:af:00.0: E-Switch: Total vports 2, per vport: max uc(128) max mc(2048)"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) { checkFindings(t, judge(checkTxTimeout, tt.log...), tt.want) })
	}
}

// kmsg.rdma_peer_unreachable: LNet o2ib lines name the peer lost, one
// finding per peer, critical. The "Timed out tx" lines are from a Lustre
// client's dmesg -T (analyze testdata/realworld-fresh19,
// dmesg-jadehpc14-lustre-lnet-o2ib-timed-out-tx-403055s.txt); the others
// as lnet/klnds/o2iblnd/o2iblnd_cb.c prints them.
func TestCheckRDMAPeer(t *testing.T) {
	for _, tt := range []struct {
		name string
		log  []string
		want []string
	}{
		{"transmits timed out", []string{
			"LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Timed out tx for 172.31.126.87@o2ib: 403055 seconds",
			"LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Skipped 24 previous similar messages",
			"LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Timed out tx for 172.31.126.87@o2ib: 403661 seconds",
		}, []string{"kmsg.rdma_peer_unreachable critical: LNet (Lustre) over RDMA lost peer 172.31.126.87@o2ib: transmits to it timed out (2 messages in the kernel log); the peer has not answered for 403661 s (4.7 days)"}},
		{"two peers, an RDMA timeout and a rejection", []string{
			"LNetError: 2431:0:(o2iblnd_cb.c:3251:kiblnd_check_conns()) Timed out RDMA with 10.0.0.2@o2ib1 (52): c: 0, oc: 0, rc: 8",
			"LNetError: 3317:0:(o2iblnd_cb.c:2781:kiblnd_rejected()) 10.0.0.3@o2ib1 rejected: consumer defined fatal error",
		}, []string{
			"kmsg.rdma_peer_unreachable critical: LNet (Lustre) over RDMA lost peer 10.0.0.2@o2ib1: RDMA with it timed out (1 message in the kernel log); the peer has not answered for 52 s",
			"kmsg.rdma_peer_unreachable critical: LNet (Lustre) over RDMA lost peer 10.0.0.3@o2ib1: it rejected the connection",
		}},
		{"a peer that cannot be reached to connect", []string{
			"LNetError: 3317:0:(o2iblnd_cb.c:3087:kiblnd_cm_callback()) 10.0.0.2@o2ib: ADDR ERROR -110",
			"LNetError: 3317:0:(o2iblnd_cb.c:3087:kiblnd_cm_callback()) 10.0.0.2@o2ib: UNREACHABLE -110",
		}, []string{"kmsg.rdma_peer_unreachable critical: LNet (Lustre) over RDMA lost peer 10.0.0.2@o2ib: its address or route did not resolve to connect (ADDR ERROR -110); connecting to it failed (UNREACHABLE -110) (2 messages in the kernel log)"}},
		// NVMe over RDMA: spdk/spdk#257 (analyze testdata/realworld-fresh25,
		// dmesg-spdk257-nvme-rdma-connect-rejected-invalid-service-id.txt): the
		// host reconnects every 10 s and is refused each time, critical.
		{"nvme-rdma connect rejected, reconnecting", []string{
			"nvme nvme1: Connect rejected: status 8 (invalid service ID).",
			"nvme nvme1: rdma_resolve_addr wait failed (-104).",
			"nvme nvme1: Failed reconnect attempt, requeueing...",
			"nvme nvme1: Connect rejected: status 8 (invalid service ID).",
			"nvme nvme1: rdma_resolve_addr wait failed (-104).",
			"nvme nvme1: Failed reconnect attempt, requeueing...",
		}, []string{"kmsg.rdma_peer_unreachable critical: NVMe over RDMA controller nvme1 cannot connect to its target: " +
			"the target refused the connection (Connect rejected: status 8 (invalid service ID): nothing listens on that port at the target address; the port is the trsvcid, 4420 by default); " +
			"rdma_resolve_addr wait failed (-104): ECONNRESET, the target refused the RDMA connection or its address, route or connect failed (4 messages in the kernel log): " +
			"it keeps reconnecting and failing (2 failed reconnect attempts), and its namespaces stay unreachable"}},
		// spdk/spdk#697 (dmesg-spdk697-nvme-rdma-connection-establishment-failed-104-ctime.txt):
		// nvme connect failed, no reconnect loop: a warning.
		{"nvme-rdma connect failed once", []string{
			"nvme nvme0: rdma connection establishment failed (-104)",
			"nvme nvme0: rdma connection establishment failed (-104)",
		}, []string{"kmsg.rdma_peer_unreachable warning: NVMe over RDMA controller nvme0 cannot connect to its target: " +
			"rdma connection establishment failed (-104): ECONNRESET, the target refused the RDMA connection or its address, route or connect failed (2 messages in the kernel log): " +
			"the connect failed, so the target's namespaces are not attached"}},
		{"nvme-rdma controller given up", []string{
			`nvme nvme2: new ctrl: NQN "nqn.2016-06.io.spdk:cnode1", addr 192.168.1.130:4420`,
			"nvme nvme2: rdma connection establishment failed (-110)",
			"nvme nvme2: Failed reconnect attempt 60/60",
			"nvme nvme2: Removing controller...",
		}, []string{"kmsg.rdma_peer_unreachable critical: NVMe over RDMA controller nvme2 cannot connect to its target 192.168.1.130:4420: " +
			"rdma connection establishment failed (-110): ETIMEDOUT, no answer in time: the target address does not resolve over RDMA or the target is down (1 message in the kernel log): " +
			"the host gave up reconnecting and removed the controller, so its namespaces are gone"}},
		// I/O timeouts on an NVMe over RDMA controller: spdk/spdk#1596 (analyze
		// testdata/realworld-fresh26, dmesg-spdk1596-nvme-rdma-io-timeout-error-recovery.txt,
		// host init-7946): rdma.c nvme_rdma_timeout's bare "I/O N QID M timeout"
		// and nvme_rdma_error_recovery's "starting error recovery", a warning.
		{"nvme-rdma I/O timeouts, error recovery", []string{
			"Sep 17 12:56:14 init-7946 kernel: nvme nvme0: I/O 33 QID 10 timeout",
			"Sep 17 12:56:14 init-7946 kernel: nvme nvme0: starting error recovery",
			"Sep 17 12:56:14 init-7946 kernel: nvme nvme0: I/O 56 QID 10 timeout",
			"Sep 17 12:56:14 init-7946 kernel: nvme nvme0: I/O 105 QID 7 timeout",
		}, []string{"kmsg.rdma_peer_unreachable warning: NVMe over RDMA controller nvme0: I/O to its target stalled, " +
			"3 I/Os timed out on queues 10, 7 at once and the host started error recovery (tore the queues down to reconnect them) in the kernel log: " +
			"I/O on those queues hangs until the host reconnects"}},
		{"nvme-rdma I/O timeouts (6.5+ wording), reconnected", []string{
			`[  100.000000] nvme nvme1: new ctrl: NQN "nqn.2016-06.io.spdk:cnode1", addr 192.168.1.130:4420`,
			"[  200.500000] nvme nvme1: I/O tag 12 (700c) opcode 0x2 (I/O Cmd) QID 3 timeout",
			"[  200.500100] nvme nvme1: starting error recovery",
			"[  231.250000] nvme nvme1: I/O tag 40 (102e) opcode 0x1 (I/O Cmd) QID 3 timeout",
			"[  241.000000] nvme nvme1: Successfully reconnected (1 attempt)",
		}, []string{"kmsg.rdma_peer_unreachable warning: NVMe over RDMA controller nvme1: I/O to its target 192.168.1.130:4420 stalled, " +
			"2 I/Os timed out on queue 3 over 30.75s and the host started error recovery (tore the queues down to reconnect them) in the kernel log: " +
			"the host reconnected, but I/O hung until it did"}},
		{"nvme-rdma I/O timeouts, reconnects fail, removed: critical", []string{
			"[  200.500000] nvme nvme1: I/O 12 QID 0 timeout",
			"[  200.500100] nvme nvme1: starting error recovery",
			"[  210.000000] nvme nvme1: Failed reconnect attempt 1/2",
			"[  220.000000] nvme nvme1: Failed reconnect attempt 2/2",
			"[  220.000100] nvme nvme1: Removing controller...",
		}, []string{"kmsg.rdma_peer_unreachable critical: NVMe over RDMA controller nvme1: I/O to its target stalled, " +
			"1 I/O timed out on queue 0 and the host started error recovery (tore the queues down to reconnect them) in the kernel log: " +
			"the host gave up reconnecting and removed the controller"}},
		// NVMe over PCIe times out in its own words (drivers/nvme/host/pci.c
		// nvme_timeout), nvme-tcp too (tcp.c nvme_tcp_timeout): not RDMA.
		{"PCIe and TCP NVMe timeouts: nothing", []string{
			"nvme nvme1: I/O 22 QID 0 timeout, disable controller",
			"nvme nvme0: I/O 1010 QID 3 timeout, aborting",
			"nvme nvme0: I/O tag 28 (401c) opcode 0x1 (Write) QID 2 timeout, aborting req_op:WRITE(1) size:131072",
			"nvme nvme2: I/O tag 17 (c011) type 4 opcode 0x2 (I/O Cmd) QID 6 timeout",
			"nvme nvme2: starting error recovery",
		}, nil},
		{"fabrics reconnects without an RDMA failure (nvme-tcp too): nothing", []string{
			`nvme nvme0: new ctrl: NQN "testnqn", addr 10.0.0.5:4420`,
			"nvme nvme0: Failed reconnect attempt 3",
			"nvme nvme0: Removing controller...",
		}, nil},
		{"Lustre's own lines alone: nothing", []string{
			"Lustre: 2449:0:(client.c:2141:ptlrpc_expire_one_request()) Skipped 24 previous similar messages",
			"LNet: HW NUMA nodes: 2, HW CPU cores: 32, npartitions: 2",
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) { checkFindings(t, judge(checkRDMAPeer, tt.log...), tt.want) })
	}
}

// pcie.slot_power: mlx5's insufficient slot power line (events.c
// mlx5_pcie_event, as leptonai/gpud's matcher quotes it), once per card
// (its functions share the slot); the sufficient and not-advertised lines
// give nothing.
func TestCheckSlotPower(t *testing.T) {
	low := "mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W)."
	low1 := "mlx5_core 0000:5c:00.1: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W)."
	other := "mlx5_core 0000:9a:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W)."
	checkFindings(t, judge(checkSlotPower, low, low1, low, other), []string{
		"pcie.slot_power warning: 0000:5c:00.0: the mlx5 firmware detected insufficient power on the PCIe slot (27W in its report)",
		"pcie.slot_power warning: 0000:9a:00.0: the mlx5 firmware detected insufficient power on the PCIe slot (27W in its report)",
	})
	checkFindings(t, judge(checkSlotPower,
		"mlx5_core 0000:5c:00.0: mlx5_pcie_event:303:(pid 10): PCIe slot advertised sufficient power (75W).",
		"mlx5_core 0000:5c:00.0: mlx5_pcie_event:296:(pid 10): PCIe slot power capability was not advertised."), nil)
}

// pcie.link_degraded from a driver's own link report (Corundum mqnic,
// corundum/corundum#172, analyze testdata/realworld-fresh19): a status
// below the capability on a network adapter is critical; a status that
// matches it, or a status without its capability line, is nothing.
func TestDriverLinkReport(t *testing.T) {
	capab := "mqnic 0000:01:00.0:  **_Link capability: gen 3 x16_**"
	for _, tt := range []struct {
		name string
		log  []string
		want []string
	}{
		{"x4 of x16", []string{capab, "mqnic 0000:01:00.0:  **_Link status: gen 3 x4_**"},
			[]string{"pcie.link_degraded critical: 0000:01:00.0: PCIe link trained at gen 3 x4, the device is capable of gen 3 x16 (the mqnic driver's own link report at probe); the device is a network adapter"}},
		{"gen 1 of gen 3", []string{"mqnic 0000:01:00.0:  Link capability: gen 3 x8", "mqnic 0000:01:00.0:  Link status: gen 1 x8"},
			[]string{"pcie.link_degraded critical: 0000:01:00.0: PCIe link trained at gen 1 x8, the device is capable of gen 3 x8"}},
		// The same report from a driver of RDMA devices (one that would print it) is a network adapter's.
		{"an RDMA driver", []string{"mlx5_core 0000:03:00.0:  Link capability: gen 4 x16", "mlx5_core 0000:03:00.0:  Link status: gen 4 x8"},
			[]string{"pcie.link_degraded critical: 0000:03:00.0: PCIe link trained at gen 4 x8, the device is capable of gen 4 x16"}},
		{"an unknown driver: a warning", []string{"fpgadrv 0000:02:00.0:  Link capability: gen 4 x8", "fpgadrv 0000:02:00.0:  Link status: gen 4 x4"},
			[]string{"pcie.link_degraded warning: 0000:02:00.0: PCIe link trained at gen 4 x4, the device is capable of gen 4 x8"}},
		{"at its capability", []string{"mqnic 0000:01:00.0:  Link capability: gen 3 x16", "mqnic 0000:01:00.0:  Link status: gen 3 x16"}, nil},
		{"another device's capability", []string{capab, "mqnic 0000:02:00.0:  Link status: gen 3 x4"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) { checkFindings(t, judge(checkPCIeBandwidth, tt.log...), tt.want) })
	}
}

// The transport's own causes and remedies: an NVMe over RDMA finding names
// nvme commands and no lctl, an LNet one the reverse.
func TestRDMAPeerTransportRemedies(t *testing.T) {
	for _, tt := range []struct {
		line      string
		want, not string
	}{
		{"nvme nvme0: rdma connection establishment failed (-104)", "nvme list-subsys, and cat /sys/class/nvme/nvme0/address", "lctl"},
		{"LNetError: 3317:0:(o2iblnd_cb.c:3087:kiblnd_cm_callback()) 10.0.0.2@o2ib: UNREACHABLE -110", "lctl ping 10.0.0.2@o2ib", "nvme"},
	} {
		fs := checkRDMAPeer(&Input{Snap: &snapshot.Snapshot{}, Kernel: logOf(tt.line)})
		if len(fs) != 1 {
			t.Fatalf("%q: %d findings", tt.line, len(fs))
		}
		all := strings.Join(append(fs[0].Remedy, fs[0].Causes...), "\n")
		if !strings.Contains(all, tt.want) || strings.Contains(all, tt.not) || strings.Contains(all, "Lustre: ") || strings.Contains(all, "NVMe over RDMA: ") {
			t.Errorf("%q: remedies and causes\n%s\nwant %q, not %q, no markers", tt.line, all, tt.want, tt.not)
		}
	}
}
