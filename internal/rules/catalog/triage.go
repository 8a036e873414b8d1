package catalog

import (
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

var (
	remedyDmesg      = "dmesg -T | grep -E 'NVRM|AER|mlx5' around the time of the failure"
	remedyNvsmiQuery = "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT -i <gpu>"
	remedyGPUReset   = "drain the node, then nvidia-smi -r -i <gpu> (or reboot) and rerun a GPU burn-in"
)

// triageMetas are the catalogue entries of the node triage area
// (`ibdoctor doctor`): kernel log, PCIe errors, GPU–NIC topology, RoCE
// configuration and congestion, host limits, container device access and
// the NCCL environment.
var triageMetas = []finding.Meta{
	// Step 2: PCIe and GPU topology.
	{
		ID: "pcie.aer_errors", Severity: finding.Warning, Area: "pcie", Step: finding.StepPCIe,
		Title:   "PCIe AER errors on an HCA or GPU link",
		Meaning: "The PCIe Advanced Error Reporting counters (aer_dev_*) or the kernel log show errors on the link of an HCA or GPU or of a port above it. Correctable errors are retried by the link but cost bandwidth and often precede a downtrain; non-fatal and fatal errors lose transactions (critical).",
		Thresholds: []finding.Threshold{
			{Name: "aer_correctable_warning", Default: limits.Uint(limits.HostAERCorrectable), Meaning: "correctable errors (aer_dev_correctable totals of the device and its upstream ports, or kernel-log reports in the window) from which a warning is raised"},
			{Name: "aer_uncorrectable_critical", Default: "1", Meaning: "any non-fatal or fatal error is critical"},
		},
		Causes: []string{"marginal signal integrity: card not fully seated, riser or retimer fault, damaged slot", "PCIe link speed forced too high for the slot or riser", "failing device (HCA or GPU)", "firmware bug in the device or the PCIe switch"},
		Remedy: []string{"lspci -vvv -s <pci> | grep -A4 -E 'UESta|CESta'", remedyDmesg, "reseat the card or move it to another slot; update the BIOS and PCIe switch firmware", "watch /sys/bus/pci/devices/<pci>/aer_dev_correctable: a rising count needs hardware attention"},
	},
	{
		ID: "topo.gpu_nic_far", Severity: finding.Warning, Area: "topo", Step: finding.StepPCIe,
		Title:   "GPU's nearest RDMA NIC is across the host bridge or socket",
		Meaning: "The closest RDMA NIC of this GPU is PHB, NODE or SYS away while the node's layout offers better (other GPUs sit behind a PCIe switch with a NIC, or a NIC hangs under the same switch). GPUDirect RDMA through the CPU root complex or across sockets loses bandwidth, and NCCL may pick a far NIC.",
		Causes:  []string{"NIC or GPU in the wrong slot (cabled to the wrong PCIe switch)", "NIC disabled or missing under the GPU's PCIe switch (driver not loaded, port down)", "virtualised/passthrough topology that hides the PCIe switches"},
		Remedy:  []string{"nvidia-smi topo -m to confirm the matrix", "set NCCL_IB_HCA to the suggested list so every GPU uses its nearest NIC", "move the NIC or GPU to the slot under the same PCIe switch"},
	},
	{
		ID: "topo.nvidia_smi_disagrees", Severity: finding.Info, Area: "topo", Step: finding.StepPCIe,
		Title:   "nvidia-smi topology differs from the sysfs PCI tree",
		Meaning: "`nvidia-smi topo -m` reports a different GPU↔NIC distance than the PCI tree in sysfs. Usually a VM or passthrough flattening of the PCIe tree, or ACS/IOMMU settings; NCCL sees the sysfs view (warning when the difference is large: PIX/PXB vs SYS).",
		Causes:  []string{"virtual machine or container with a synthetic PCI tree", "the NIC columns of nvidia-smi map to other devices than assumed (NIC order)", "PCIe switch firmware hides ports"},
		Remedy:  []string{"NCCL_TOPO_DUMP_FILE=/tmp/topo.xml to see what NCCL detected", "provide NCCL_TOPO_FILE with the real topology inside VMs"},
	},

	// Step 3: kernel log.
	{
		ID: "gpu.xid", Severity: finding.Warning, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "NVIDIA Xid error in the kernel log",
		Meaning: "The NVIDIA driver logged an Xid event for a GPU. Severity follows the Xid, as NVIDIA's Xid catalog sets the action: events that need a GPU reset or a node drain (uncorrectable ECC 48, retirement failure 64, NVLink 74, uncontained errors 95, GSP timeouts 119/120) are critical; an application fault that stopped its process (13, 31, 43) is a warning, since a job died; cleanup after a killed process (45) and handled ECC events (63, 92) are info; a hung task or soft lockup logged after that cleanup makes it a warning (the cleanup never finished: the GPU is stuck); Xid 79 (ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS) is critical: the GPU fell off the PCIe bus, every job on it died, and the node needs a reboot or power cycle; it is one gpu.xid finding per GPU, whose evidence also holds that GPU's \"GPU has fallen off the bus\" lines (no gpu.fallen_off_bus beside it).",
		Causes:  []string{"GPU memory (HBM) errors", "NVLink or PCIe link errors", "GSP firmware/driver fault", "application bug (illegal address, killed process)"},
		Remedy:  []string{"look the Xid up in the NVIDIA Xid catalog (docs.nvidia.com/deploy/xid-errors)", remedyNvsmiQuery, remedyGPUReset},
	},
	{
		ID: "gpu.fallen_off_bus", Severity: finding.Critical, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "GPU has fallen off the bus",
		Meaning: "The driver lost the GPU on PCIe: the NVRM message \"GPU at PCI:… has fallen off the bus\" (older drivers log it without an Xid) and no Xid 79 line for that GPU. Every job on it died; NCCL peers time out. Where the driver also logged an Xid 79 for the GPU, the loss is reported once, as gpu.xid, not here. nvidia-smi's \"Unable to determine the device handle for GPU0000:03:00.0: Unknown Error\" (or \"GPU is lost\", \"Timeout\") is the same loss seen from NVML: the driver enumerated the GPU but can no longer reach it. A plain lspci line of the GPU that ends \"(rev ff)\" (its config space reads all ones, pciutils lspci.c show_terse) is the same loss seen from the bus. The driver's status NV_ERR_GPU_IS_LOST (0x0F, \"GPU lost from the bus\") in an NVRM line is the same loss where the driver printed no \"fallen off\" line: an assert naming it, a GSP RPC that failed with status 0x0000000f, \"GPU is lost, skipping …\"; those lines often name no GPU, and the finding then says so (nvidia-smi -L and lspci -d 10de: show which GPU is missing).",
		Causes:  []string{"PCIe link failure (riser, retimer, slot, switch)", "GPU hardware fault or overheating", "power delivery problem"},
		Remedy:  []string{"drain the node; check AER lines just before the event", "reboot; if it repeats, reseat or RMA the GPU / baseboard", "check GPU temperatures and PSU logs (ipmitool sel list)"},
	},
	{
		ID: "gpu.reset_required", Severity: finding.Critical, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "the NVIDIA driver says the GPU needs a reset",
		Meaning: "The NVIDIA driver returned NV_ERR_RESET_REQUIRED (status 0x62, \"Reset required\", open-gpu-kernel-modules nvstatuscodes.h): \"NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062)\", or a GSP RPC that failed with it (\"NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: …; status=0x00000062\"). No Xid number comes with it. The GPU, or its GSP firmware, is in a state it leaves only through a reset: new CUDA contexts fail (\"CUDA-capable device(s) is/are busy or unavailable\"), so every job placed on it, NCCL tests included, dies at start while the other GPUs of the node work.",
		Causes:  []string{"an earlier unrecoverable GPU or GSP firmware error (look for Xid 119, 120, 154 or 79 before it)", "a GPU fault the driver contained but cannot clear without a reset"},
		Remedy:  []string{"nvidia-smi -q -i <gpu> | grep -i -A1 'recovery action' (drivers from 550 name the action)", remedyGPUReset, "exclude the GPU from jobs until it is reset (CUDA_VISIBLE_DEVICES, or drain the node)"},
	},
	{
		ID: "gpu.init_failed", Severity: finding.Critical, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "the NVIDIA driver could not initialise a GPU",
		Meaning: "The NVIDIA driver failed to bring a GPU up when it was first opened (open-gpu-kernel-modules osinit.c RmInitAdapter: \"NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:894)\", the init status, the driver status and the source line; kernel-open nv.c \"rm_init_adapter failed, device minor number 0\"; a cause before it such as \"osInitNvMapping: *** Cannot attach gpu\", the driver unable to map the GPU's registers). The driver retries at every open, so the lines repeat. The GPU cannot be used: nvidia-smi shows it missing or \"No devices were found\", CUDA does not enumerate it, and jobs placed on the node fail at start.",
		Causes:  []string{"the GPU does not answer on PCIe or answers wrongly: a bad riser or slot, a link retrained to another speed, insufficient power, a GPU that fell off the bus earlier", "a driver that does not support the GPU, or GSP firmware that failed to boot (see the lines before it)", "a failing GPU"},
		Remedy:  []string{"dmesg -T | grep -B5 RmInitAdapter for the lines before the failure (AER, fallen off the bus, GSP, firmware)", "lspci -vvv -s <gpu> for its link state and whether its config space reads", "drain the node, reseat or power-cycle the GPU (a reboot with the power removed), check the driver release notes for the GPU; replace the GPU if it keeps failing"},
	},
	{
		ID: "gpu.gsp_timeout", Severity: finding.Critical, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "the GPU's GSP firmware stopped answering the driver",
		Meaning: "On GPUs whose resource manager runs on the GPU System Processor (Turing and later with the GSP firmware, every GPU under the open kernel modules) the driver checks the GSP's heartbeat and waits for its RPC answers (open-gpu-kernel-modules kernel_gsp.c: \"NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, … timeout 5200\", the banner \"_kgspLogRpcTimeout: *** GSP Timeout ***\", logged as Xid 119 or 120 where the driver prints the Xid), and the GMMU reports a failed memory barrier as \"kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error detected\". The GPU is hung: every call into it times out, jobs on it fail or hang, and NVIDIA's Xid catalog gives a GPU reset as the recovery for Xid 119 and 120.",
		Causes:  []string{"a GSP firmware or driver bug (look for a fix in newer driver releases)", "a GPU hardware fault, its memory subsystem included", "the GPU in a bad power state (runtime power management, suspend and resume)"},
		Remedy:  []string{"nvidia-smi -q -i <gpu> | grep -i -A1 'recovery action' (drivers from 550 name the action)", remedyGPUReset, "nvidia-bug-report.sh for NVIDIA support; replace the GPU if it returns after a reset on a current driver"},
	},
	{
		ID: "gpu.ecc_uncorrectable", Severity: finding.Critical, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "the GPU counted uncorrectable ECC errors since the driver loaded",
		Meaning: "The plain nvidia-smi table's \"Volatile Uncorr. ECC\" cell is above 0: the GPU's memory (or an on-chip RAM) returned data ECC could not correct since the driver was last loaded (NVML's volatile uncorrected count, nvmlDeviceGetTotalEccErrors). The process that read it was stopped (Xid 48 in the kernel log); until the GPU is reset, the bad page or row stays in use or waits for retirement or remapping.",
		Causes:  []string{"a failing GPU memory cell or stack (HBM/GDDR)", "an SRAM error inside the GPU", "heat stress on the memory"},
		Remedy:  []string{remedyNvsmiQuery, remedyGPUReset, "if the count comes back after the reset, or row remapping fails: open an RMA with the GPU vendor"},
	},
	{
		ID: "gpu.smi_failed", Severity: finding.Critical, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "nvidia-smi fails: no GPU of the node can be used",
		Meaning: "nvidia-smi printed its own error in place of the table: \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\" (the kernel module is not loaded or the GPUs it drove are gone), \"Failed to initialize NVML: Driver/library version mismatch\" (the loaded module and the user-space library differ) or \"No devices were found\" (the driver is loaded but sees no GPU). No CUDA program, NCCL job included, can use the node's GPUs.",
		Causes:  []string{"the NVIDIA module not built for the running kernel (DKMS), or refused by Secure Boot", "a driver upgraded without a reboot or module reload", "GPUs fallen off the bus (Xid 79) or bound to vfio-pci/nouveau", "a container started without GPU access"},
		Remedy:  []string{"dmesg | grep -iE 'nvidia|NVRM'", "cat /proc/driver/nvidia/version and compare with the version in the library's file name (ls -l /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.*)", "reload the module or reboot; reinstall the driver for the running kernel"},
	},
	{
		ID: "gpu.nvml_error", Severity: finding.Warning, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "nvidia-smi prints ERR! for a GPU's fields",
		Meaning: "The plain nvidia-smi table shows \"ERR!\" where a value belongs: NVML asked the driver for it and got an error back. Sensor fields alone (fan, temperature, power) are a warning: the GPU answers but that reading fails, often a broken fan or power sensor. Several fields, or the GPU's identity, memory or ECC fields, are critical: the GPU stopped answering the driver, which happens after an Xid (79: fallen off the bus, 48, 119 …) and leaves every job on it dead.",
		Causes:  []string{"the GPU hit an unrecoverable error (look for Xid lines in the kernel log)", "a failed fan or power sensor on the board", "a PCIe link fault between the GPU and the host"},
		Remedy:  []string{remedyDmesg, "nvidia-smi -q -i <gpu> to see which readings fail", remedyGPUReset},
	},
	{
		ID: "gpu.page_fault", Severity: finding.Warning, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "GPU page fault (the GPU process's context was killed)",
		Meaning: "The amdgpu driver logged a GPU virtual-memory page fault (drivers/gpu/drm/amd/amdgpu gmc_v9_0.c gmc_v9_0_process_interrupt: \"amdgpu 0000:63:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:56 vmid:8 pasid:32794)\", then the process, the faulting address and the hub's protection fault status with its \"Faulty UTCL2 client ID\"): a GPU kernel of the named process touched memory its GPU page table does not map, or maps without that permission. ROCm's KFD stops the process's GPU queues and the process dies (or hangs in a collective, its peers then time out): every job sharing the process is lost. The GPU itself usually keeps working for other processes, so, like NVIDIA's Xid 31 (an MMU fault), it is a warning about the job; repeated faults of different programs point at the driver or the hardware.",
		Causes: []string{
			"a bug in the GPU program or a library it uses (an out-of-bounds access, a buffer used after it was freed)",
			"GPU memory freed or unmapped while an RDMA transfer or a kernel still used it (a peer-memory or DMA-BUF registration that went away)",
			"a ROCm user space (HIP, RCCL, the framework) that does not match the amdgpu driver",
			"failing GPU memory or a driver bug, when unrelated programs fault",
		},
		Remedy: []string{
			"find the process: the lines after the fault name it (Process NAME pid N); rerun it with AMD_LOG_LEVEL=4 or HIP_LAUNCH_BLOCKING=1 to see the kernel that faulted",
			"check the ROCm and amdgpu versions match (amd-smi version, modinfo amdgpu | grep ^version) and read the lines before the fault (GPU resets, RDMA errors)",
			"if different programs fault on the same GPU: read its ECC counters (amd-smi metric), then drain the node and run the GPU vendor's diagnostics (rocm-validation-suite, rvs)",
		},
	},
	{
		ID: "gpu.nvlink_fabric", Severity: finding.Critical, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "GPU not in the NVLink fabric",
		Meaning: "On NVSwitch systems (HGX H100/H200/B200 with the fabric manager, GB200 NVL with NVLink domains) each GPU registers with the NVLink fabric before CUDA may use it; nvidia-smi -q prints the result per GPU in its Fabric section (nvmlDeviceGetGpuFabricInfo): State Not Started, In Progress or Completed, and the Status of a completed registration, Success or an error such as \"Insufficient Resources\", with the CliqueId and ClusterUUID of the NVLink domain. A registration that completed with an error, or never started, leaves the GPU outside the fabric: CUDA initialisation fails (cudaErrorSystemNotReady) or the GPU has no NVLink peers, and multi-GPU jobs fail or run slow (critical). A registration still in progress is a warning: check again after the fabric manager finished. \"N/A\" everywhere is a system without an NVLink fabric.",
		Causes: []string{
			"the fabric manager (nvidia-fabricmanager, or NVLink Subnet Manager and IMEX on GB200) not running, or of another version than the driver",
			"an NVSwitch, NVLink trunk or tray fault that leaves too few links or switch resources for the GPU (\"Insufficient Resources\")",
			"a GPU or NVSwitch in a degraded state after an Xid, needing a reset",
		},
		Remedy: []string{
			"systemctl status nvidia-fabricmanager; journalctl -u nvidia-fabricmanager and /var/log/fabricmanager.log for the GPU's registration error",
			"nvidia-smi -q | grep -A 4 Fabric for every GPU's State and Status, and nvidia-smi topo -m for the GPUs' NVLink connections",
			"drain the node; restart the fabric manager, then reset the GPUs or reboot; if the status persists, run DCGM's diagnostics (its long run level) and open a hardware case",
		},
	},
	{
		ID: "gpu.row_remap", Severity: finding.Warning, Area: "gpu", Step: finding.StepKernelLog,
		Title:   "GPU memory rows wait for a reset to be remapped, or remapping failed",
		Meaning: "nvidia-smi -q shows the GPU's memory error recovery state (NVIDIA's GPU memory error management: row remapping from Ampere on, dynamic page retirement before). A remap pending (Remapped Rows: Pending Yes) or pages pending retirement take effect only at the next GPU reset: the GPU keeps running, but should be drained and reset (a warning). Remapping Failure Occurred: Yes means a bank had no spare row left: the memory can no longer be repaired, and NVIDIA's RMA policy treats it as grounds for replacing the GPU (critical). Rows already remapped are reported as info.",
		Causes:  []string{"HBM/GDDR cells failing (uncorrectable or repeated correctable ECC errors)", "an aging or defective GPU memory stack", "heat stress on the memory"},
		Remedy:  []string{remedyNvsmiQuery, remedyGPUReset, "remapping failure: open an RMA with the GPU vendor (NVIDIA's RMA policy thresholds for row remapping)"},
	},
	{
		ID: "kmsg.link_flap", Severity: finding.Warning, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "network link went down and up repeatedly",
		Meaning: "The kernel log shows a link going down and up again within the window: an HCA's (mlx5 netdev or IB port) or any other netdev's ('Link is Down' of phylink, phy, ixgbe, igb, i40e, ice, bnxt_en, tg3, r8169 and DSA switch ports). Each flap stalls the traffic on it; RDMA and NCCL jobs over it time out. Two or more downs are a warning, five or more critical.",
		Thresholds: []finding.Threshold{
			{Name: "link_flap_warning", Default: limits.Uint(limits.HostKmsgFlapWarning), Meaning: "link-down events in the window for a warning"},
			{Name: "link_flap_critical", Default: limits.Uint(limits.HostKmsgFlapCritical), Meaning: "link-down events in the window for a critical"},
		},
		Causes: []string{causeCable, "peer switch port resetting", "transceiver overheating", "auto-negotiation instability"},
		Remedy: []string{"RoCE: ethtool -S <netdev> | grep link_down_events_phy", "IB: perfquery -C <dev> -P <port> for LinkDownedCounter and LinkErrorRecoveryCounter", remedyReseat, "mlxlink -d <pci> -m -c to read module and error counters"},
	},
	{
		ID: "kmsg.bond_degraded", Severity: finding.Warning, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "bond lost a slave link, or every slave",
		Meaning: "The bonding driver logged a slave's link definitely down (the bond failed over and runs without redundancy: a warning), no LACP partner on any slave (a warning), or the bond running without any active interface: every slave is down and nothing passes over the bond, nor over a RoCE LAG device (mlx5_bond_0) built on it (critical, unless a later line says an active interface is up again).",
		Causes:  []string{causeCable, "switch port or LAG (MLAG/port-channel) down or misconfigured on the peer side", "slave NIC reset or driver fault (see the NIC's own lines before the bond's)"},
		Remedy:  []string{"cat /proc/net/bonding/<bond> to see each slave's MII status and link failure count", "ip -d link show <bond>", "ethtool <slave> for the slave's link and speed", "RoCE LAG: rdma link show to check the bond's RDMA device and port state"},
	},
	{
		ID: "kmsg.module_event", Severity: finding.Warning, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "port module (cable/transceiver) event",
		Meaning: "The mlx5 driver reported a port module event: cable unplugged, high temperature, power budget exceeded, bad or shorted cable, unsupported cable. Errors are critical; a plain unplug is a warning.",
		Causes:  []string{"cable unplugged or transceiver removed", "transceiver overheating (airflow)", "module needs more power than the port allows", "bad, shorted or non-supported cable"},
		Remedy:  []string{"mlxlink -d <pci> -m to read the module", "replace the cable or transceiver with a supported one", "check airflow and fan status"},
	},
	{
		ID: "kmsg.mlx5_health", Severity: finding.Critical, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "mlx5 firmware health error or command timeout",
		Meaning: "The mlx5 driver reported a health-compromised device, a fatal firmware error, or firmware command timeouts. The HCA may be reset or go away; RDMA traffic on it stops.",
		Causes:  []string{"firmware bug or firmware/driver mismatch", "hardware fault on the HCA", "PCIe errors making the device unreachable"},
		Remedy:  []string{"mlxfwmanager --query; align firmware with the driver (MLNX_OFED release notes)", "collect mstdump / `devlink health show` output for the vendor", "reboot; replace the HCA if it repeats"},
	},
	{
		ID: "kmsg.mlx5_cmd_failed", Severity: finding.Warning, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "mlx5 firmware rejected driver commands",
		Meaning: "The mlx5 driver logged firmware commands that returned an error status (drivers/net/ethernet/mellanox/mlx5/core/cmd.c mlx5_cmd_out_err, mlx5_cmd_check before Linux 5.19: \"CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x18af6), err(-12)\"), and no fatal error or probe failure of the function follows. The firmware answered: the device is alive, but the request that needed the command failed, and the status says why. limits exceeded (0x8) and no resources (0xf) mean the HCA has no room for another object of that kind (CREATE_MKEY: memory keys, that is memory registrations; CREATE_QP, CREATE_CQ: queues): applications, or the kernel's own MR cache, hold as many as the device allows, and their registrations fail with ENOMEM. bad parameter, bad operation, bad resource (state), bad index mean the firmware refused what the driver asked: a driver and firmware that do not match, a feature the firmware lacks, or a driver bug. internal error and bad system state come from the firmware itself. A refused SET_ROCE_ADDRESS is a RoCE GID that could not be written to the port's GID table (\"add_roce_gid GID add failed\", \"__ib_cache_gid_add: unable to add gid\" follow): RDMA-CM and NCCL connections over that GID fail. The kernel rate-limits this message: its 'mlx5_cmd_out_err: N callbacks suppressed' note counts the failures it did not print. A warning: command failures followed by a fatal error on the function are kmsg.mlx5_health. Followed by the function's load or probe failing (\"CREATE_EQ(0x301) … failed, status bad parameter(0x3)\", then \"Failed to create EQs\" and \"probe of 0000:0b:00.0 failed with error -22\"), the refused command is why the driver did not load: this finding is then critical, and the probe failure is in its summary and evidence (one cause, one finding: no kmsg.mlx5_health for it).",
		Causes: []string{
			"limits exceeded, no resources: more memory registrations (mkeys), QPs or CQs than the HCA holds: many processes per node, or a library (UCX, MPI, NCCL) registering buffers without bound",
			"bad parameter, bad operation, bad resource (state), bad index: driver and firmware versions that do not match, a feature the firmware does not support, or a driver bug",
			"internal error, bad system state: a firmware fault, or the device in the middle of a reset",
		},
		Remedy: []string{
			"limits exceeded, no resources: rdma resource show (per device counts of mr, qp, cq) and rdma resource show mr, to find the processes that hold the registrations",
			"limits exceeded, no resources: bound the job's registrations (fewer ranks per HCA; UCX: set UCX_IB_RCACHE_MAX_REGIONS, unbounded by default), or spread the ranks over more HCAs",
			"other statuses: mlxfwmanager --query, and align the firmware with the driver (the MLNX_OFED or kernel release notes name the firmware they support)",
			"other statuses: report the command, status and syndrome to the vendor when they repeat",
		},
	},
	{
		ID: "kmsg.tx_timeout", Severity: finding.Warning, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "network interface transmit queues stalled",
		Meaning: "A network interface stopped sending: a transmit queue held packets and completed none within the watchdog timeout (net/sched/sch_generic.c dev_watchdog: \"NETDEV WATCHDOG: eth0 (mlx5_core): transmit queue 3 timed out 5376 ms\"), and the driver's timeout handler ran (mlx5e en/reporter_tx.c: \"TX timeout on queue: 40, SQ: 0x13106, CQ: 0x5b5, SQ Cons: 0x1 SQ Prod: 0x1, usecs since last trans: 28559000\"; IPoIB ipoib_main.c: \"ib0: transmit timeout: latency 9956 msecs\"). The NIC stopped completing sends: its firmware hung or lost completions, or the link partner paused it (a PFC pause storm holds a RoCE priority's queues). Traffic on those queues stalls while it lasts, and the driver resets the queue or the channels to recover. One stall the driver recovers from is a warning; the same queue stalling again, or a recovery that fails (\"mlx5e_safe_reopen_channels failed recovering from a tx_timeout\"), is critical: the interface does not carry traffic.",
		Causes:  []string{"the link partner pauses the port (a PFC pause storm from a switch or a stuck receiver)", "NIC firmware hang or lost completions (a firmware bug; mlx5 health errors may follow)", "PCIe errors between the host and the NIC", "a driver bug in the queue's recovery"},
		Remedy: []string{
			"ethtool -S <netdev> | grep -Ei 'timeout|pause|discard': rising rx pause counters mean the peer holds the queue (check PFC on the switch port)",
			"mlx5: devlink health show pci/<pci> reporter tx and devlink health diagnose pci/<pci> reporter tx show the stalled send queues and their recoveries",
			"read the kernel log around the stalls for firmware health errors (mlx5 health, command timeouts) and AER errors on the NIC",
			"mlxfwmanager --query, and align the firmware with the driver; if the stalls repeat, ip link set <netdev> down && ip link set <netdev> up, then reset the NIC or replace it",
		},
	},
	{
		ID: "kmsg.driver_error", Severity: finding.Warning, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "an RDMA, network, NVMe or GPU driver logged errors ibdoctor does not classify",
		Meaning: "A driver of the RDMA, network, NVMe or GPU stack (mlx5_core, mlx4, ib_core and the RDMA device drivers, bnxt_re, irdma, efa; the upper layers over RDMA: ib_srp, ib_iser, rpcrdma, nvme-rdma; the Ethernet NIC drivers of cluster nodes: ice, i40e, ixgbe, igb, e1000e, ena, gve and others; NVMe controllers; NVIDIA's NVRM, nvidia-peermem) printed lines that say something failed (\"failed\", \"error\", \"timeout\", a negative errno), in a wording none of ibdoctor's kernel rules knows (\"mlx5_core 0000:01:00.2: up_rel_func:90:(pid 4328): failed to free uar index 17\", \"NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)\"). ibdoctor cannot say what they mean or how grave they are, only that the driver reported a failure on this device: read them. Lines the drivers print when nothing is wrong (an unsigned module, an optional firmware file, a capability the device lacks, NVMe's \"Shutdown timeout set to\" latency) and PCIe error reports (the AER rule reads those) are not counted; lines of a device another finding already reports are added to that finding as its evidence instead. A warning; critical when the driver core then reports that the probe of an InfiniBand or RDMA NIC function failed (drivers/base/dd.c \"ib_mthca: probe of 0000:04:00.0 failed with error -16\"): the device never came up and the host has no RDMA device from it.",
		Causes:  []string{"a fault of the device or its firmware that shows in a message ibdoctor does not know", "a driver and firmware (or NVIDIA driver and GPU) that do not match", "a resource the driver could not get: memory, interrupts, a firmware limit", "a driver bug"},
		Remedy: []string{
			"read the lines: dmesg -T | grep -i <pci> (or the driver's name), and journalctl -k -b -1 for the boot before",
			"mlx5: mlxfwmanager --query and mlxconfig -d <pci> query: the firmware version and settings the driver runs against; align the firmware with the driver",
			"NVRM: nvidia-bug-report.sh collects the driver's state and logs for NVIDIA support; nvidia-smi -q shows the GPU's state",
			"NVMe: nvme smart-log /dev/<ctrl> and nvme error-log /dev/<ctrl> (nvme-cli) show the controller's health (critical warning, media errors) and its error log",
			"search the driver's source or its vendor's release notes for the message text; if the device stays broken, reset it or reload the driver, then replace it if the errors return",
		},
	},
	{
		ID: "kmsg.module_load_failed", Severity: finding.Critical, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "a kernel module was built for another kernel or RDMA stack",
		Meaning: "The kernel refused to load a module. The module loader compares the version (CRC) the module recorded for every symbol it uses with the running kernel's, or with the loaded module's that exports it: \"ko2iblnd: disagrees about version of symbol ib_fmr_pool_unmap\" (kernel/module/version.c check_version), then \"ko2iblnd: Unknown symbol __ib_alloc_pd (err -22)\" (kernel/module/main.c simplify_symbols; err -2 or 0 when nothing loaded exports the symbol at all), or it compares the module's version magic with the kernel's (check_modinfo \"version magic '…' should be '…'\"). The module was built against other headers than those of what runs: another kernel, or the kernel's own RDMA stack while MLNX_OFED's ib_core is loaded (or MLNX_OFED's while the kernel's is, or another OFED version). Lustre's LNet then says it cannot start the network the module drives (lnet/lnet/api-ni.c lnet_startup_lndnet \"Can't load LND o2ib, module ko2iblnd, rc=256\"): the node has no LNet o2ib network and cannot reach Lustre over RDMA. Critical for a module of the RDMA, GPU, NIC or NVMe stack (nv_peer_mem or nvidia-peermem missing means no GPUDirect RDMA; an mlx5 or ib_* module missing means no RDMA) and for a module that needs the RDMA core's symbols (ib_*, rdma_*: the BeeGFS client, rpcrdma, an out-of-tree storage driver built against another RDMA stack, whose storage or transport is then down), a warning for another module.",
		Causes:  []string{"a kernel update without rebuilding the out-of-tree modules (DKMS did not run or failed for the new kernel)", "a module built against the kernel's own RDMA stack while MLNX_OFED is installed, or against MLNX_OFED while the kernel's stack is loaded, or against another MLNX_OFED version (MLNX_OFED reinstalled or upgraded after the module was built)", "Lustre: a Lustre client built without MLNX_OFED's headers (configure without --with-o2ib=/usr/src/ofa_kernel/default)", "an old copy of the module left in /lib/modules/$(uname -r)/extra or updates, found before the right one"},
		Remedy: []string{
			"modinfo <module> | grep -E 'filename|vermagic|depends' and uname -r: the module's file and the kernel it was built for must match the running kernel",
			"ofed_info -s, and modinfo -F filename ib_core: the MLNX_OFED installed and which ib_core is loaded (a path under updates or extra is MLNX_OFED's, under kernel/drivers the kernel's own)",
			"rebuild the module against the running kernel and the installed RDMA stack: reinstall its package, or dkms autoinstall for DKMS modules; then modprobe -v <module> and dmesg | tail",
			"Lustre: build the Lustre client against MLNX_OFED's headers (./configure --with-o2ib=/usr/src/ofa_kernel/default, or rebuild the lustre-client-dkms package after MLNX_OFED), then lustre_rmmod; modprobe lnet; lnetctl lnet configure and lnetctl net show: the o2ib network must be listed",
		},
	},
	{
		ID: "kmsg.rdma_peer_unreachable", Severity: finding.Critical, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "a kernel RDMA transport lost its peer",
		Meaning: "A kernel RDMA transport could not reach a peer over the fabric. Lustre's LNet o2ib driver (lnet/klnds/o2iblnd/o2iblnd_cb.c) timed out the messages it queued to the peer (\"Timed out tx for 172.31.126.87@o2ib: 403055 seconds\": the seconds since the peer last answered), the RDMA of an open connection (\"Timed out RDMA with 10.0.0.2@o2ib (52)\"), was refused a connection (\"10.0.0.2@o2ib rejected\"), or could not resolve the peer's address or route (\"ADDR ERROR -110\"). The Lustre clients or servers behind that peer are unreachable over RDMA: their file system I/O hangs, and Lustre's own requests fail \"due to network error\". The NVMe over RDMA host (drivers/nvme/host/rdma.c) could not connect a controller to its target: the target refused the connection (\"nvme nvme0: Connect rejected: status 8 (invalid service ID).\": the RDMA CM reject reason, here nothing listens on that port at the target address) or the address, route or connect did not complete (\"rdma connection establishment failed (-104)\", 4.x \"rdma_resolve_addr wait failed (-104).\"); a warning when one connect failed, critical when the host keeps reconnecting and failing (\"Failed reconnect attempt\") or removes the controller (\"Removing controller...\"): its namespaces are gone and I/O to them fails. I/O that times out on an NVMe over RDMA controller (rdma.c nvme_rdma_timeout \"nvme nvme0: I/O 33 QID 10 timeout\", 6.5+ \"I/O tag 33 (0021) opcode 0x1 (I/O Cmd) QID 10 timeout\", then \"starting error recovery\") is the same path stalling on a live connection: the host tears the queues down and reconnects, and I/O hangs until it does (a warning; critical when the reconnects fail or the controller is removed). NVMe over PCIe times out in other words (\"I/O 22 QID 0 timeout, aborting\") and is not reported here.",
		Causes:  []string{"the peer (a Lustre server or router, an NVMe-oF target) is down or its HCA port is down", "a fabric fault between the two: a link down, a switch failure, a partition (P_Key) the peer is not in", "Lustre: the IPoIB address of the peer's NID not reachable (ARP over IPoIB: the subnet manager, the IPoIB interface down)", "Lustre: LNet configured for a network the peer is not on", "NVMe over RDMA: the target has no RDMA listener on that address and port (the subsystem's port not enabled, a wrong trsvcid), or the host connects from an interface without RDMA (the RoCE interface for the storage network not configured)", "NVMe over RDMA: the target answers too slowly or stops answering (an overloaded or stalled target, a slow backing device), or the RDMA path drops packets (RoCE without PFC or ECN, link errors) so I/O times out"},
		Remedy: []string{
			"Lustre: lctl ping <nid> (and lnetctl ping <nid>) from this node: an answer means LNet reaches the peer again",
			"Lustre: lnetctl peer show --nid <nid> --verbose and lnetctl net show --verbose: the peer's state and this node's LNet interfaces",
			"ibstat, and ibdoctor doctor on this node and on the peer: the port state of both ends; ping the peer's IPoIB address",
			"Lustre: ask the storage administrators whether the peer (a Lustre server or LNet router) is up",
			"NVMe over RDMA: nvme list-subsys, and cat /sys/class/nvme/<dev>/address: the controller's target address (traddr) and port (trsvcid)",
			"NVMe over RDMA: nvme discover -a TRADDR -s 4420 -t rdma from this host: the target answers with the subsystems and ports it listens on; on the target, nvmetcli ls (Linux nvmet) or scripts/rpc.py nvmf_get_subsystems (SPDK) lists its listeners",
			"NVMe over RDMA: ip route get TRADDR: the interface the host connects from must be an RDMA port (rdma link show lists them); then nvme connect -a TRADDR -s TRSVCID -n SUBNQN -t rdma again",
			"NVMe over RDMA: for I/O timeouts, ethtool -S <netdev> | grep -iE 'discard|out_of_buffer|pause' and rdma statistic show on the host and the target: drops or pause storms on the storage path; on an SPDK target, check that its reactor cores are not oversubscribed (scripts/rpc.py framework_get_reactors)",
		},
	},
	{
		ID: "pcie.device_lost", Severity: finding.Critical, Area: "pcie", Step: finding.StepPCIe,
		Title:   "a device fell off the PCIe bus",
		Meaning: "A driver says its device is gone from the PCIe bus: its register reads return all ones, which is what a read of a device that no longer answers gives (Intel ixgbe_main.c ixgbe_check_remove then ixgbe_remove_adapter \"ixgbe 0000:05:00.0: Adapter removed\", igb_main.c igb_rd32 and igc_main.c igc_rd32 \"PCIe link lost\"), the PCI core took it offline after an error (mlx5 health.c mlx5_error_sw_reset \"PCI channel offline, stop waiting for NIC IFC\"), or the device did not come back from a reset, often one after a PCIe error (drivers/nvme/host/pci.c nvme_reset_work \"nvme nvme1: Disabling device after reset failure: -5\"), or lspci prints the device's revision as \"(rev ff)\": its config space reads all ones. The device is unusable until it is back on the bus: the NIC's links are gone, the NVMe namespaces removed. Critical for a network adapter and for a GPU or compute accelerator that is not NVIDIA's (PCI class 03xx or 12xx from AMD, Intel or Habana: every job on it died, as with an NVIDIA GPU's Xid 79; its other functions, such as its HDMI audio, are evidence of the same finding), a warning for another device (a BMC's VGA, USB, SATA, an audio function alone).",
		Causes:  []string{"the PCIe link went down: a card not fully seated, a riser or retimer fault, a damaged slot, a link that does not retrain after a reset", "a PCIe error the platform contained (DPC, EDR) and recovery that did not bring the device back", "the device hung or lost power (a firmware crash, a failing card, insufficient slot power)"},
		Remedy: []string{
			"lspci -vvv -s <pci>: a device gone is missing or reads as all ones (Unknown header type 7f)",
			"dmesg -T | grep -E 'AER|DPC|EDR' around the time: the PCIe error before the device left",
			"rescan the bus (echo 1 > /sys/bus/pci/rescan) or reboot; if the device drops again, reseat it, move it to another slot, update the BIOS and the device firmware, then replace it",
		},
	},
	{
		ID: "pcie.slot_power", Severity: finding.Warning, Area: "pcie", Step: finding.StepPCIe,
		Title:   "PCIe slot gives the NIC too little power",
		Meaning: "The mlx5 firmware compared the power its PCIe slot advertises (the slot power limit of the device's capabilities) with what the card needs, and found it short (drivers/net/ethernet/mellanox/mlx5/core/events.c mlx5_pcie_event: \"Detected insufficient power on the PCIe slot (27W).\"). A card short of power may throttle its bandwidth, or fail under load. Some platforms advertise a slot power limit the slot does in fact exceed (a limit of 0 W, or one the BIOS never set): there the message is a misreport, and a bandwidth test at line rate settles it.",
		Causes:  []string{"the card sits in a slot (or behind a riser) rated for less power than it draws", "the BIOS or the platform advertises a wrong slot power limit"},
		Remedy: []string{
			"lspci -vvv -s <pci> | grep -i 'power limit': the slot power limit the device was given",
			"run a bandwidth test at line rate (ib_write_bw) to see whether the card throttles",
			"move the card to a slot rated for its power, or ask the platform vendor for a BIOS that advertises the slot's real limit",
		},
	},
	{
		ID: "kmsg.cq_error", Severity: finding.Warning, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "RDMA completion queue errors in the kernel log",
		Meaning: "The mlx5 driver logged completion queue errors. A CQ error event (drivers/net/ethernet/mellanox/mlx5/core/eq.c: \"CQ error on CQN 0x40a, syndrom 0x1\") is the HCA reporting a whole CQ broken: syndrome 0x1 is an overrun (more completions arrived than the CQ holds: its owner posted more work than it sized the CQ for, or stopped polling it), 0x2 an access violation (the CQ's memory was not accessible). The CQ and the queue pairs that complete into it go to the error state, so that process's connections fail or hang; the link and the firmware are not at fault (a warning). Error completions (drivers/infiniband/hw/mlx5/cq.c: \"Responder error cqe on cqn 0x406\" with its \"syndrome 0x5, vendor syndrome 0xf9\" line, or \"WC error: 12, Message: transport retry counter exceeded\") are work requests of a kernel RDMA consumer (NVMe over RDMA, iSER, SRP, NFS over RDMA, SMB Direct, IPoIB) that failed; the CQE syndrome decodes to the work-completion status as the driver maps it. A flushed work request (syndrome 0x5) is fallout: the queue pair had already gone to the error state (a connection torn down or lost) and its queued work was returned (a warning); any other status is the failure itself, and the connection it ran on is lost until the consumer reconnects (critical). mlx5_ib's queue pair error lines (drivers/infiniband/hw/mlx5/qp.c mlx5_ib_qp_err_syndrome: \"mlx5_bond_0/1: QP 51291 error: local length error (0x8e 0x0 0x0)\") report a fatal, requester or access error event of any queue pair, an application's or a kernel consumer's: the HCA moved it to the error state; the text is ib_wc_status_msg of the CQE syndrome, read back as that syndrome's status (critical unless a flush).",
		Causes: []string{
			"CQ overrun: an application or library that posts more work than its completion queue holds, or stops polling it (a hung or overloaded process)",
			"flushed work requests: the connection was torn down (the peer or the consumer disconnected, a port went down, an earlier error on the queue pair)",
			"transport retry counter exceeded: the peer stopped acknowledging: a lossy or broken path, a link flap, or a peer that died",
			"remote access, remote operation, local protection errors: a memory registration that went away or does not cover the buffer, or a peer that failed (see the status)",
		},
		Remedy: []string{
			"rdma resource show cq lists each CQ (cqn in decimal) with the pid and command of its owner; rdma resource show qp shows the queue pairs and their state",
			"read the consumer's own lines around the errors (nvme, iser, srp, rpcrdma, ib_ipoib, or the application's log) and the port's link events; run ibdoctor doctor on both ends",
			"CQ overrun: report it to the application's or library's maintainers with its version: it must size its CQ for the work it posts and keep polling it",
		},
	},
	{
		ID: "kmsg.segfault", Severity: finding.Warning, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "a process crashed inside a communication library",
		Meaning: "The kernel logged a process killed by a segmentation or general protection fault (arch/x86/mm/fault.c \"segfault at … in libnccl.so.2[…]\", traps.c \"general protection fault\") with the faulting instruction in NCCL/RCCL, the verbs stack (libibverbs, its providers libmlx5/libmlx4/libefa…, librdmacm), UCX, libfabric, HCOLL or SHARP: the job on this node died inside the network path, and its peers will time out. A warning, naming the library and the process; a crash in any other file is info.",
		Causes:  []string{"a bug in the library, or a version that does not match the driver, firmware or the rest of the stack (NCCL vs its net plugin, libibverbs vs its provider)", "memory corruption by the application handed to the library (freed or unregistered buffers)", "a device that went away under the library (HCA reset, GPU fallen off the bus: see the lines before)"},
		Remedy:  []string{"read the job's own log for the error before the crash; rerun with NCCL_DEBUG=INFO (or UCX_LOG_LEVEL=info) to see what the library was doing", "coredumpctl list, then coredumpctl info with the crashed process's PID, for its stack (where systemd-coredump keeps cores)", "ldd on the job's binary or library to see which copy of the library it loaded, and compare its version with the driver's and the plugin's"},
	},
	{
		ID: "host.memory_error", Severity: finding.Critical, Area: "host", Step: finding.StepKernelLog,
		Title:   "host memory error reported by EDAC",
		Meaning: "The EDAC driver of the memory controller logged memory errors (drivers/edac/edac_mc.c: \"EDAC MC3: 1 UE memory read error on CPU_SrcID#1_MC#1_Chan#2_DIMM#0 (…)\"). An uncorrected error (UE) lost data: the process that read it was killed or the host may crash, and the DIMM needs service (critical). Corrected errors (CE) are info: a few are normal, a steady stream announces a failing DIMM.",
		Causes:  []string{"a failing DIMM (cells or its connection)", "a DIMM not seated well, or a damaged slot", "memory running out of its specification (overclocking, temperature)"},
		Remedy:  []string{"drain the node and have the DIMM the line names replaced (the label maps to a slot in the board's manual, or ipmitool sel list / the BMC event log names it)", "edac-util -v (edac-utils) or the counters under /sys/devices/system/edac/mc/ to see the errors per DIMM", "ras-mc-ctl --errors (rasdaemon) for the history, where rasdaemon runs"},
	},
	{
		ID: "host.machine_check", Severity: finding.Critical, Area: "host", Step: finding.StepKernelLog,
		Title:   "the CPU reported a machine check (hardware error)",
		Meaning: "The x86 machine check architecture reported a hardware error (arch/x86/kernel/cpu/mce/core.c): print_mce's \"mce: [Hardware Error]: CPU 3: Machine Check Exception: 5 Bank 7: be00000000800400\" names the CPU, the bank (which unit: a core's cache, the memory controller, the interconnect) and MCi_STATUS, whose bit 61 (UC) marks an error the hardware did not correct. An uncorrected error, or one raised as an exception, is critical: data was lost and the kernel usually kills the process or panics. \"Machine check events logged\" (mce_notify_irq) says errors were logged, most often corrected ones, without saying which: a warning, worth reading in mcelog or rasdaemon, since corrected errors that keep coming announce a failing DIMM or CPU.",
		Causes:  []string{"a failing DIMM (the memory controller banks)", "a failing CPU, its cache or interconnect (QPI/UPI)", "power, cooling or firmware (BIOS microcode) problems"},
		Remedy:  []string{"ras-mc-ctl --errors (where rasdaemon runs; else the log of mcelog) to decode the bank and address; ipmitool sel list for the BMC's record", "drain the node after an uncorrected error; have the DIMM or CPU the decode names replaced", "update the BIOS and CPU microcode"},
	},
	{
		ID: "host.oom_kill", Severity: finding.Warning, Area: "host", Step: finding.StepKernelLog,
		Title:   "the kernel's OOM killer killed a process",
		Meaning: "The host (or a memory cgroup: a container, a Slurm job) ran out of memory and the kernel killed a process to free it (mm/oom_kill.c: \"Out of memory: Killed process 2345 (pt_main_thread) total-vm:…\", \"Memory cgroup out of memory: Killed process …\"). A training or inference process killed this way is a job that died; its peers then time out in their collectives. A warning, naming the processes.",
		Causes:  []string{"the job needs more host memory than the node (or its cgroup limit) has: data loader workers, pinned buffers, a model loaded on the CPU per rank", "a memory leak in the job", "other processes on the node using the memory"},
		Remedy:  []string{"dmesg -T | grep -B30 'Killed process' for the memory table the kernel printed before the kill (which processes held the memory)", "lower the job's host memory use (fewer data loader workers, smaller prefetch) or raise its cgroup limit (the Slurm job's memory request, the container's memory limit)", "cat /proc/meminfo while the job runs to watch the headroom"},
	},
	{
		ID: "kmsg.kernel_oops", Severity: finding.Critical, Area: "kmsg", Step: finding.StepKernelLog,
		Title:   "the kernel crashed (oops), warned or hung inside a driver",
		Meaning: "The kernel logged a crash report, an oops: a page fault (\"BUG: unable to handle page fault for address\", \"BUG: kernel NULL pointer dereference\"), a general protection fault or a failed BUG() assertion (\"kernel BUG at\") while running kernel code, with the faulting function (\"RIP: 0010:func+0x10/0x26\", arm64 \"pc : func+…\") and the call trace, whose frames name their module in brackets (\"mlx5_irq_alloc+0x99/0x319 [mlx5_core]\"). The task that crashed is killed with the locks it held, so the driver's device stops working and the host often hangs (at boot, at shutdown, or at the next use of the device) until it is rebooted. Critical wherever it crashed: the summary says when the faulting function or the first module of the trace is a driver of an RDMA or GPU device (mlx5_core, mlx5_ib, mlx4, ib_core and the RDMA upper layers, irdma, bnxt_re, efa, nvidia, nvidia_peermem, amdgpu…), whose devices are then unusable; a crash elsewhere (a filesystem, a file server such as ksmbd, the workqueue code) leaves the host just as unstable, so the node is drained and rebooted all the same. A WARN_ON splat (\"WARNING: CPU: 3 PID: 7 at drivers/…/cq.c:345 ib_free_cq+0x16c/0x174\") is a driver check that failed without a crash; a hung task (kernel/hung_task.c \"INFO: task kworker/u98:2:6024 blocked for more than 120 seconds.\") is a task that waited in the kernel for minutes, a soft lockup (kernel/watchdog.c \"watchdog: BUG: soft lockup - CPU#12 stuck for 23s!\") a CPU that spun there: each a warning when its trace is in an RDMA or GPU driver (the device or its firmware stopped answering), not reported otherwise. A memory checker's report, KASAN (mm/kasan/report.c \"BUG: KASAN: use-after-free in mlx5_cmd_set_fte+0x200d/0x24c0 [mlx5_core]\") or KFENCE (mm/kfence/report.c \"BUG: KFENCE: use-after-free read in …\"), is a bad access caught as it happened: critical in an RDMA or GPU driver, a warning elsewhere, since the kernel goes on after the report (unless panic_on_warn or kasan.fault=panic is set) and a crash that follows is reported of its own; the refcount_t check's WARN_ON after \"refcount_t: underflow; use-after-free.\" or \"refcount_t: addition on 0; use-after-free.\" (lib/refcount.c refcount_warn_saturate: a reference put once too often) is read the same way, as a use-after-free; an undefined-behaviour report (lib/ubsan.c \"UBSAN: array-index-out-of-bounds in drivers/…/qp.c:4123:20\"), after which the kernel goes on and which is often harmless, like a WARN_ON.",
		Causes: []string{
			"a driver bug, often a regression of a new kernel or driver release (a use after free at shutdown or reset, an error path during probe)",
			"a driver that does not match its firmware, or an out-of-tree driver (MLNX_OFED, NVIDIA) built for another kernel",
			"a device that misbehaved or went away under the driver (see the PCIe AER, health or Xid lines before the crash)",
		},
		Remedy: []string{
			"drain the node and reboot it; keep the whole log of the crashed boot (journalctl -k -b -1) with the lines before the report",
			"note the kernel and driver versions (modinfo mlx5_core, or the module the report names) and look up the faulting function in the driver's changelog and its mailing list or bug tracker (linux-rdma for the RDMA drivers)",
			"if it started with a kernel or driver upgrade, boot the previous version until a fixed one is out; report the crash with its call trace to the driver's maintainers",
		},
	},

	{
		ID: "host.iommu_translated", Severity: finding.Warning, Area: "host", Step: finding.StepPCIe,
		Title:   "IOMMU in translated mode on a GPUDirect RDMA node",
		Meaning: "The kernel command line turns DMA remapping on (intel_iommu=on, iommu.passthrough=0) without iommu=pt, on a node with GPUs and RDMA devices. Every DMA of the NIC into GPU memory is then translated by the IOMMU: GPUDirect RDMA runs slowly or its registrations fail, and NCCL falls back to staging through host memory. On bare metal, passthrough (iommu=pt) or an IOMMU that is off is what GPUDirect RDMA needs. Inside a VM the IOMMU (and PCIe ACS) are what isolate the guest's devices: there this is expected, and ATS on the NIC is the way to recover the performance.",
		Causes:  []string{"intel_iommu=on added for SR-IOV or VFIO without iommu=pt", "a distribution kernel command line that enables the IOMMU for security hardening"},
		Remedy:  []string{"bare metal: add iommu=pt to the kernel command line (GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub or grub2-mkconfig, and reboot); keep intel_iommu=on if SR-IOV needs it", "cat /proc/cmdline after the reboot to confirm", "in a VM, leave the IOMMU on and check with the provider that ATS is enabled for the NIC"},
	},
	{
		ID: "pcie.acs_redirect", Severity: finding.Warning, Area: "pcie", Step: finding.StepPCIe,
		Title:   "PCIe ACS redirects GPU–NIC peer-to-peer traffic to the root complex",
		Meaning: "A bridge between a GPU and a NIC that share a PCIe switch has ACS P2P Request Redirect, Completion Redirect or Egress Control on (ACS Control register of the ACS extended capability, ID 0x000D; lspci -vvv shows ACSCtl: ReqRedir+ CmpltRedir+). Peer-to-peer requests that would turn around in the switch are sent up to the root complex instead: GPUDirect RDMA between the GPU and the NIC loses most of its bandwidth, or hangs when the root complex does not route peer-to-peer. NCCL's troubleshooting guide says to disable ACS on bare metal. Read from config space, which the kernel shows beyond its 64-byte header only to root: an unprivileged run reports the bridges' config as a gap, not as healthy. A pasted sudo lspci -vvv is judged per switch downstream port: one is reported when a GPU and a NIC below its switch talk through it, or when the paste does not show what is below the switch; root ports are not, since traffic between two root ports crosses the root complex whatever their ACS says.",
		Causes: []string{
			"the kernel enables ACS on every switch port when an IOMMU driver is active (intel_iommu=on, amd_iommu), iommu=pt included",
			"the BIOS enables ACS (often a \"PCIe ACS\" or \"ACS Control\" setting, on by default for virtualization)",
			"a VM or a host set up for device passthrough, where ACS is what isolates the devices",
		},
		Remedy: []string{
			"as root: for b in <bridges>; do setpci -s $b ECAP_ACS+0x6.w=0000; done (clears ACS Control until the next reboot)",
			"to keep it: disable ACS in the BIOS, or run the same setpci loop from a boot-time unit",
			"as root: lspci -vvv | grep ACSCtl to confirm ReqRedir- CmpltRedir- on those bridges",
			"in a VM, leave ACS on (it isolates the guest's devices) and ask the provider for ATS on the NIC",
		},
	},
	// Step 4: memory and registration limits, drivers.
	{
		ID: "host.memlock_limited", Severity: finding.Warning, Area: "host", Step: finding.StepHost,
		Title:   "locked-memory limit too low for RDMA registration",
		Meaning: "RLIMIT_MEMLOCK (\"Max locked memory\") of the job is finite and small. RDMA memory registration pins pages; with a low limit ibv_reg_mr fails and NCCL falls back or aborts. Below 64 MiB is critical.",
		Thresholds: []finding.Threshold{
			{Name: "memlock_critical", Default: limits.MiB(limits.HostMemlockCritical), Meaning: "soft limit below which registration of NCCL buffers fails"},
		},
		Causes: []string{"default limits (64 KiB / 8 MiB) of the login shell or systemd unit", "container runtime without --ulimit memlock=-1", "Slurm PropagateResourceLimits carrying a low submit-host limit"},
		Remedy: []string{"set 'memlock unlimited' in /etc/security/limits.conf (soft and hard)", "systemd: LimitMEMLOCK=infinity; docker run --ulimit memlock=-1:-1", "Slurm: PropagateResourceLimitsExcept=MEMLOCK"},
	},
	{
		ID: "nccl.peermem_missing", Severity: finding.Warning, Area: "nccl", Step: finding.StepHost,
		Title:   "nvidia_peermem not loaded (no GPUDirect RDMA)",
		Meaning: "The node has NVIDIA GPUs and RDMA NICs but the nvidia_peermem (or legacy nv_peer_mem) module is not loaded, so NCCL cannot register GPU memory with the HCA and stages every transfer through host memory (unless DMA-BUF is used). The same holds for an AMD GPU whose driver's peer-memory client could not hook into ib_core: the kernel log's \"failing symbol_get of non-GPLONLY symbol ib_register_peer_memory_client.\" (kernel/module/main.c __symbol_get, Linux 6.6 and later, with an OFED ib_core that exports the API without GPL-only).",
		Causes:  []string{"module not loaded at boot", "module not built for the running kernel/driver", "MLNX_OFED installed after the NVIDIA driver"},
		Remedy:  []string{"modprobe nvidia_peermem; add it to /etc/modules-load.d", "reinstall the NVIDIA driver after MLNX_OFED so nvidia_peermem is built", "NCCL_DEBUG=INFO should then show 'GPU Direct RDMA Enabled'"},
	},

	// Step 5: NCCL configuration.
	{
		ID: "nccl.ib_disabled", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL_IB_DISABLE=1 while InfiniBand/RoCE ports are healthy",
		Meaning: "NCCL is told not to use the RDMA NICs, so inter-node traffic goes over TCP sockets at a fraction of the bandwidth.",
		Causes:  []string{"left over from debugging", "copied from a single-node or cloud recipe"},
		Remedy:  []string{"unset NCCL_IB_DISABLE (or set it to 0)"},
	},
	{
		ID: "nccl.ib_hca_unknown", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL_IB_HCA names no existing RDMA device",
		Meaning: "An entry of NCCL_IB_HCA matches no RDMA device (or port) of the node, as NCCL matches it. If no entry matches, NCCL finds no IB device and falls back to sockets.",
		Causes:  []string{"typo or a device name from another node type", "device renamed (udev rules, different slot order)", "exact match (=) used with a name that has a different suffix"},
		Remedy:  []string{"ibdev2netdev / ls /sys/class/infiniband to list the names", "use the suggested NCCL_IB_HCA of `ibdoctor doctor`"},
	},
	{
		ID: "nccl.ib_hca_prefix_ambiguous", Severity: finding.Warning, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL_IB_HCA entry selects more devices than written",
		Meaning: "NCCL matches NCCL_IB_HCA entries as prefixes unless the list starts with '='. An entry like mlx5_1 also selects mlx5_10…mlx5_19, so the job uses (or, with '^', excludes) more HCAs than intended.",
		Causes:  []string{"prefix matching is NCCL's default"},
		Remedy:  []string{"prefix the list with '=' for exact matching (NCCL_IB_HCA==mlx5_0,mlx5_1)", "or name ports explicitly (mlx5_1:1)"},
	},
	{
		ID: "nccl.ib_hca_port_down", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL_IB_HCA selects a port that is not ACTIVE",
		Meaning: "A port NCCL_IB_HCA selects is not ACTIVE. NCCL skips inactive ports, so the job runs on fewer rails (less bandwidth) or none.",
		Causes:  []string{"port down (see the port findings)", "NCCL_IB_HCA written for another node's cabling"},
		Remedy:  []string{"fix the port (see port.* findings) or drop it from NCCL_IB_HCA"},
	},
	{
		ID: "nccl.socket_ifname_missing", Severity: finding.Warning, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL_SOCKET_IFNAME selects no usable interface",
		Meaning: "NCCL_SOCKET_IFNAME (same syntax as NCCL_IB_HCA: prefixes, '^' to exclude, '=' for exact) matches no interface that is up, or only loopback/docker bridges. NCCL bootstrap then fails (\"no socket interface found\") or runs over an interface other nodes cannot reach.",
		Causes:  []string{"interface name from another node type (eth0 vs ens…)", "interface down", "only the docker bridge or lo matches"},
		Remedy:  []string{"ip -br link to list interfaces", "set NCCL_SOCKET_IFNAME to the cluster network interface (e.g. =ens1f0np0 or a common prefix)"},
	},
	{
		ID: "nccl.gid_index_wrong", Severity: finding.Critical, Area: "nccl", Step: finding.StepNCCL,
		Title:   "NCCL_IB_GID_INDEX points at an empty, RoCE v1 or link-local GID",
		Meaning: "On RoCE ports NCCL uses the GID at NCCL_IB_GID_INDEX. An empty slot makes QP creation fail (critical); a RoCE v1 GID is not routable and does not work with ECN-based congestion control (critical). A RoCE v2 GID made from the fe80:: link-local address puts link-local IPv6 addresses in the packets, which no router forwards: on a routed (L3) RoCE fabric NCCL reaches no other node (a warning, since the node cannot see whether its fabric is routed). The summary names the routable RoCE v2 GID to use and its index (the IPv4-mapped one first). NCCL's own report of a failed ibv_modify_qp shows an empty slot too: the local GID it read at the index it used is :: (all zeros). Mooncake's transfer engine logs the GID each RDMA device uses (its MC_GID_INDEX, or its own pick): an all-zero GID there is the same empty slot (critical), a RoCE port's link-local fe80:: GID a warning.",
		Causes:  []string{"index taken from another node or driver version (GID tables differ)", "IP address not configured on the netdev, so the v2 GID does not exist"},
		Remedy:  []string{"show_gids to list the table; pick the RoCE v2 IPv4 entry", "unset NCCL_IB_GID_INDEX (recent NCCL picks a v2 GID itself)"},
	},

	// RoCE configuration and congestion (node ports; reported by doctor at step 1).
	{
		ID: "roce.gid_missing_v2", Severity: finding.Critical, Area: "roce", Step: finding.StepPort,
		Title:   "RoCE port has no RoCE v2 GID",
		Meaning: "The Ethernet port's GID table holds no RoCE v2 entry. RoCE v2 needs an IP address on the netdev (the v2 GID is derived from it); without it only link-local v1 GIDs exist and routed RDMA traffic fails. A pasted table (show_gids) whose only v2 GIDs are link-local (fe80::, derived from the MAC) is the same missing address seen on a newer kernel: a warning, since a flat layer-2 network still works with them.",
		Causes:  []string{"no IPv4/IPv6 address configured on the netdev", "RoCE v2 disabled (cma_roce_mode, mlxconfig)", "netdev in another network namespace"},
		Remedy:  []string{"ip addr show <netdev>; configure the address", "show_gids to check the table", "cma_roce_mode -d <dev> -p <port> -m 2"},
	},
	{
		ID: "roce.mtu_mismatch", Severity: finding.Warning, Area: "roce", Step: finding.StepPort,
		Title:   "RoCE MTU inconsistent or too small",
		Meaning: "RoCE netdevs of the node have different MTUs, or an MTU that caps the RDMA active MTU below 4096 (the kernel subtracts 96 bytes of RoCE headers, so a 4096-byte RDMA MTU needs a netdev MTU ≥ 4192). Peers negotiate the smaller MTU; mixed MTUs cause drops on the fabric.",
		Thresholds: []finding.Threshold{
			{Name: "roce_mtu_min", Default: "4192", Meaning: "netdev MTU that gives a 4096-byte RDMA active MTU (iboe_get_mtu)"},
		},
		Causes: []string{"MTU not set on every interface (netplan/ifcfg difference)", "switch ports configured with different MTUs"},
		Remedy: []string{"ip link set <netdev> mtu 9000 on every RoCE port (and on the switches)", "ibv_devinfo -v | grep active_mtu"},
	},
	{
		ID: "roce.pfc_storm", Severity: finding.Critical, Area: "roce", Step: finding.StepPort,
		Title:   "PFC pause storm detected",
		Meaning: "The NIC's pause-storm detector fired (tx_pause_storm_warning/error_events): the NIC kept sending PFC pauses for a long time, and on error it stopped honouring PFC, so drops are possible. A stuck receiver can deadlock the lossless fabric.",
		Causes:  []string{"host cannot drain receive queues (CPU/PCIe stall, application not posting receives)", "PFC deadlock in the fabric", "misconfigured buffer/priority mapping"},
		Remedy:  []string{"ethtool -S <netdev> | grep -E 'pause|discard'", "check the switch's PFC watchdog and pause counters hop by hop", "mlnx_qos -i <netdev> to verify PFC priorities and buffers"},
	},
	{
		ID: "roce.pause_heavy", Severity: finding.Warning, Area: "roce", Step: finding.StepPort,
		Title:   "heavy PFC pausing",
		Meaning: "Many PFC pause frames were received or sent relative to the traffic on that priority, or the priority spent a large share of the time since boot paused (rx/tx_prioN_pause_duration). Lossless RoCE works, but throughput suffers and head-of-line blocking spreads congestion.",
		Thresholds: []finding.Threshold{
			{Name: "pause_ratio", Default: limits.Pct(limits.HostPauseRatio), Meaning: "pause frames per packet on a priority"},
			{Name: "pause_min", Default: limits.Uint(limits.HostPauseMin), Meaning: "pause frames below which the ratio is not judged"},
			{Name: "pause_time_share", Default: limits.Pct(limits.HostPauseTimeShare), Meaning: "share of the uptime a priority spent paused (pause_duration)"},
		},
		Causes: []string{"incast congestion (many-to-one traffic)", "ECN/DCQCN not working, so PFC does all the work", "slow receiver"},
		Remedy: []string{"check that ECN marks and CNPs flow (np_ecn_marked_roce_packets, rp_cnp_handled)", "tune DCQCN and switch ECN thresholds", "look for a slow node with ibdoctor perf pairwise"},
	},
	{
		ID: "roce.ecn_not_effective", Severity: finding.Warning, Area: "roce", Step: finding.StepPort,
		Title:   "ECN congestion control not effective",
		Meaning: "The port pauses (PFC) but congestion notification does not work: no ECN-marked packets or handled CNPs, or CNPs are ignored (rp_cnp_ignored rising). Congestion is then handled only by PFC, which spreads it.",
		Causes:  []string{"ECN not enabled on the switch queues", "DCQCN disabled on the NIC for that priority", "traffic on a priority without ECN"},
		Remedy:  []string{"cat /sys/class/net/<netdev>/ecn/roce_np/enable/<prio> /sys/class/net/<netdev>/ecn/roce_rp/enable/<prio>", "enable ECN marking on the switch traffic class", "mlnx_qos -i <netdev> to check the priority/trust mapping"},
	},
	{
		ID: "roce.pfc_disabled", Severity: finding.Warning, Area: "roce", Step: finding.StepPort,
		Title:   "PFC is not enabled on the RoCE priority",
		Meaning: "The port's QoS configuration has Priority Flow Control on no priority (mlnx_qos \"enabled 0 0 0 0 0 0 0 0\"), or a switch in RoCE lossless mode has PFC off or not on the priority its RoCE application TLV names. RoCE traffic on that priority is then lossy: under congestion the switch drops instead of pausing, and every drop costs a go-back-N retransmission. A fabric run lossy on purpose (ECN-only congestion control) is the exception; the NIC and the switch must agree either way.",
		Causes:  []string{"PFC never configured on the host (the mlnx_qos defaults), or reset by a driver reload or reboot without the configuration being persisted", "DCBX in firmware mode while the switch does not advertise PFC, or the switch's PFC on another priority than the one RoCE traffic uses", "switch RoCE configuration changed (no dcb priority-flow-control enable)"},
		Remedy:  []string{"mlnx_qos -i <netdev> --pfc 0,0,0,1,0,0,0,0 (the RoCE priority, 3 by convention) and the same priority on the switch", "mlnx_qos -i <netdev> --trust dscp when RoCE traffic is marked by DSCP", "Onyx: show roce; roce lossless (PFC on the RoCE priority with ECN)"},
	},
	{
		ID: "roce.ecn_disabled", Severity: finding.Warning, Area: "roce", Step: finding.StepPort,
		Title:   "ECN marking is not configured for RoCE",
		Meaning: "The switch's RoCE configuration has no ECN congestion control (its port congestion-control mode is not ecn), or RoCE is not configured at all (Onyx \"RoCE mode: N/A\"). Without ECN marks the NICs receive no congestion notifications and DCQCN never slows the senders: a lossless fabric relies on PFC alone, which spreads congestion and head-of-line blocking; a lossy one drops.",
		Causes:  []string{"RoCE mode never configured on the switch (no roce)", "congestion control removed from the traffic class (no ... congestion-control)", "switch reset to defaults"},
		Remedy:  []string{"Onyx: roce lossless (ECN with PFC) or roce lossy (ECN only), then show roce", "check the NIC side: cat /sys/class/net/<netdev>/ecn/roce_np/enable/<prio>"},
	},
	{
		ID: "roce.phy_errors", Severity: finding.Warning, Area: "roce", Step: finding.StepPort,
		Title:   "physical-layer errors or drops on a RoCE port",
		Meaning: "ethtool statistics show FCS/CRC or symbol errors, uncorrected PCS symbol errors (traffic loss), PHY discards, or link-down events. Lost packets make RoCE retransmit (go-back-N) and stall.",
		Causes:  []string{causeCable, "dirty connector", "adapter congested (rx_discards_phy) when buffers run out"},
		Remedy:  []string{"ethtool -S <netdev> | grep _phy", remedyMlxlinkC, remedyReseat},
	},

	{
		ID: "host.nic_rx_drops", Severity: finding.Warning, Area: "host", Step: finding.StepPort,
		Title:   "NIC drops received frames for lack of host buffers",
		Meaning: "ethtool -S shows frames the NIC received but dropped because its receive ring had no free descriptor or buffer (mlx5 rx_discards_phy and rx_out_of_buffer, ixgbe/igb rx_missed_errors and rx_no_buffer_count, i40e port.rx_dropped, ice rx_dropped.nic, rx_fifo_errors): the link is fine, the host does not drain the ring fast enough. The counters are totals since the driver loaded; their share of the received frames says how much. On RoCE without PFC each drop is a go-back-N retransmission.",
		Thresholds: []finding.Threshold{
			{Name: "rx_drop_ratio", Default: limits.Pct(limits.HostRxDropRatio), Meaning: "dropped frames per received frame (the largest drop counter over rx_packets_phy, else rx_packets)"},
			{Name: "rx_drop_min", Default: limits.Uint(limits.HostRxDropMin), Meaning: "drops below which the share is not judged"},
		},
		Causes: []string{"receive rings too small for bursts", "interrupts or the receiving cores overloaded (IRQ affinity, CPU frequency scaling)", "RoCE: PFC off on the receive priority, so bursts overrun the NIC's buffer"},
		Remedy: []string{"ethtool -g <netdev> (ring sizes; raise them with ethtool -G <netdev> rx 4096)", "ethtool -S <netdev> | grep -E 'drop|discard|missed|no_buffer'", "RoCE: mlnx_qos -i <netdev> to check PFC on the RoCE priority"},
	},

	// Step 6: container device access.
	{
		ID: "container.uverbs_missing", Severity: finding.Critical, Area: "container", Step: finding.StepContainer,
		Title:   "/dev/infiniband/uverbsN missing or not openable",
		Meaning: "An RDMA device has no usable user-verbs character device in this root (container). libibverbs cannot open the device, and NCCL silently falls back to TCP sockets, and GPUs idle at a third of their normal utilisation.",
		Causes:  []string{"container started without --device=/dev/infiniband/uverbsN (or the RDMA device plugin)", "ib_uverbs module not loaded", "device cgroup denies access"},
		Remedy:  []string{"docker run --device=/dev/infiniband ... or the Kubernetes RDMA shared device plugin", "modprobe ib_uverbs", "ls -l /dev/infiniband inside the container"},
	},
	{
		ID: "host.verbs_provider_missing", Severity: finding.Critical, Area: "host", Step: finding.StepContainer,
		Title:   "libibverbs has no provider for the RDMA devices",
		Meaning: "libibverbs found the kernel's user-verbs devices (/sys/class/infiniband_verbs/uverbsN) but no user-space provider library that drives them (\"libibverbs: Warning: no userspace device-specific driver found for …/uverbs0\", rdma-core libibverbs/init.c): no process on this host or in this container can open the HCA, so ibv_devinfo lists none, NCCL falls back to TCP sockets and MPI/UCX leave RDMA out. Critical when no device is usable; a warning when others are.",
		Causes:  []string{"the image or host has libibverbs without its providers (Debian/Ubuntu ibverbs-providers, RHEL rdma-core's libmlx5, or MLNX_OFED's libmlx5)", "the provider does not match libibverbs (an inbox libibverbs with MLNX_OFED providers, or a provider of another ABI version: libmlx5-rdmav2.so vs rdmav34)", "/etc/libibverbs.d (the driver list of older libibverbs) missing or without the device's entry"},
		Remedy:  []string{"ls /etc/libibverbs.d /usr/lib/x86_64-linux-gnu/libibverbs /usr/lib64/libibverbs to see which providers are installed", "install the provider in the image: apt-get install ibverbs-providers (Debian/Ubuntu), dnf install rdma-core libibverbs (RHEL), or the same MLNX_OFED user space as the host", "ibv_devinfo -l to confirm the HCAs are listed"},
	},
	{
		ID: "container.rdma_cm_missing", Severity: finding.Warning, Area: "container", Step: finding.StepContainer,
		Title:   "/dev/infiniband/rdma_cm missing or not openable",
		Meaning: "The RDMA connection manager device is absent or not openable. Applications that use librdmacm (MPI, UCX, some NCCL plugins, perftest -R) cannot connect.",
		Causes:  []string{"container started without /dev/infiniband/rdma_cm", "rdma_ucm module not loaded"},
		Remedy:  []string{"docker run --device=/dev/infiniband/rdma_cm (or the RDMA shared device plugin on Kubernetes)", "modprobe rdma_ucm"},
	},
}
