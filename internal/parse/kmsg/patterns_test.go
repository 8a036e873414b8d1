package kmsg

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// patternSamples are kernel log lines (record texts) for the rows of
// Patterns, with the event each gives. Every row needs at least one.
var patternSamples = []struct {
	row  string
	text string
	want Event
}{
	// CQ errors: ofiwg/libfabric#4525 and linux-nvme/nvme-cli#3268 (analyze testdata/realworld-fresh11),
	// the WC error line of an NVMe over RDMA host on linux-rdma (kernel 5.18-rc6, "nvme nvme0: starting error recovery").
	{"mlx5-cq-error-event", "mlx5_core 0000:02:00.0: mlx5_eq_int:556:(pid 0): CQ error on CQN 0x40a, syndrom 0x1",
		Event{Kind: KindCQ, PCI: "0000:02:00.0", CQ: CQEvent, CQN: "0x40a", Syndrome: 1}},
	{"mlx5-ib-error-cqe", "infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x406:",
		Event{Kind: KindCQ, Interface: "rocep33s0f0", CQ: CQErrorCQE, CQN: "0x406", Detail: "Responder"}},
	{"mlx5-ib-error-cqe-syndrome", "infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome 0x5, vendor syndrome 0xf9",
		Event{Kind: KindCQ, Interface: "rocep33s0f0", CQ: CQSyndrome, Syndrome: 5, VendorSyndrome: 0xf9}},
	// linux-rdma, NFS over RDMA on kernel 5.10 (analyze testdata/realworld-fresh12); the syndromes are in the hex lines after it (cqedump.go).
	{"mlx5-ib-dump-error-cqe", "infiniband mlx5_0: dump_cqe:272:(pid 709): dump error cqe",
		Event{Kind: KindCQ, Interface: "mlx5_0", CQ: CQErrorCQE}},
	{"rdma-ulp-wc-error", "nvme nvme15: RECV for CQE 0x00000000ce392ed9 failed with status local protection error (4)",
		Event{Kind: KindCQ, Interface: "nvme15", CQ: CQULP, WCStatus: 4, Detail: "local protection error"}},
	{"mlx5-ib-wc-error", "infiniband mlx5_4: mlx5_handle_error_cqe:332:(pid 0): WC error: 4, Message: local protection error",
		Event{Kind: KindCQ, Interface: "mlx5_4", CQ: CQWCError, WCStatus: 4, Detail: "local protection error"}},
	// Stalled transmit queues: a net/sched patch description on LKML quoting mlx5e (analyze testdata/realworld-fresh20,
	// dmesg-lkml-sched-mlx5-tx-timeout-queues-tab-indented.txt); the other lines as the kernel sources print them.
	{"netdev-tx-timeout", "mlx5_core 0000:af:00.0 enp175s0f0: TX timeout on queue: 40, SQ: 0x13106, CQ: 0x5b5, SQ Cons: 0x1 SQ Prod: 0x1, usecs since last trans: 28559000",
		Event{Kind: KindTxTimeout, PCI: "0000:af:00.0", Interface: "enp175s0f0", Queue: "40", StallMs: 28559}},
	{"netdev-tx-timeout", "mlx5_core 0000:af:00.0 enp175s0f0: TX timeout detected",
		Event{Kind: KindTxTimeout, PCI: "0000:af:00.0", Interface: "enp175s0f0"}},
	{"netdev-watchdog", "NETDEV WATCHDOG: enp175s0f0 (mlx5_core): transmit queue 40 timed out 28559 ms",
		Event{Kind: KindTxTimeout, Interface: "enp175s0f0", Driver: "mlx5_core", Queue: "40", StallMs: 28559, Detail: "watchdog"}},
	{"netdev-watchdog", "NETDEV WATCHDOG: eth0 (e1000e): transmit queue 0 timed out",
		Event{Kind: KindTxTimeout, Interface: "eth0", Driver: "e1000e", Queue: "0", Detail: "watchdog"}},
	{"netdev-watchdog", "mlx5_core 0000:af:00.0 enp175s0f0: NETDEV WATCHDOG: CPU: 12: transmit queue 3 timed out 5376 ms",
		Event{Kind: KindTxTimeout, PCI: "0000:af:00.0", Interface: "enp175s0f0", Driver: "mlx5_core", Queue: "3", StallMs: 5376, Detail: "watchdog"}},
	{"ipoib-tx-timeout", "ib0: transmit timeout: latency 9956 msecs",
		Event{Kind: KindTxTimeout, Interface: "ib0", StallMs: 9956}},
	{"netdev-tx-timeout-recovery-failed", "mlx5_core 0000:af:00.0 enp175s0f0: mlx5e_safe_reopen_channels failed recovering from a tx_timeout, err(-110).",
		Event{Kind: KindTxTimeout, PCI: "0000:af:00.0", Interface: "enp175s0f0", IsError: true, Detail: "mlx5e_safe_reopen_channels failed recovering from a tx_timeout, err(-110)"}},
	// Modules built for another kernel or RDMA stack: Seagate/cortx-motr#17 (analyze testdata/realworld-fresh29,
	// syslog-cortxmotr17-ko2iblnd-symbol-mismatch-lnet-o2ib-fails.txt), Mellanox/nv_peer_memory#8 and #84 (dmesg quoted
	// in the issues); the version magic line as kernel/module/main.c check_modinfo prints it.
	{"module-symbol-version", "ko2iblnd: disagrees about version of symbol ib_fmr_pool_unmap",
		Event{Kind: KindModuleLoad, IsError: true, Driver: "ko2iblnd", Symbol: "ib_fmr_pool_unmap", Detail: "disagrees about version of symbol"}},
	{"module-symbol-version", "nv_peer_mem: disagrees about version of symbol nvidia_p2p_get_pages",
		Event{Kind: KindModuleLoad, IsError: true, Driver: "nv_peer_mem", Symbol: "nvidia_p2p_get_pages", Detail: "disagrees about version of symbol"}},
	{"module-unknown-symbol", "ko2iblnd: Unknown symbol __ib_alloc_pd (err -22)",
		Event{Kind: KindModuleLoad, IsError: true, Driver: "ko2iblnd", Symbol: "__ib_alloc_pd", Detail: "Unknown symbol (err -22)"}},
	{"module-unknown-symbol", "nv_peer_mem: Unknown symbol ib_register_peer_memory_client (err 0)",
		Event{Kind: KindModuleLoad, IsError: true, Driver: "nv_peer_mem", Symbol: "ib_register_peer_memory_client", Detail: "Unknown symbol (err 0)"}},
	{"module-unknown-symbol", "knem: Unknown symbol mmu_notifier_register",
		Event{Kind: KindModuleLoad, IsError: true, Driver: "knem", Symbol: "mmu_notifier_register", Detail: "Unknown symbol"}},
	{"module-version-magic", "nvidia: version magic '5.4.0-42-generic SMP mod_unload ' should be '5.4.0-48-generic SMP mod_unload '",
		Event{Kind: KindModuleLoad, IsError: true, Driver: "nvidia", Detail: "version magic '5.4.0-42-generic SMP mod_unload ' should be '5.4.0-48-generic SMP mod_unload '"}},
	{"lnet-lnd-load", "LNetError: 172781:0:(api-ni.c:2533:lnet_startup_lndnet()) Can't load LND o2ib, module ko2iblnd, rc=256",
		Event{Kind: KindModuleLoad, IsError: true, Driver: "ko2iblnd", Interface: "o2ib", Detail: "Can't load LND (rc=256)"}},
	// Lustre LNet o2ib: a Lustre client's dmesg -T (analyze testdata/realworld-fresh19, dmesg-jadehpc14-lustre-lnet-o2ib-timed-out-tx-403055s.txt);
	// the others as lnet/klnds/o2iblnd/o2iblnd_cb.c prints them.
	{"lnet-o2ib-timeout", "LNet: 2431:0:(o2iblnd_cb.c:3174:kiblnd_check_conns()) Timed out tx for 172.31.126.87@o2ib: 403055 seconds",
		Event{Kind: KindRDMAPeer, Interface: "172.31.126.87@o2ib", Detail: "Timed out tx for", StallMs: 403055000}},
	{"lnet-o2ib-timeout", "LNetError: 2431:0:(o2iblnd_cb.c:3251:kiblnd_check_conns()) Timed out RDMA with 10.0.0.2@o2ib1 (52): c: 0, oc: 0, rc: 8",
		Event{Kind: KindRDMAPeer, Interface: "10.0.0.2@o2ib1", Detail: "Timed out RDMA with", StallMs: 52000}},
	{"lnet-o2ib-rejected", "LNetError: 3317:0:(o2iblnd_cb.c:2781:kiblnd_rejected()) 10.0.0.2@o2ib rejected: consumer defined fatal error",
		Event{Kind: KindRDMAPeer, Interface: "10.0.0.2@o2ib", Detail: "rejected"}},
	{"lnet-o2ib-cm-error", "LNetError: 3317:0:(o2iblnd_cb.c:3040:kiblnd_cm_callback()) 10.0.0.2@o2ib: ADDR ERROR -110",
		Event{Kind: KindRDMAPeer, Interface: "10.0.0.2@o2ib", Detail: "ADDR ERROR -110"}},
	{"lnet-o2ib-cm-error", "LNetError: 3317:0:(o2iblnd_cb.c:3087:kiblnd_cm_callback()) 10.0.0.2@o2ib: UNREACHABLE -110",
		Event{Kind: KindRDMAPeer, Interface: "10.0.0.2@o2ib", Detail: "UNREACHABLE -110"}},
	// NVMe over RDMA: spdk/spdk#257 (analyze testdata/realworld-fresh25, dmesg-spdk257-nvme-rdma-connect-rejected-invalid-service-id.txt)
	// and spdk/spdk#697 (dmesg-spdk697-nvme-rdma-connection-establishment-failed-104-ctime.txt); the others as drivers/nvme/host/rdma.c prints them.
	{"nvme-rdma-rejected", "nvme nvme0: Connect rejected: status 8 (invalid service ID).",
		Event{Kind: KindRDMAPeer, Driver: "nvme-rdma", Interface: "nvme0", Detail: "Connect rejected: status 8 (invalid service ID)"}},
	{"nvme-rdma-rejected", "nvme nvme3: Connect rejected: status 28 (consumer defined) nvme status 6 (resource not found).",
		Event{Kind: KindRDMAPeer, Driver: "nvme-rdma", Interface: "nvme3", Detail: "Connect rejected: status 28 (consumer defined) nvme status 6 (resource not found)"}},
	{"nvme-rdma-cm-failed", "nvme nvme1: rdma_resolve_addr wait failed (-104).",
		Event{Kind: KindRDMAPeer, Driver: "nvme-rdma", Interface: "nvme1", Detail: "rdma_resolve_addr wait failed (-104)"}},
	{"nvme-rdma-cm-failed", "nvme nvme0: rdma connection establishment failed (-104)",
		Event{Kind: KindRDMAPeer, Driver: "nvme-rdma", Interface: "nvme0", Detail: "rdma connection establishment failed (-104)"}},
	{"nvme-rdma-cm-failed", "nvme nvme2: rdma_connect_locked failed (-22).",
		Event{Kind: KindRDMAPeer, Driver: "nvme-rdma", Interface: "nvme2", Detail: "rdma_connect_locked failed (-22)"}},
	{"nvme-fabrics-reconnect-failed", "nvme nvme2: Failed reconnect attempt, requeueing...",
		Event{Kind: KindRDMAPeer, Driver: "nvme-fabrics", Interface: "nvme2", Detail: "reconnect failed"}},
	{"nvme-fabrics-reconnect-failed", "nvme nvme0: Failed reconnect attempt 12/600",
		Event{Kind: KindRDMAPeer, Driver: "nvme-fabrics", Interface: "nvme0", Detail: "reconnect failed"}},
	{"nvme-fabrics-new-ctrl", `nvme nvme0: new ctrl: NQN "nqn.2016-06.io.spdk:cnode1", addr 192.168.1.130:4420`,
		Event{Kind: KindRDMAPeer, Driver: "nvme-fabrics", Interface: "nvme0", Detail: "addr 192.168.1.130:4420"}},
	{"nvme-fabrics-new-ctrl", `nvme nvme1: new ctrl: NQN "testnqn", addr [fe80::1%ib0]:4420, hostnqn: nqn.2014-08.org.nvmexpress:uuid:1b4e28ba`,
		Event{Kind: KindRDMAPeer, Driver: "nvme-fabrics", Interface: "nvme1", Detail: "addr [fe80::1%ib0]:4420"}},
	{"nvme-fabrics-removing", "nvme nvme0: Removing controller...",
		Event{Kind: KindRDMAPeer, Driver: "nvme-fabrics", Interface: "nvme0", Detail: "removing"}},
	// NVMe over RDMA I/O timeouts: spdk/spdk#1596 (analyze testdata/realworld-fresh26, dmesg-spdk1596-nvme-rdma-io-timeout-error-recovery.txt,
	// syslog lines of host init-7946); the 6.5+ wording as drivers/nvme/host/rdma.c nvme_rdma_timeout prints it.
	{"nvme-rdma-io-timeout", "nvme nvme0: I/O 33 QID 10 timeout",
		Event{Kind: KindRDMAPeer, Driver: "nvme-rdma", Interface: "nvme0", Detail: "I/O timeout", Queue: "10"}},
	{"nvme-rdma-io-timeout", "Sep 17 12:56:14 init-7946 kernel: nvme nvme0: I/O 114 QID 7 timeout",
		Event{Kind: KindRDMAPeer, Driver: "nvme-rdma", Interface: "nvme0", Detail: "I/O timeout", Queue: "7"}},
	{"nvme-rdma-io-timeout", "nvme nvme1: I/O tag 12 (700c) opcode 0x2 (I/O Cmd) QID 3 timeout",
		Event{Kind: KindRDMAPeer, Driver: "nvme-rdma", Interface: "nvme1", Detail: "I/O timeout", Queue: "3"}},
	{"nvme-fabrics-error-recovery", "Sep 17 12:56:14 init-7946 kernel: nvme nvme0: starting error recovery",
		Event{Kind: KindRDMAPeer, Driver: "nvme-fabrics", Interface: "nvme0", Detail: "error recovery"}},
	{"nvme-fabrics-reconnected", "nvme nvme0: Successfully reconnected (1 attempt)",
		Event{Kind: KindRDMAPeer, Driver: "nvme-fabrics", Interface: "nvme0", Detail: "reconnected"}},
	// Devices gone from the bus: the ixgbe line of a linux-pci mail (analyze testdata/realworld-fresh24,
	// dmesg-linuxpci-ixgbe-advisory-nonfatal-adapter-removed.txt), the nvme one of a linux-pci mail quoted four levels deep
	// (dmesg-linuxpci-edr-dpc-fatal-malftlp-nvme-quoted.txt); the igb/igc lines as igb_main.c and igc_main.c print them.
	{"nic-adapter-removed", "ixgbe 0000:05:00.0: Adapter removed",
		Event{Kind: KindDeviceGone, Driver: "ixgbe", PCI: "0000:05:00.0", Detail: "Adapter removed"}},
	{"nic-pcie-link-lost", "igb 0000:03:00.0 eno1: PCIe link lost",
		Event{Kind: KindDeviceGone, Driver: "igb", PCI: "0000:03:00.0", Interface: "eno1", Detail: "PCIe link lost"}},
	{"nic-pcie-link-lost", "igc 0000:0b:00.0 enp11s0: PCIe link lost, device now detached",
		Event{Kind: KindDeviceGone, Driver: "igc", PCI: "0000:0b:00.0", Interface: "enp11s0", Detail: "PCIe link lost"}},
	{"nic-pcie-link-lost", "igb 0000:03:00.0 (unnamed net_device) (uninitialized): PCIe link lost",
		Event{Kind: KindDeviceGone, Driver: "igb", PCI: "0000:03:00.0", Detail: "PCIe link lost"}},
	// linux-rdma, an mlx5 health recovery on a POWER host (EEH) quoted in a patch review.
	{"mlx5-pci-channel-offline", "mlx5_core 0004:01:00.0: mlx5_error_sw_reset:252:(pid 1618): PCI channel offline, stop waiting for NIC IFC",
		Event{Kind: KindDeviceGone, Driver: "mlx5_core", PCI: "0004:01:00.0", Detail: "PCI channel offline"}},
	{"nvme-disabled-after-reset", "nvme nvme1: Disabling device after reset failure: -5",
		Event{Kind: KindDeviceGone, Driver: "nvme", Interface: "nvme1", Detail: "Disabling device after reset failure: -5"}},
	// corundum/corundum#172 (analyze testdata/realworld-fresh19), markdown emphasis as posted; the Classifier pairs the two lines.
	{"driver-pcie-link-report", "mqnic 0000:01:00.0:  **_Link status: gen 3 x4_**",
		Event{Kind: KindPCIeLinkReport, PCI: "0000:01:00.0", Driver: "mqnic", Detail: "status", LimitedBy: "gen 3 x4"}},
	{"driver-pcie-link-report", "mqnic 0000:01:00.0:  Link capability: gen 3 x16",
		Event{Kind: KindPCIeLinkReport, PCI: "0000:01:00.0", Driver: "mqnic", Detail: "capability", LimitedBy: "gen 3 x16"}},
	// The line as leptonai/gpud's kernel-message matcher quotes it (pkg/.../infiniband), printed by mlx5 events.c mlx5_pcie_event.
	{"mlx5-slot-power", "mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid 268269): Detected insufficient power on the PCIe slot (27W).",
		Event{Kind: KindSlotPower, PCI: "0000:5c:00.0", Detail: "27W"}},
	{"nvidia-xid", "NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.",
		Event{Kind: KindXid, PCI: "0000:2b:00.0", Xid: 79, GPUInstance: -1, Detail: "GPU has fallen off the bus."}},
	{"nvidia-xid", "NVRM: Xid (PCI:0000:9b:00 GPU-I:01 GPU-CI:00): 31, pid=3303, name=pt_main_thread, Ch 00000008, intr 00000000. MMU Fault",
		Event{Kind: KindXid, PCI: "0000:9b:00.0", Xid: 31, GPUInstance: 1, XidPID: "3303", XidProcess: "pt_main_thread", Detail: "Ch 00000008, intr 00000000. MMU Fault"}},
	// Older drivers leave "PCI:" out: pastebin.com/raw/gn6mYmM4 (testdata/realworld-fresh8).
	{"nvidia-xid", "NVRM: Xid (0000:01:00): 13, 0005 00000000 0000502d 00000104 00000000 00000100",
		Event{Kind: KindXid, PCI: "0000:01:00.0", Xid: 13, GPUInstance: -1, Detail: "0005 00000000 0000502d 00000104 00000000 00000100"}},
	// The address elided or masked by the person who pasted the log: NVIDIA/nccl#2241 (analyze testdata/realworld-fresh65).
	{"nvidia-xid", "NVRM: Xid (PCI:...): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 11 (...)",
		Event{Kind: KindXid, Xid: 145, GPUInstance: -1, Detail: "RLW_RXPIPE Nonfatal XC0 i0 Link 11 (...)"}},
	{"nvidia-xid", "NVRM: Xid (PCI:0000:xx:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
		Event{Kind: KindXid, Xid: 79, GPUInstance: -1, XidPID: "'<unknown>'", XidProcess: "<unknown>", Detail: "GPU has fallen off the bus."}},
	// NVIDIA/k8s-device-plugin#189 (analyze testdata/realworld-fresh16) and the klog wording of internal/rm/health.go.
	{"device-plugin-xid", "nvidia-device-plugin: XidCriticalError: Xid=69 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8, the device will go unhealthy.",
		Event{Kind: KindXid, GPUUUID: "GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8", Xid: 69, GPUInstance: -1, Detail: "the device will go unhealthy."}},
	{"device-plugin-xid", "nvidia-device-plugin: XidCriticalError: Xid=48 on Device=MIG-4ae8f0c2-1b6d-5c8e-9f0a-2d7e3c1b9a55; marking device as unhealthy.",
		Event{Kind: KindXid, GPUUUID: "MIG-4ae8f0c2-1b6d-5c8e-9f0a-2d7e3c1b9a55", Xid: 48, GPUInstance: -1, Detail: "marking device as unhealthy."}},
	{"nvidia-fallen-off-bus", "NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
		Event{Kind: KindFallenOffBus, PCI: "0000:01:00.0", Detail: "GPU has fallen off the bus"}},
	{"nvidia-fallen-off-bus", "NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.",
		Event{Kind: KindFallenOffBus, PCI: "0000:2b:00.0", Detail: "GPU has fallen off the bus"}},
	// NV_ERR_GPU_IS_LOST without "fallen off the bus": a DGX Station A100's journal, NVIDIA/open-gpu-kernel-modules#688
	// (analyze testdata/realworld-fresh40, journalctl-ogkm688-dgx-station-a100-gpu-lost-rpc.txt); the nv.c wording with a GPU.
	{"nvidia-gpu-is-lost", "NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ kernel_ce_gv100.c:106",
		Event{Kind: KindFallenOffBus, Detail: "GPU lost from the bus (NV_ERR_GPU_IS_LOST)"}},
	{"nvidia-rpc-gpu-is-lost", "NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!",
		Event{Kind: KindFallenOffBus, Detail: "GSP RPC failed with NV_ERR_GPU_IS_LOST (0x0F): GPU lost from the bus"}},
	{"nvidia-rpc-gpu-is-lost", "NVRM: GPU 0000:41:00.0: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76 sequence 12!",
		Event{Kind: KindFallenOffBus, PCI: "0000:41:00.0", Detail: "GSP RPC failed with NV_ERR_GPU_IS_LOST (0x0F): GPU lost from the bus"}},
	{"nvidia-gpu-lost-skipping", "NVRM: GPU 0000:41:00.0: GPU is lost, skipping nvidia_poll",
		Event{Kind: KindFallenOffBus, PCI: "0000:41:00.0", Detail: "GPU lost from the bus (the driver skips its work)"}},
	// kvcache-ai/Mooncake#3299 (analyze testdata/realworld-fresh40, dmesg-mooncake3299-mlx5-bond-qp-local-length-error.txt).
	{"mlx5-ib-qp-error-syndrome", "mlx5_bond_0/1: QP 51291 error: local length error (0x8e 0x0 0x0)",
		Event{Kind: KindCQ, CQ: CQQPError, Interface: "mlx5_bond_0", Port: 1, Queue: "51291", Detail: "local length error", VendorSyndrome: 0x8e}},
	// vllm-project/vllm#29076 (analyze testdata/realworld-fresh40, dmesg-vllm29076-amdgpu-page-fault-peermem-symbol.txt).
	{"amdgpu-page-fault", "amdgpu 0000:63:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:56 vmid:8 pasid:32794)",
		Event{Kind: KindGPUFault, PCI: "0000:63:00.0", Detail: "gfxhub", IsError: true}},
	{"amdgpu-page-fault", "amdgpu 0000:03:00.0: amdgpu: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:8 pasid:32772, for process python3 pid 4242 thread python3 pid 4242)",
		Event{Kind: KindGPUFault, PCI: "0000:03:00.0", Detail: "gfxhub0", Task: "python3", TaskPID: "4242", IsError: true}},
	{"amdgpu-page-fault-process", "amdgpu 0000:63:00.0: amdgpu:  Process ray::RayWorkerW pid 1138406 thread ray::RayWorkerW pid 1138406",
		Event{Kind: KindGPUFault, PCI: "0000:63:00.0", Detail: "process", Task: "ray::RayWorkerW", TaskPID: "1138406"}},
	{"peer-mem-symbol-get", "failing symbol_get of non-GPLONLY symbol ib_register_peer_memory_client.",
		Event{Kind: KindPeerMemSymbol, Symbol: "ib_register_peer_memory_client", IsError: true}},
	{"aer-firmware-first", "mlx5_core 0000:3b:00.0: AER: aer_layer=Transaction Layer, aer_agent=Requester ID",
		Event{Kind: KindAER, PCI: "0000:3b:00.0", AERSeverity: AERCorrectable, AERType: "Transaction Layer", AERDetail: true, Detail: "firmware-first"}},
	{"aer-detail", "mlx5_core 0000:3b:00.0: AER: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), type=Transaction Layer, (Requester ID)",
		Event{Kind: KindAER, PCI: "0000:3b:00.0", AERSeverity: AERNonFatal, AERType: "Transaction Layer", AERDetail: true}},
	{"aer-detail", "pcieport 0000:00:1c.5: PCIe Bus Error: severity=Corrected, type=Physical Layer, id=00e5(Receiver ID)",
		Event{Kind: KindAER, PCI: "0000:00:1c.5", AERSeverity: AERCorrectable, AERType: "Physical Layer", AERDetail: true}},
	// Wrapped by the mail client after the severity: linux-pci, kernel bugzilla 216373 (testdata/realworld-fresh12).
	{"aer-detail", "amdgpu 0000:03:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal),",
		Event{Kind: KindAER, PCI: "0000:03:00.0", AERSeverity: AERNonFatal, AERDetail: true}},
	{"aer-received", "pcieport 0000:3a:00.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0",
		Event{Kind: KindAER, PCI: "0000:3b:00.0", Reporter: "0000:3a:00.0", AERSeverity: AERFatal, Detail: "Uncorrected (Fatal)"}},
	{"aer-received", "pcieport 0000:00:1c.5: AER: Multiple Corrected error received: id=00e5",
		Event{Kind: KindAER, PCI: "0000:00:1c.5", Reporter: "0000:00:1c.5", AERSeverity: AERCorrectable, Detail: "Multiple Corrected"}},
	// Linux 6.x wording, from testdata/realworld/dmesg-coreboot815-ctime-ath10k-correctable.txt.
	{"aer-received", "pcieport 0000:00:1d.3: AER: Multiple Correctable error message received from 0000:06:00.0",
		Event{Kind: KindAER, PCI: "0000:06:00.0", Reporter: "0000:00:1d.3", AERSeverity: AERCorrectable, Detail: "Multiple Correctable"}},
	{"mlx5-netdev-link", "mlx5_core 0000:3b:00.0 ens1f0np0: Link up",
		Event{Kind: KindLink, Driver: "mlx5_core", PCI: "0000:3b:00.0", Interface: "ens1f0np0", Up: true}},
	{"mlx5-netdev-link", "mlx5_core 0000:86:00.1 ens2f1np1: Link down",
		Event{Kind: KindLink, Driver: "mlx5_core", PCI: "0000:86:00.1", Interface: "ens2f1np1"}},
	{"mlx5-ib-port-link", "mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE",
		Event{Kind: KindLink, Driver: "mlx5_core", PCI: "0000:ab:00.0", Interface: "mlx5_5", Port: 1, Up: true}},
	{"mlx5-ib-port-link", "mlx5_core 0000:ab:00.0 mlx5_5: Port: 2 Link DOWN",
		Event{Kind: KindLink, Driver: "mlx5_core", PCI: "0000:ab:00.0", Interface: "mlx5_5", Port: 2}},
	// From public issue threads (testdata/README.md): OpenWrt's mt7530 DSA port, ixgbe, r8125, mtk_soc_eth.
	{"netdev-link", "mt7530-mdio mdio-bus:1f lan: Link is Down",
		Event{Kind: KindLink, Driver: "mt7530-mdio", Interface: "lan"}},
	{"netdev-link", "mt7530-mdio mdio-bus:1f lan: Link is Up - 1Gbps/Full - flow control rx/tx",
		Event{Kind: KindLink, Driver: "mt7530-mdio", Interface: "lan", Up: true}},
	{"netdev-link", "ixgbe 0000:08:00.0 eth11: NIC Link is Up 10 Gbps, Flow Control: RX",
		Event{Kind: KindLink, Driver: "ixgbe", PCI: "0000:08:00.0", Interface: "eth11", Up: true}},
	{"netdev-link", "ixgbe 0000:08:00.0 eth11: NIC Link is Down",
		Event{Kind: KindLink, Driver: "ixgbe", PCI: "0000:08:00.0", Interface: "eth11"}},
	{"netdev-link", "igb 0000:01:00.0 eth0: igb: eth0 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX",
		Event{Kind: KindLink, Driver: "igb", PCI: "0000:01:00.0", Interface: "eth0", Up: true}},
	{"netdev-link", "tg3 0000:02:00.0 eth0: Link is down",
		Event{Kind: KindLink, Driver: "tg3", PCI: "0000:02:00.0", Interface: "eth0"}},
	{"netdev-link", "mtk_soc_eth 1e100000.ethernet eth0: port 2 link down",
		Event{Kind: KindLink, Driver: "mtk_soc_eth", Interface: "eth0", Port: 2}},
	// FreeBSD if.c do_link_state_change: opnsense/core#4214 (analyze testdata/realworld-fresh19).
	{"freebsd-link-state", "igb1: link state changed to DOWN",
		Event{Kind: KindLink, Driver: "igb", Interface: "igb1"}},
	{"freebsd-link-state", "igb2: link state changed to UP",
		Event{Kind: KindLink, Driver: "igb", Interface: "igb2", Up: true}},
	{"netdev-link-driver", "r8125: eth2: link up",
		Event{Kind: KindLink, Driver: "r8125", Interface: "eth2", Up: true}},
	{"netdev-link-driver", "e1000e: eth0 NIC Link is Down",
		Event{Kind: KindLink, Driver: "e1000e", Interface: "eth0"}},
	{"netdev-link-driver", "mlx4_en: eth2: Link Up",
		Event{Kind: KindLink, Driver: "mlx4_en", Interface: "eth2", Up: true}},
	// systemd-networkd on an Azure HPC VM (azurehpc-health-checks test/data/1dev_6flap_syslog, testdata/realworld-fresh8).
	{"networkd-carrier", "systemd-networkd: ib6: lost carrier",
		Event{Kind: KindLink, Interface: "ib6"}},
	{"networkd-carrier", "systemd-networkd: ib6: Gained carrier",
		Event{Kind: KindLink, Interface: "ib6", Up: true}},
	{"networkmanager-carrier", "NetworkManager: <info>  [1692345678.1234] device (ib0): carrier: link connected",
		Event{Kind: KindLink, Interface: "ib0", Up: true}},
	{"networkmanager-carrier", "NetworkManager: <info>  [1692345678.1234] device (eth1): carrier: link disconnected (deferring action for 6 seconds)",
		Event{Kind: KindLink, Interface: "eth1"}},
	// gpud's testdata dmesg.decode.iso.log (testdata/realworld-fresh8), and the 6.1+ wording.
	{"segfault", "pt_main_thread[2536443]: segfault at 7f797fe00000 ip 00007f7c7ac69996 sp 00007f7c12fd7c30 error 4 in libnccl.so.2[7f7c7ac00000+d3d3000]",
		Event{Kind: KindCrash, Task: "pt_main_thread", TaskPID: "2536443", Detail: "libnccl.so.2"}},
	{"segfault", "python3[4123]: segfault at 0 ip 00007f0c3a2b1c40 sp 00007ffd5a1e2f10 error 4 in libmlx5.so.1.24.44.0[7f0c3a2a0000+3f000] likely on CPU 3 (core 3, socket 0)",
		Event{Kind: KindCrash, Task: "python3", TaskPID: "4123", Detail: "libmlx5.so.1.24.44.0"}},
	{"segfault", "a.out[77]: segfault at 10 ip 0000000000401136 sp 00007ffc1b2d4e60 error 6",
		Event{Kind: KindCrash, Task: "a.out", TaskPID: "77"}},
	{"general-protection", "traps: python[1234] general protection fault ip:7f0c3a2b1c40 sp:7ffd5a1e2f10 error:0 in libibverbs.so.1.14.47.0[7f0c3a290000+16000]",
		Event{Kind: KindCrash, Task: "python", TaskPID: "1234", Detail: "libibverbs.so.1.14.47.0"}},
	// A Skylake-SP host's EDAC line (testdata/realworld-fresh9/dmesg-lwa117-edac-ue-apei-pcie-nvme.txt), and ghes_edac's.
	{"edac-memory", "EDAC MC3: 1 UE memory read error on CPU_SrcID#1_MC#1_Chan#2_DIMM#0 (channel:2 slot:0 page:0xb757589 offset:0x140 grain:32 -  OVERFLOW err_code:0101:0092 socket:1 imc:1 rank:0 bg:3 ba:0 row:1a1e8 col:180)",
		Event{Kind: KindMemory, IsError: true, MemErrors: 1, Detail: "CPU_SrcID#1_MC#1_Chan#2_DIMM#0"}},
	{"edac-memory", "EDAC MC0: 3 CE Unknown on unknown memory ( page:0x0 offset:0x0 grain:1 syndrome:0x0 - APEI location: node:0 card:0 module:0)",
		Event{Kind: KindMemory, MemErrors: 3, Detail: "unknown memory"}},
	// Bonding, both wordings; the older ones from coreos/bugs issue #2515.
	{"bond-slave-link", "bond0: link status definitely down for interface eno50, disabling it",
		Event{Kind: KindBond, Interface: "bond0", Detail: "eno50", Bond: BondSlave}},
	{"bond-slave-link", "bond0: (slave eno50): link status definitely down, disabling slave",
		Event{Kind: KindBond, Interface: "bond0", Detail: "eno50", Bond: BondSlave}},
	{"bond-slave-link", "bond0: (slave eth1): link status definitely up, 10000 Mbps full duplex",
		Event{Kind: KindBond, Interface: "bond0", Detail: "eth1", Bond: BondSlave, Up: true}},
	{"bond-slave-link", "bonding: bond0: link status definitely up for interface eth1, 1000 Mbps full duplex.",
		Event{Kind: KindBond, Interface: "bond0", Detail: "eth1", Bond: BondSlave, Up: true}},
	{"bond-new-active", "bond0: making interface eno49 the new active one",
		Event{Kind: KindBond, Interface: "bond0", Detail: "eno49", Bond: BondNewActive}},
	{"bond-new-active", "bond0: (slave eno49): making interface the new active one",
		Event{Kind: KindBond, Interface: "bond0", Detail: "eno49", Bond: BondNewActive}},
	{"bond-none-active", "bond1: now running without any active interface!",
		Event{Kind: KindBond, Interface: "bond1", Bond: BondNoneActive}},
	{"bond-active-up", "bond1: first active interface up!",
		Event{Kind: KindBond, Interface: "bond1", Bond: BondActiveUp}},
	{"bond-no-lacp", "bond0: Warning: No 802.3ad response from the link partner for any adapters in the bond",
		Event{Kind: KindBond, Interface: "bond0", Bond: BondNoLACP}},
	{"mlx5-module-error", "mlx5_core 0000:5e:00.0: mlx5_port_module_event:1101:(pid 0): Port module event[error]: module 0, Cable error, High Temperature",
		Event{Kind: KindModule, PCI: "0000:5e:00.0", Detail: "High Temperature", IsError: true}},
	{"mlx5-module-cable-error", "mlx5_core 0000:5e:00.0: Port module event: module 3, Cable error, Bus stuck (I2C or data shorted)",
		Event{Kind: KindModule, PCI: "0000:5e:00.0", Module: 3, Detail: "Bus stuck (I2C or data shorted)", IsError: true}},
	{"mlx5-module", "mlx5_core 0004:01:00.0: Port module event: module 0, Cable plugged",
		Event{Kind: KindModule, PCI: "0004:01:00.0", Detail: "Cable plugged"}},
	{"mlx5-high-temperature", "mlx5_core 0000:5e:00.0: temp_warn:160:(pid 0): High temperature on sensors with bit set 0 1",
		Event{Kind: KindModule, PCI: "0000:5e:00.0", Module: -1, Detail: "High temperature on sensors with bit set 0 1", IsError: true}},
	{"mlx5-health", "mlx5_core 0000:5e:00.0: poll_health:800:(pid 0): device's health compromised - reached miss count",
		Event{Kind: KindHealth, PCI: "0000:5e:00.0", Detail: "device's health compromised - reached miss count", IsError: true, HealthClass: HealthFatal}},
	{"mlx5-health", "mlx5_core 0000:5e:00.0: wait_func:1171:(pid 12): ACCESS_REG(0x805) timeout. Will cause a leak of a command resource",
		Event{Kind: KindHealth, PCI: "0000:5e:00.0", Detail: "ACCESS_REG(0x805) timeout. Will cause a leak of a command resource", IsError: true, HealthClass: HealthFatal}},
	// A ConnectX-7 firmware that stopped answering, quoted in a netdev reply (analyze testdata/realworld-fresh20,
	// dmesg-netdevlist-cx7-multihost-access-reg-cmd-timeout-quoted.txt), with the wrapped lines joined.
	{"mlx5-health", "mlx5_core 0000:56:00.0: wait_func_handle_exec_timeout:1159:(pid 72061): cmd[0]: ACCESS_REG(0x805) No done completion",
		Event{Kind: KindHealth, PCI: "0000:56:00.0", Detail: "ACCESS_REG(0x805) No done completion", IsError: true, HealthClass: HealthFatal}},
	// A CMP 40HX the driver cannot initialise after a forced PCIe retrain (analyze testdata/realworld-fresh52,
	// dmesg-cmpunlocker4-cmp40hx-gen2-retrain-rminitadapter-failed-loop.txt).
	{"nvidia-rminitadapter-failed", "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:894)",
		Event{Kind: KindGPUInitFailed, PCI: "0000:01:00.0", Detail: "RmInitAdapter failed! (0x22:0x56:894)", IsError: true}},
	{"nvidia-rm-init-adapter-failed", "NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0",
		Event{Kind: KindGPUInitFailed, PCI: "0000:01:00.0", Detail: "rm_init_adapter failed, device minor number 0", IsError: true}},
	// Older drivers name no GPU (the NVIDIA driver README's VBIOS note).
	{"nvidia-rminitadapter-failed", "NVRM: RmInitAdapter failed! (0x30:0xffffffff:858)",
		Event{Kind: KindGPUInitFailed, Detail: "RmInitAdapter failed! (0x30:0xffffffff:858)", IsError: true}},
	{"nvidia-init-nv-mapping-failed", "NVRM: osInitNvMapping: *** Cannot attach gpu",
		Event{Kind: KindGPUInitFailed, Detail: "osInitNvMapping: *** Cannot attach gpu", IsError: true}},
	{"nvidia-init-nv-mapping-failed", "NVRM: RmInitAdapter: osInitNvMapping failed, bailing out of RmInitAdapter",
		Event{Kind: KindGPUInitFailed, Detail: "RmInitAdapter: osInitNvMapping failed", IsError: true}},
	// A Hopper GPU's GSP that stopped answering (analyze testdata/realworld-fresh52,
	// dmesg-opengpu1230-gpu6-gsp-heartbeat-timeout-memsys-error.txt), and the older Xid 119 banner.
	{"nvidia-gsp-heartbeat", "NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 812751949 heartbeat 1899482 heartbeatWithOffsetMs 812745879 diff 6070 timeout 5200",
		Event{Kind: KindGSPTimeout, Interface: "GPU6", Detail: "GSP heartbeat timed out", IsError: true}},
	{"nvidia-memsys-error", "NVRM: GPU6 kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error detected. kbusSendSysmembarSingle failed.",
		Event{Kind: KindGSPTimeout, Interface: "GPU6", Detail: "memory subsystem error", IsError: true}},
	{"nvidia-gsp-rpc-timeout", "NVRM: GPU6 _kgspLogRpcTimeout: ********************************* GSP Timeout **********************************",
		Event{Kind: KindGSPTimeout, Interface: "GPU6", Detail: "GSP RPC timeout", IsError: true}},
	{"nvidia-gsp-rpc-timeout", "NVRM: _kgspLogXid119: ***** GSP Timeout *****",
		Event{Kind: KindGSPTimeout, Detail: "GSP RPC timeout", IsError: true}},
	// NV_ERR_RESET_REQUIRED with no Xid (analyze testdata/realworld-fresh21 README, dmesg-sichek51-gsp-reset-required-nccltest.txt).
	{"nvidia-gsp-rpc-reset-required", "NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; hParent=0x5c000054; hObject=0x5c00005b; hClass=0x0000c86f; paramsSize=0x00000170; paramsStatus=0x00000062; status=0x00000062",
		Event{Kind: KindGPUResetRequired, Detail: "GSP RPC failed with NV_ERR_RESET_REQUIRED (0x62)", IsError: true}},
	{"nvidia-reset-required", "NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2874",
		Event{Kind: KindGPUResetRequired, Detail: "NV_ERR_RESET_REQUIRED", IsError: true}},
	// A command whose completion interrupt never came, found by polling the command EQ (analyze testdata/realworld-fresh22,
	// dmesg-linuxpci-mlx5-maxcpus8-create-eq-timeout-quoted-qp.txt and, "cmd0:" with a mis-encoded opcode,
	// dmesg-linuxpci-mlx5-vf-intr-remap-fault-create-eq-timeout-qp.txt).
	{"mlx5-health", "mlx5_core 0000:d8:00.0: wait_func_handle_exec_timeout:1062:(pid 1416): cmd[0]: CREATE_EQ(0x301) recovered after timeout",
		Event{Kind: KindHealth, PCI: "0000:d8:00.0", Detail: "CREATE_EQ(0x301) recovered after timeout", IsError: true, HealthClass: HealthFatal}},
	{"mlx5-health", "mlx5_core 0000:42:00.2: wait_func_handle_exec_timeout:1051:(pid 3390): cmd0: CREATE_EQ(0\u00c3\u0097301) recovered after timeout",
		Event{Kind: KindHealth, PCI: "0000:42:00.2", Detail: "CREATE_EQ(0\u00c3\u0097301) recovered after timeout", IsError: true, HealthClass: HealthFatal}},
	{"mlx5-health", "mlx5_core 0000:56:00.0: mlx5_cmd_comp_handler:1709:(pid 0): Command completion arrived after timeout (entry idx = 0).",
		Event{Kind: KindHealth, PCI: "0000:56:00.0", Detail: "Command completion arrived after timeout", IsError: true, HealthClass: HealthFatal}},
	{"mlx5-health", "mlx5_core 0000:5e:00.0: mlx5_health_try_recover:340:(pid 9): health recovery flow aborted, PCI reads still not working",
		Event{Kind: KindHealth, PCI: "0000:5e:00.0", Detail: "health recovery flow aborted, PCI reads still not working", IsError: true, HealthClass: HealthFatal}},
	// The lines below are from real logs in internal/diagnose/analyze/testdata/realworld.
	{"pcie-bandwidth", "mlx4_core 0000:0f:00.0: 15.752 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x2 link at 0000:0d:04.0 (capable of 31.504 Gb/s with 8.0 GT/s PCIe x4 link)",
		Event{Kind: KindPCIeBandwidth, PCI: "0000:0f:00.0", AvailGbps: 15.752, CapableGbps: 31.504, LimitedBy: "8.0 GT/s PCIe x2", LimitedAt: "0000:0d:04.0", CapableOf: "8.0 GT/s PCIe x4"}},
	{"mlx5-init-failed", "mlx5_core 0000:03:00.0: handle_hca_cap failed",
		Event{Kind: KindHealth, PCI: "0000:03:00.0", Detail: "handle_hca_cap failed", IsError: true, HealthClass: HealthFatal}},
	{"mlx5-init-failed", "mlx5_core 0000:03:00.0: mlx5_load_one failed with error code -22",
		Event{Kind: KindHealth, PCI: "0000:03:00.0", Detail: "mlx5_load_one failed with error code -22", IsError: true, HealthClass: HealthFatal}},
	{"mlx5-probe-failed", "mlx5_core.eth: probe of mlx5_core.eth.2 failed with error -22",
		Event{Kind: KindHealth, Detail: "probe of mlx5_core.eth.2 failed with error -22", IsError: true, HealthClass: HealthFatal}},
	{"mlx5-command-failed", "mlx5_core 0000:6f:08.2: mlx5_cmd_out_err:808:(pid 650): CREATE_TIS(0x912) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x595b5d), err(-22)",
		Event{Kind: KindHealth, PCI: "0000:6f:08.2", Detail: "CREATE_TIS failed, status bad parameter(0x3), syndrome 0x595b5d", IsError: true, HealthClass: HealthCommand, CmdStatus: 0x3}},
	// openucx/ucx#6264 (realworld-fresh10): the HCA's memory keys ran out.
	{"mlx5-command-failed", "mlx5_core 0000:41:00.0: mlx5_cmd_out_err:800:(pid 233522): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x18af6), err(-12)",
		Event{Kind: KindHealth, PCI: "0000:41:00.0", Detail: "CREATE_MKEY failed, status limits exceeded(0x8), syndrome 0x18af6", IsError: true, HealthClass: HealthCommand, CmdStatus: 0x8}},
	// Before Linux 5.19 mlx5_cmd_check printed it, without err().
	{"mlx5-command-failed", "mlx5_core 0000:01:00.2: mlx5_cmd_check:782:(pid 4328): 2RST_QP(0x50a) op_mod(0x0) failed, status bad resource state(0x9), syndrome (0x7ea02d)",
		Event{Kind: KindHealth, PCI: "0000:01:00.2", Detail: "2RST_QP failed, status bad resource state(0x9), syndrome 0x7ea02d", IsError: true, HealthClass: HealthCommand, CmdStatus: 0x9}},
	// kernel/panic.c panic(), arch/x86/kernel/cpu/mce/core.c print_mce and mce_notify_irq, mm/oom_kill.c __oom_kill_process
	// (and oom_kill_process before Linux 4.19), as the kernel formats them.
	{"kernel-panic", "Kernel panic - not syncing: Fatal exception",
		Event{Kind: KindPanic, IsError: true, Detail: "Fatal exception"}},
	{"kernel-panic", "Kernel panic - not syncing: hung_task: blocked tasks",
		Event{Kind: KindPanic, IsError: true, Detail: "hung_task: blocked tasks"}},
	{"mce-print", "mce: [Hardware Error]: CPU 3: Machine Check Exception: 5 Bank 7: be00000000800400",
		Event{Kind: KindMCE, IsError: true, Detail: "CPU 3, bank 7, status 0xbe00000000800400"}},
	{"mce-print", "mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 12: 9c2000000003110a",
		Event{Kind: KindMCE, Detail: "CPU 0, bank 12, status 0x9c2000000003110a"}},
	{"mce-print", "[Hardware Error]: CPU 14: Machine Check: 0 Bank 1: bc800800060c0859",
		Event{Kind: KindMCE, IsError: true, Detail: "CPU 14, bank 1, status 0xbc800800060c0859"}},
	{"mce-logged", "mce: [Hardware Error]: Machine check events logged",
		Event{Kind: KindMCE, Detail: "events logged"}},
	{"oom-kill", "Out of memory: Killed process 2345 (pt_main_thread) total-vm:152004552kB, anon-rss:98765432kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:200000kB oom_score_adj:0",
		Event{Kind: KindOOM, Task: "pt_main_thread", TaskPID: "2345", Detail: "Out of memory"}},
	{"oom-kill", "Memory cgroup out of memory: Killed process 77 (python3) total-vm:1234kB, anon-rss:1000kB, file-rss:0kB, shmem-rss:0kB",
		Event{Kind: KindOOM, Task: "python3", TaskPID: "77", Detail: "Memory cgroup out of memory"}},
	{"oom-kill", "Out of memory: Kill process 4242 (python) score 912 or sacrifice child",
		Event{Kind: KindOOM, Task: "python", TaskPID: "4242", Detail: "Out of memory"}},
	{"oom-kill", "Killed process 4242 (python) total-vm:1234kB, anon-rss:1000kB, file-rss:0kB",
		Event{Kind: KindOOM, Task: "python", TaskPID: "4242"}},
	{"aer-bit", "pcieport 0000:00:1c.5:    [ 0] Receiver Error        ",
		Event{Kind: KindAERBit, PCI: "0000:00:1c.5", Detail: "Receiver Error"}},
	{"aer-bit", "mlx5_core 0000:3b:00.0: AER:    [14] CmpltTO                (First)",
		Event{Kind: KindAERBit, PCI: "0000:3b:00.0", Detail: "CmpltTO"}},
}

// TestPatternSamples: every row of Patterns has a sample line; each sample
// is matched by its own row first and gives the event it claims.
func TestPatternSamples(t *testing.T) {
	have := map[string]bool{}
	for _, s := range patternSamples {
		have[s.row] = true
		t.Run(s.row, func(t *testing.T) {
			p, _ := match(s.text)
			if p == nil || p.Name != s.row {
				name := "no row"
				if p != nil {
					name = p.Name
				}
				t.Fatalf("%q: matched by %s, want %s", s.text, name, s.row)
			}
			evs := Classify(Record{Text: s.text})
			if len(evs) != 1 {
				t.Fatalf("%q: %d events", s.text, len(evs))
			}
			got := evs[0]
			got.Record = Record{}
			if got.Kind != p.Kind {
				t.Errorf("kind %s, the row claims %s", got.Kind, p.Kind)
			}
			if d := cmp.Diff(s.want, got); d != "" {
				t.Errorf("%q (-want +got):\n%s", s.text, d)
			}
		})
	}
	names := map[string]bool{}
	for _, p := range Patterns {
		if names[p.Name] {
			t.Errorf("two rows named %s", p.Name)
		}
		names[p.Name] = true
		if !have[p.Name] {
			t.Errorf("row %s has no sample line", p.Name)
		}
		if p.Kind == "" || p.Re == nil {
			t.Errorf("row %s: no kind or no pattern", p.Name)
		}
	}
}

// TestNotClassified: lines close to a row's message that are not events.
func TestNotClassified(t *testing.T) {
	for _, text := range []string{
		"mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link INIT",
		"mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE_DEFER",
		"pcieport 0000:00:1c.5: AER: enabled with IRQ 122",
		"amdgpu 0000:03:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), then the text goes on",
		"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15",
		"mlx5_core 0000:3b:00.0: firmware version: 28.39.2048",
		"ata1: SATA link down (SStatus 0 SControl 300)",
		"IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready",
		"internet: link status down for interface eno4, disabling it in 200 ms",
		"br-lan: port 2(eth2) entered disabled state",
		"igb1: link state changed to UNKNOWN",
		"---[ end Kernel panic - not syncing: Fatal exception ]---",
		"{1}[Hardware Error]: CPU 3: Machine Check: 0 Bank 5: be00000000800400",
		"oom_reaper: reaped process 2345 (pt_main_thread), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
		"carp: 1@igb0: link state changed to DOWN",
		"usb 1-6: new high-speed USB device number 3 using xhci_hcd",
		// kernel/module/version.c check_version: a module without CRCs,
		// loaded all the same; modprobe's own message, not the kernel's.
		"nvidia: no symbol version for module_layout",
		"modprobe: ERROR: could not insert 'nv_peer_mem': Unknown symbol in module, or unknown parameter (see dmesg)",
	} {
		if evs := Classify(Record{Text: text}); len(evs) != 0 {
			t.Errorf("%q: %+v", text, evs)
		}
	}
	// NVMe over PCIe (drivers/nvme/host/pci.c nvme_timeout) and over TCP
	// (tcp.c nvme_tcp_timeout) time out in other words than over RDMA (the
	// first from realworld-fresh24
	// dmesg-linuxpci-edr-dpc-fatal-malftlp-nvme-quoted.txt): no row takes
	// them, the driver catch-all does (a failure of the node's disk, no
	// RDMA controller).
	for _, text := range []string{
		"nvme nvme1: I/O 22 QID 0 timeout, disable controller",
		"nvme nvme0: I/O 1010 QID 3 timeout, aborting",
		"nvme nvme0: I/O tag 28 (401c) opcode 0x1 (Write) QID 2 timeout, aborting req_op:WRITE(1) size:131072",
		"nvme nvme0: I/O tag 5 (0005) QID 4 timeout, completion polled",
		"nvme nvme2: I/O tag 17 (c011) type 4 opcode 0x2 (I/O Cmd) QID 6 timeout",
		"nvme nvme2: queue 6: timeout cid 0x3011 type 4 opcode 0x2 (Read)",
	} {
		evs := Classify(Record{Text: text})
		if len(evs) != 1 || evs[0].Kind != KindDriverError || evs[0].Driver != "nvme" {
			t.Errorf("%q: %+v, want one nvme driver_error", text, evs)
		}
	}
}
