package catalog

import (
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

var (
	causeCable   = "cable or transceiver fault (aging optics, bent DAC, dirty connector)"
	causePeer    = "peer switch port down, disabled or misconfigured"
	remedyReseat = "reseat the cable at both ends; swap it with a known-good one, or swap ends, to tell a cable fault from a port fault"
	// remedyReset retrains the link from this end: ibportstate addresses
	// the local HCA by directed route 0 and needs -C/-P so it is not the
	// first HCA's port; a RoCE port is retrained by bouncing its netdev.
	remedyReset     = "IB: ibportstate -C <dev> -P <port> -D 0 <port> reset (directed route 0 is this HCA; or reset the switch port at the other end)"
	remedyResetRoCE = "RoCE: ip link set <netdev> down && ip link set <netdev> up to retrain the link"
	remedyMlxlinkC  = "mlxlink -d <pci> -c to see the per-lane errors and BER"
)

// nodeMetas are the port and PCIe findings of a single node.
var nodeMetas = []finding.Meta{
	{
		ID: "port.missing", Severity: finding.Critical, Area: "node", Step: finding.StepPort,
		Title:   "expected RDMA device or port is absent",
		Meaning: "The expectation names a device or port that sysfs does not show: the HCA fell off the bus, its driver did not load, or it was renamed.",
		Causes:  []string{"mlx5_core/mlx5_ib not loaded or failed to probe (firmware/driver mismatch)", "HCA fell off the PCIe bus or was not enumerated", "device renamed by udev rules or a different slot order"},
		Remedy:  []string{"lspci -d 15b3: and dmesg | grep mlx5 to see whether the device probed", "modprobe mlx5_ib; check the driver/firmware pair (mlxfwmanager)", "ibdoctor doctor for the kernel log and PCIe view"},
	},
	{
		ID: "port.down", Severity: finding.Critical, Area: "node", Step: finding.StepPort,
		Title:   "port is DOWN",
		Meaning: "The logical port state is DOWN (and the physical state is not Polling or Disabled, which have their own IDs). No traffic can pass.",
		Causes:  []string{causeCable, causePeer, "port administratively or physically shut"},
		Remedy:  []string{"ibstat <dev> <port> to confirm", remedyReseat, remedyReset, remedyResetRoCE},
	},
	{
		ID: "port.polling", Severity: finding.Critical, Area: "node", Step: finding.StepPort,
		Title:   "port is Polling: no link partner",
		Meaning: "The physical state is Polling: the port is looking for a peer and finds none. Almost always the cable, the transceiver or the peer port.",
		Causes:  []string{"cable unplugged, broken or not seated", "transceiver not supported or faulty", causePeer, "speed mismatch between the ends"},
		Remedy:  []string{remedyReseat, "check the switch port is enabled and configured for this speed", "mlxlink -d <pci> -m -c to read the module and the link's error counters"},
	},
	{
		ID: "port.disabled", Severity: finding.Critical, Area: "node", Step: finding.StepPort,
		Title:   "port is Disabled",
		Meaning: "The physical state is Disabled: the port was administratively disabled (on the HCA or by the SM), or a RoCE netdev is down.",
		Causes:  []string{"IB: port disabled by ibportstate or by the subnet manager", "RoCE: the netdev is administratively down", "firmware configuration (mlxconfig) disables the port"},
		Remedy:  []string{"IB: ibportstate -C <dev> -P <port> -D 0 <port> enable", "RoCE: ip link set <netdev> up", "mlxconfig -d <pci> query to check port configuration"},
	},
	{
		ID: "port.init_no_sm", Severity: finding.Critical, Area: "node", Step: finding.StepPort,
		Title:   "port stuck in INIT/ARMED: no subnet manager",
		Meaning: "The link is up physically but the logical state is INIT or ARMED: no subnet manager has configured the port (no LID, no routes).",
		Causes:  []string{"no subnet manager running on the fabric (opensm or the switch SM stopped)", "the SM cannot reach this port (partition, routing, or SM failure)", "SM has not finished a sweep after a change"},
		Remedy:  []string{"sminfo to check for a master SM", "start or fail over the subnet manager (systemctl status opensm)", "ibdoctor fabric check from a node on the subnet"},
	},
	{
		ID: "port.rate_below_expected", Severity: finding.Critical, Area: "node", Step: finding.StepPort,
		Title:   "port rate below the expected rate",
		Meaning: "The active rate is below the expectation (the baseline, or the rate of the other ports of the same HCA model on the same subnet: InfiniBand ports answering to another SM LID are cabled to another fabric, whose switches set the lane speed, so only their width is compared) and neither a narrower width nor a slower lane speed explains it; when one does, that is the one finding (port.width_degraded, port.speed_degraded) and the shortfall its evidence. More than 20% below is critical; any shortfall is a warning. With nothing to compare against, a ConnectX port ACTIVE below 10 Gb/s (2.5 = 1X SDR, 5 = 1X DDR) is a warning: no ConnectX link trains there when healthy, and an Ethernet port reads 2.5 when it negotiated 1 Gb/s or less.",
		Thresholds: []finding.Threshold{
			{Name: "rate_shortfall_critical", Default: limits.Pct(limits.NodeRateShortfallCritical), Meaning: "shortfall above which this finding, or the width or speed finding that explains the shortfall, is critical"},
		},
		Causes: []string{"link trained at a lower width or speed (see port.width_degraded / port.speed_degraded)", "driver/firmware mismatch (a 40 Gb/s rate on an HDR HCA)", causeCable},
		Remedy: []string{"ibstatus <dev>:<port> to see width and speed", remedyReseat, "align driver and firmware (mlxfwmanager --query)"},
	},
	{
		ID: "port.width_degraded", Severity: finding.Critical, Area: "node", Step: finding.StepPort,
		Title:   "link trained at a narrower width",
		Meaning: "The link runs on fewer lanes than expected (e.g. 2X instead of 4X): one or more lanes failed to train, halving bandwidth or worse.",
		Causes:  []string{"damaged lane in the cable or transceiver", "dirty or partially seated connector", "port fault on the HCA or switch"},
		Remedy:  []string{remedyReset, remedyResetRoCE, remedyReseat, remedyMlxlinkC},
	},
	{
		ID: "port.speed_degraded", Severity: finding.Critical, Area: "node", Step: finding.StepPort,
		Title:   "link trained at a slower lane speed",
		Meaning: "The lane speed is below the expected generation (e.g. HDR instead of NDR): auto-negotiation fell back, usually because of the cable or the peer.",
		Causes:  []string{"cable or transceiver not rated for the speed", "peer port configured or capped at a lower speed", "signal quality too low: negotiation fell back", "driver/firmware mismatch"},
		Remedy:  []string{"check the cable part number against the HCA speed", "check the switch port speed configuration", remedyReset, remedyResetRoCE},
	},
	{
		ID: "port.fec_off", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "no FEC active on a fast Ethernet link",
		Meaning: "ethtool --show-fec reports the active FEC encoding None or Off on a link of 100 Gb/s or more per port. IEEE 802.3 requires RS-FEC (Reed-Solomon, clause 91/134) on PAM4 links of 50 Gb/s per lane and faster: without it, bit errors the cable makes reach the frames (CRC drops, RoCE retransmits) instead of being corrected.",
		Causes:  []string{"auto FEC resolved to none with the link partner (a direct cable between two NICs, a switch port with FEC forced off)", "FEC forced off on one end (ethtool --set-fec or the switch's port configuration)", "a cable or transceiver whose EEPROM asks for no FEC"},
		Remedy:  []string{"ethtool --show-fec NETDEV on both ends, and the switch port's FEC setting", "set RS-FEC on both ends: ethtool --set-fec NETDEV encoding rs (and the same on the switch port)", "ethtool -S NETDEV | grep -i -e fec -e crc: corrected and uncorrectable blocks, CRC errors"},
	},
	{
		ID: "port.symbol_errors", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "symbol errors on the link",
		Meaning: "The PHY counts symbol errors (minor lane errors). A few are tolerated; a growing count is the early sign of an aging cable (act when they grow by an order of magnitude).",
		Thresholds: []finding.Threshold{
			{Name: "window", Default: limits.Dur(limits.AgentWindow), Meaning: "window over which the rate is averaged (config key of ibdoctor agent --config)"},
			{Name: "symbol_ber_max", Default: limits.Float(limits.AgentSymbolBERMax), Meaning: "IBTA bit-error-rate line for symbol errors / (active rate × seconds)"},
			{Name: "symbol_errors_per_min", Default: limits.Float(limits.SymbolError.PerMin), Meaning: "rate limit when the active rate is unknown"},
			{Name: "symbol_error_total", Default: limits.Uint(limits.SymbolError.Total), Meaning: "status, check and doctor: symbol_error since the counters were last cleared at or above this warns (fabric check's SymbolErrorCounter limit)"},
			{Name: "growth_factor", Default: limits.Float(limits.AgentGrowthFactor), Meaning: "rise versus the preceding window that counts as an order of magnitude"},
			{Name: "growth_min_events", Default: limits.Float(limits.AgentGrowthMinEvents), Meaning: "smallest rise in the window that growth may fire on"},
		},
		Causes: []string{causeCable, "marginal signal at high speed (long copper run)"},
		Remedy: []string{"watch the trend (ibdoctor agent) and compare with the link's traffic", remedyReseat, "IB: perfquery -x -C <dev> -P <port> <peer-lid> <peer-port> to read the switch end's counters too", "RoCE: " + remedyMlxlinkC},
	},
	{
		ID: "port.link_recovery", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "link error recovery events",
		Meaning: "The link retrained itself (link_error_recovery). Each retrain stalls traffic; repeated ones mean a marginal link.",
		Thresholds: []finding.Threshold{
			{Name: "window", Default: limits.Dur(limits.AgentWindow), Meaning: "window over which the rate is averaged (config key of ibdoctor agent --config)"},
			{Name: "link_recovery_per_min", Default: limits.Float(limits.LinkErrorRecovery.PerMin), Meaning: "retrains per minute (one per 5-minute window)"},
			{Name: "link_error_recovery_total", Default: limits.Uint(limits.LinkErrorRecovery.Total), Meaning: "status, check and doctor: link_error_recovery since the counters were last cleared at or above this warns (fabric check's LinkErrorRecoveryCounter limit)"},
			{Name: "growth_factor", Default: limits.Float(limits.AgentGrowthFactor), Meaning: "rise versus the preceding window that counts as an order of magnitude"},
			{Name: "growth_min_events", Default: limits.Float(limits.AgentGrowthMinEvents), Meaning: "smallest rise in the window that growth may fire on"},
		},
		Causes: []string{causeCable, "marginal signal quality"},
		Remedy: []string{remedyReseat, "replace the cable or transceiver if it keeps rising"},
	},
	{
		ID: "port.link_flapping", Severity: finding.Critical, Area: "node", Step: finding.StepPort,
		Title:   "link went down and came back",
		Meaning: "link_downed counts failed recoveries that took the link down. Every flap aborts in-flight RDMA operations and can time out NCCL.",
		Thresholds: []finding.Threshold{
			{Name: "flap_window", Default: limits.Dur(limits.AgentFlapWindow), Meaning: "how far back flaps are counted; a flap is one down transition (link_downed, a carrier loss, ACTIVE→not ACTIVE), the way back up is part of it"},
			{Name: "flap_warning", Default: limits.Uint(limits.AgentFlapWarning), Meaning: "flaps in flap_window for a warning"},
			{Name: "flap_critical", Default: limits.Uint(limits.AgentFlapCritical), Meaning: "flaps in flap_window for critical"},
			{Name: "link_downed_total", Default: limits.Uint(limits.LinkDowned.Total), Meaning: "status, check and doctor: link_downed since the counters were last cleared at or above this warns (fabric check's LinkDownedCounter limit)"},
		},
		Causes: []string{causeCable, "peer switch port resets", "power or thermal events in the transceiver"},
		Remedy: []string{"dmesg | grep -i 'link down' to correlate times", remedyReseat, "replace the cable or transceiver"},
	},
	{
		ID: "port.rcv_errors", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "packets received with errors",
		Meaning: "port_rcv_errors counts malformed or corrupted packets received: bit errors on the link or a faulty peer.",
		Thresholds: []finding.Threshold{
			{Name: "window", Default: limits.Dur(limits.AgentWindow), Meaning: "window over which the rate is averaged (config key of ibdoctor agent --config)"},
			{Name: "rcv_errors_per_min", Default: limits.Float(limits.RcvErrors.PerMin), Meaning: "received bad packets per minute"},
			{Name: "port_rcv_errors_total", Default: limits.Uint(limits.RcvErrors.Total), Meaning: "status, check and doctor: port_rcv_errors since the counters were last cleared at or above this warns (fabric check's PortRcvErrors limit)"},
			{Name: "growth_factor", Default: limits.Float(limits.AgentGrowthFactor), Meaning: "rise versus the preceding window that counts as an order of magnitude"},
			{Name: "growth_min_events", Default: limits.Float(limits.AgentGrowthMinEvents), Meaning: "smallest rise in the window that growth may fire on"},
		},
		Causes: []string{causeCable, "faulty peer port"},
		Remedy: []string{remedyReseat, "IB: perfquery -x -C <dev> -P <port> <peer-lid> <peer-port> to check the switch end's symbol and xmit counters", "RoCE: " + remedyMlxlinkC},
	},
	{
		ID: "port.xmit_discards", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "outbound packets discarded",
		Meaning: "port_xmit_discards counts packets the port dropped on send: the link went down, or congestion held packets past their lifetime.",
		Thresholds: []finding.Threshold{
			{Name: "window", Default: limits.Dur(limits.AgentWindow), Meaning: "window over which the rate is averaged (config key of ibdoctor agent --config)"},
			{Name: "xmit_discards_per_min", Default: limits.Float(limits.XmitDiscards.PerMin), Meaning: "discarded outbound packets per minute"},
			{Name: "port_xmit_discards_total", Default: limits.Uint(limits.XmitDiscards.Total), Meaning: "status, check and doctor: port_xmit_discards since the counters were last cleared at or above this warns (fabric check's PortXmitDiscards limit)"},
			{Name: "growth_factor", Default: limits.Float(limits.AgentGrowthFactor), Meaning: "rise versus the preceding window that counts as an order of magnitude"},
			{Name: "growth_min_events", Default: limits.Float(limits.AgentGrowthMinEvents), Meaning: "smallest rise in the window that growth may fire on"},
		},
		Causes: []string{"link flaps", "severe congestion (head-of-line blocking, credit starvation)", "routing sends traffic to a dead end"},
		Remedy: []string{"correlate with port.link_flapping and port.congestion", "IB: ibdoctor fabric check for routing and hot spots", "RoCE: check PFC and buffers on the switch port (and mlnx_qos -i <netdev>)"},
	},
	{
		ID: "port.congestion", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "port waits for credits (congestion)",
		Meaning: "port_xmit_wait counts ticks where the port had data but no credits: congestion downstream. Bandwidth that swings is usually this, not a broken link.",
		Thresholds: []finding.Threshold{
			{Name: "window", Default: limits.Dur(limits.AgentWindow), Meaning: "window over which the rate is averaged (config key of ibdoctor agent --config)"},
			{Name: "congestion_fraction", Default: limits.Share(limits.AgentCongestionFraction), Meaning: "share of time port_xmit_wait reports waiting for credits"},
			{Name: "xmit_wait_tick", Default: limits.Dur(limits.AgentXmitWaitTick), Meaning: "duration of one port_xmit_wait tick: implementation-defined, an assumption; set it for your HCA"},
		},
		Causes: []string{"fabric congestion from other jobs or incast", "slow receiver", "unbalanced routing (hot links)"},
		Remedy: []string{"IB: ibdoctor fabric check for route imbalance", "IB: separate traffic classes with SLs; tune congestion control", "RoCE: check ECN/DCQCN and PFC on the path (mlnx_qos -i <netdev>)"},
	},
	{
		ID: "port.counter_saturated", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "error counter stuck at its maximum",
		Meaning: "An IBTA error counter saturates instead of wrapping (symbol_error at 65535, link_downed at 255). While saturated its true value and rate are unknown: new errors are invisible.",
		Causes:  []string{"errors accumulated since the last reset (possibly long ago)", "an active fault still producing errors"},
		Remedy:  []string{"IB: perfquery -R -C <dev> -P <port> to reset this port's error counters (without -C and -P it resets the first HCA's port), then watch them grow", "RoCE: the counters reset only when the driver reloads; watch their rate instead (ibdoctor agent)", "treat the port as suspect until the counter is reset and stays low"},
	},
	{
		ID: "port.fw_mismatch", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "firmware differs from the expectation",
		Meaning: "The HCA firmware version differs from the baseline or from other HCAs of the same model on the node. Driver/firmware pairs that do not match can train links at low rates.",
		Causes:  []string{"partial firmware upgrade", "HCA replaced with one from another batch"},
		Remedy:  []string{"mlxfwmanager --query", "flash the release matching the driver (mlxfwmanager -u)"},
	},
	{
		ID: "port.pkey_none", Severity: finding.Critical, Area: "node", Step: finding.StepPort,
		Title:   "active IB port has an empty partition key table",
		Meaning: "Every entry of ports/<n>/pkeys/ reads 0x0000 on an ACTIVE InfiniBand port. Every IB packet carries a P_Key and the receiver drops packets whose key is not in its table (IBTA vol. 1, 10.9), so the port can exchange nothing with any peer even though the link is up.",
		Causes:  []string{"the subnet manager's partition configuration leaves this port's GUID out of every partition (opensm partitions.conf)", "the SM has not finished programming the port after a change"},
		Remedy:  []string{"cat /sys/class/infiniband/<dev>/ports/<n>/pkeys/0 (expect 0xffff or 0x7fff)", "add the port GUID to a partition in the SM configuration (opensm: partitions.conf, then a resweep: kill -HUP $(pidof opensm))", "smpquery pkeys <lid> <port> from the SM node to see the table it programmed"},
	},
	{
		ID: "port.pkey_default_missing", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "IB port is in no default partition",
		Meaning: "The port's P_Key table holds keys, but neither the default partition's full key 0xffff nor its limited key 0x7fff. Subnet administration traffic (path record queries of rdma_cm and librdmacm-based tools, multicast joins such as IPoIB's broadcast group) uses the default partition: the kernel looks that key up and, not finding it, logs \"Couldn't find index for default PKey\" and sends the queries with the key in entry 0, which the subnet manager's port drops unless it is in that partition too. Connections set up through rdma_cm then fail to resolve routes while verbs traffic with known LIDs still works.",
		Causes:  []string{"the SM's partition configuration has no Default partition, or leaves this port out of it (opensm partitions.conf: Default=0x7fff, ipoib : ALL=full; is the usual first line)"},
		Remedy:  []string{"cat /sys/class/infiniband/<dev>/ports/<n>/pkeys/* to list the keys", "add the default partition for every port in the SM configuration (opensm partitions.conf: Default=0x7fff, ipoib : ALL=full;), then a resweep: kill -HUP $(pidof opensm)", "smpquery pkeys <lid> <port> to confirm what the SM programmed"},
	},
	{
		ID: "port.pkey_limited_only", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "IB port is only a limited member of its partitions",
		Meaning: "No key in the port's P_Key table has the full-membership bit (bit 15) set: the default partition shows as 0x7fff instead of 0xffff. IBTA partition checking accepts a packet when the 15-bit keys match and at least one of the two ends is a full member, so a limited member can talk to full members (the SM, often storage) but not to other limited members: traffic between two nodes that are both limited fails with no error on the link.",
		Causes:  []string{"the SM configuration makes this port a limited member of the default partition (opensm partitions.conf: Default=0x7fff without ALL=full), as multi-tenant setups do, without granting it a full-membership partition for job traffic", "the port GUID is missing from the partition meant for job traffic"},
		Remedy:  []string{"cat /sys/class/infiniband/<dev>/ports/<n>/pkeys/* to list the keys", "make the port a full member of the partition its jobs use (opensm partitions.conf: <name>=<pkey>, ipoib : <guid>=full or ALL=full), then point NCCL at it with NCCL_IB_PKEY=<index>", "smpquery pkeys <lid> <port> to confirm what the SM programmed"},
	},
	{
		ID: "port.ipoib_mtu_mismatch", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "IPoIB interfaces of the node run different MTUs",
		Meaning: "The IPoIB interfaces (sys/class/net/<ib>/mtu) of the node's InfiniBand ports do not share one MTU. In datagram mode the IPoIB MTU is the port's IB MTU minus the 4-byte IPoIB header (4092 on a 4096-byte fabric MTU, 2044 on 2048); connected mode allows up to 65520. A port that differs from its siblings either has a smaller IB MTU (its partition or switch port configured for 2K) or runs another IPoIB mode; traffic over IPoIB (NCCL bootstrap, storage) then fragments or is dropped at the smaller size. sysfs does not show the active IB MTU itself: ibv_devinfo's active_mtu does.",
		Causes:  []string{"the partition's MTU in the SM configuration (opensm partitions.conf mtu=) differs for this port", "IPoIB mode set differently (echo connected > /sys/class/net/<ib>/mode) or an MTU set by hand or by the network configuration", "switch port limited to a smaller MTU"},
		Remedy:  []string{"ibv_devinfo -d <dev> | grep -E 'max_mtu|active_mtu' (4096 expected on IB)", "cat /sys/class/net/<ib>/mode and set the same mode and MTU on every IPoIB interface (ip link set <ib> mtu <n>, or the network configuration)", "check the partition MTU in the SM configuration"},
	},
	{
		ID: "port.ib_mtu_reduced", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "InfiniBand port runs a smaller MTU than it supports",
		Meaning: "ibv_devinfo shows active_mtu below max_mtu on an ACTIVE InfiniBand port. The active MTU is what the link runs with the port at its other end: the subnet manager sets each end's neighbour MTU to the smaller of the two ends' capabilities. RDMA messages are cut into packets of that size, so 2048 where 4096 is possible doubles the packets (and headers) per message, and every connection through this port takes the smaller path MTU. sysfs has no MTU attribute for an IB port: only pasted ibv_devinfo output is judged.",
		Causes:  []string{"the switch port or gateway at the other end supports or is configured for a smaller MTU", "the port was brought up while the subnet manager ran with a smaller MTU for the link"},
		Remedy:  []string{"ibv_devinfo -d <dev> -i <port> | grep -E 'max_mtu|active_mtu' to confirm", "iblinkinfo -C <dev> -P <port> to find the switch port at the other end, then smpquery portinfo <peer-lid> <peer-port> for its MTUCap and NeighborMTU", "raise the switch port's MTU to 4096 (or replace a 2K-only gateway), then reset the link so the subnet manager sets the MTU again"},
	},
	{
		ID: "port.ib_mtu_mismatch", Severity: finding.Warning, Area: "node", Step: finding.StepPort,
		Title:   "active InfiniBand ports of a node run different MTUs",
		Meaning: "The ACTIVE InfiniBand ports of one ibv_devinfo paste do not share one active_mtu, while each runs what it supports. A connection takes the smallest MTU along its path, so jobs spread over the node's ports see different packet sizes and bandwidth per rail; the odd port is usually cabled to a switch or gateway with a smaller MTU, or is an HCA of another generation.",
		Causes:  []string{"one port cabled to a switch or gateway with a smaller MTU capability", "HCAs of different generations in one node"},
		Remedy:  []string{"ibv_devinfo | grep -E 'hca_id|port:|max_mtu|active_mtu' to list every port's MTU", "iblinkinfo -C <dev> -P <port> to find the switch port at the other end of the odd port and compare it with its siblings' switches"},
	},
	{
		ID: "host.driver_mismatch", Severity: finding.Warning, Area: "host", Step: finding.StepPort,
		Title:   "mlx5 driver differs from the expectation",
		Meaning: "The mlx5_core module's version (sys/module/mlx5_core/version, set by MLNX_OFED/DOCA drivers; else its srcversion, a checksum of the sources) differs from the expectation's driver_version. Nodes of one job should run one driver: a different driver changes firmware compatibility, counters and offloads, and a driver that does not match the firmware can train links at low rates.",
		Causes:  []string{"partial driver upgrade across the fleet", "kernel upgraded and the inbox mlx5_core loaded instead of the out-of-tree one (DKMS build failed)", "node reimaged from another image"},
		Remedy:  []string{"modinfo mlx5_core | grep -E '^(version|srcversion)'; ofed_info -s", "install the driver release of the baseline (and rebuild DKMS modules for the running kernel), then reload the driver or reboot", "if the new version is intended, rewrite the expectation: ibdoctor baseline"},
	},
	{
		ID: "host.driver_outlier", Severity: finding.Warning, Area: "host", Step: finding.StepPort,
		Title:   "mlx5 driver differs from the fleet's majority",
		Meaning: "Among the nodes judged together (ibdoctor check --fleet, or a hub over its agents), more than half run one mlx5_core version (sys/module/mlx5_core/version, else its srcversion) and this node runs another. Nodes of one job should run one driver: a different driver changes firmware compatibility, counters and offloads. Without a majority (a fleet halfway through an upgrade) nothing is judged.",
		Causes:  []string{"the node missed a driver upgrade, or was reimaged from an older image", "kernel upgraded and the inbox mlx5_core loaded instead of the out-of-tree one (DKMS build failed)"},
		Remedy:  []string{"modinfo mlx5_core | grep -E '^(version|srcversion)'; ofed_info -s", "install the driver release the majority runs (and rebuild DKMS modules for the running kernel), then reload the driver or reboot"},
	},
	{
		ID: "host.fw_outlier", Severity: finding.Warning, Area: "host", Step: finding.StepPort,
		Title:   "HCA firmware differs from the fleet's majority",
		Meaning: "Among the nodes judged together, more than half of those with this HCA model run one firmware version (fw_ver) and this node's HCAs of the model run another. Firmware is compared per model (hca_type): a ConnectX-7 and a BlueField-3 run different lines. Driver/firmware pairs that do not match can train links at low rates or miss fixes the rest of the fleet has.",
		Causes:  []string{"the node missed a firmware update (mlxfwmanager run before it joined, or the update failed)", "HCAs replaced from another batch"},
		Remedy:  []string{"mlxfwmanager --query to list each HCA's firmware and PSID", "flash the version the majority runs (mlxfwmanager -u with that release's image), then reset the HCAs (mlxfwreset) or reboot"},
	},
	{
		ID: "pcie.link_degraded", Severity: finding.Critical, Area: "pcie", Step: finding.StepPCIe,
		Title:   "PCIe link below its maximum",
		Meaning: "The PCIe link of the device trained below its capability (x16 became x8, Gen5 became Gen3). The HCA or GPU cannot reach line rate through it.",
		Causes:  []string{"card not fully seated or slot damaged", "riser or retimer fault", "BIOS slot configuration (bifurcation, forced generation)", "signal integrity (AER correctable errors)"},
		Remedy:  []string{"lspci -vv -s <pci> | grep -E 'LnkCap|LnkSta'", "reseat the card; move it to another slot", "check BIOS PCIe settings"},
	},
}

// rdmaMetas are the RDMA transport (hw_counters) findings.
var rdmaMetas = []finding.Meta{
	{
		ID: "rdma.out_of_buffer", Severity: finding.Warning, Area: "rdma", Step: finding.StepPort,
		Title:   "receive queue out of buffers",
		Meaning: "hw_counters/out_of_buffer: packets dropped because the responder had no posted receive WQE. The application does not post receives fast enough.",
		Thresholds: []finding.Threshold{
			{Name: "window", Default: limits.Dur(limits.AgentWindow), Meaning: "window over which the rate is averaged (config key of ibdoctor agent --config)"},
			{Name: "out_of_buffer_per_min", Default: limits.Float(limits.AgentOutOfBufferPerMin), Meaning: "drops for lack of a receive WQE per minute"},
		},
		Causes: []string{"application posts too few receives (small RQ)", "receiver CPU or GPU starved", "more QPs than the receiver can serve"},
		Remedy: []string{"increase receive queue depth in the application (NCCL_IB_*), check CPU affinity of the receiver"},
	},
	{
		ID: "rdma.retransmits", Severity: finding.Warning, Area: "rdma", Step: finding.StepPort,
		Title:   "RDMA retransmissions",
		Meaning: "hw_counters local_ack_timeout_err, packet_seq_err, implied_nak_seq_err or rnr_nak_retry_err rise: packets were lost or the peer did not answer in time — on a lossless fabric that means a fault.",
		Thresholds: []finding.Threshold{
			{Name: "window", Default: limits.Dur(limits.AgentWindow), Meaning: "window over which the rate is averaged (config key of ibdoctor agent --config)"},
			{Name: "retransmits_per_min", Default: limits.Float(limits.AgentRetransmitsPerMin), Meaning: "local_ack_timeout_err + packet_seq_err + implied_nak_seq_err + rnr_nak_retry_err per minute"},
		},
		Causes: []string{"packet loss on the path (bit errors, discards)", "peer stalled or dead", "RoCE: PFC not configured, so the fabric drops"},
		Remedy: []string{"check port error counters on both ends and along the path", "RoCE: verify PFC/ECN on the switch ports"},
	},
	{
		ID: "rdma.cnp_ignored", Severity: finding.Warning, Area: "rdma", Step: finding.StepPort,
		Title:   "congestion notifications ignored",
		Meaning: "hw_counters/rp_cnp_ignored rises: CNPs arrive but the reaction point does not throttle. RoCE congestion control (DCQCN) is disabled for the traffic class.",
		Thresholds: []finding.Threshold{
			{Name: "window", Default: limits.Dur(limits.AgentWindow), Meaning: "window over which the rate is averaged (config key of ibdoctor agent --config)"},
			{Name: "cnp_ignored_per_min", Default: limits.Float(limits.AgentCNPIgnoredPerMin), Meaning: "rp_cnp_ignored per minute"},
		},
		Causes: []string{"DCQCN disabled on the priority (/sys/class/net/<if>/ecn/roce_rp/enable/<prio>)"},
		Remedy: []string{"enable ECN reaction point for the RoCE priority; check mlnx_qos and the switch ECN config"},
	},
}
