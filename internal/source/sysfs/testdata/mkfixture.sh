#!/usr/bin/env bash
# Regenerates testdata/node1: a small sysfs tree in the kernel's exact
# formats (see README.md for sources). Run from this directory; review the
# diff, then commit the tree (git keeps the relative symlinks).
set -euo pipefail
R=node1
rm -rf "$R"
w() { mkdir -p "$R/$(dirname "$1")"; printf '%s\n' "$2" >"$R/$1"; }
l() { mkdir -p "$R/$(dirname "$1")"; ln -s "$2" "$R/$1"; }

w proc/sys/kernel/hostname gpu-node-017
w proc/sys/kernel/osrelease 6.8.0-45-generic
mkdir -p "$R/sys/bus/pci/drivers/"{mlx5_core,nvidia,pcieport,virtio-pci} "$R/sys/bus/pci/devices" "$R/sys/class/net" "$R/sys/class/infiniband"

# pcidev DIR VENDOR DEVICE CLASS NUMA CUR_SPEED CUR_WIDTH MAX_SPEED MAX_WIDTH DRIVER
pcidev() {
	local d=sys/devices/$1 a; a=$(basename "$1")
	w "$d/vendor" "$2"; w "$d/device" "$3"; w "$d/class" "$4"; w "$d/numa_node" "$5"
	w "$d/current_link_speed" "$6"; w "$d/current_link_width" "$7"
	w "$d/max_link_speed" "$8"; w "$d/max_link_width" "$9"
	w "$d/subsystem_vendor" "$2"; w "$d/revision" 0x00
	[ -n "${10}" ] && l "$d/driver" "$(realpath -m --relative-to="$R/$d" "$R/sys/bus/pci/drivers/${10}")"
	l "$d/subsystem" "$(realpath -m --relative-to="$R/$d" "$R/sys/bus/pci")"
	l "sys/bus/pci/devices/$a" "../../../devices/$1"
}

# Socket 0: root port -> PCIe switch (up, 2 down) -> ConnectX-7 (2 functions) and an H100.
RP0=pci0000:3a/0000:3a:00.0
SWU=$RP0/0000:3b:00.0
pcidev $RP0 0x8086 0x347a 0x060400 0 "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16 pcieport
pcidev $SWU 0x1000 0xc030 0x060400 0 "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16 pcieport
pcidev $SWU/0000:3c:00.0 0x1000 0xc030 0x060400 0 "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16 pcieport
pcidev $SWU/0000:3c:01.0 0x1000 0xc030 0x060400 0 "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16 pcieport
NIC0=$SWU/0000:3c:00.0/0000:3d:00.0
NIC2=$SWU/0000:3c:00.0/0000:3d:00.1
GPU=$SWU/0000:3c:01.0/0000:3e:00.0
pcidev $NIC0 0x15b3 0x1021 0x020700 0 "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16 mlx5_core
# The second function trained at x8 (downtrained) and has AER errors.
pcidev $NIC2 0x15b3 0x1021 0x020700 0 "16.0 GT/s PCIe" 8 "32.0 GT/s PCIe" 16 mlx5_core
pcidev $GPU 0x10de 0x2330 0x030200 0 "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16 nvidia
# AER, current short names (drivers/pci/pcie/aer.c aer_correctable_error_string).
printf 'RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 0\n' >"$R/sys/devices/$RP0/aer_dev_correctable"
printf 'Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nCmpltAbrt 0\nUnxCmplt 0\nRxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 0\nACSViol 0\nUncorrIntErr 0\nBlockedTLP 0\nAtomicOpBlocked 0\nTLPBlockedErr 0\nPoisonTLPBlocked 0\nTOTAL_ERR_NONFATAL 0\n' >"$R/sys/devices/$RP0/aer_dev_nonfatal"
printf 'RxErr 0\nBadTLP 12\nBadDLLP 3\nRollover 0\nTimeout 1\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 16\n' >"$R/sys/devices/$NIC0/aer_dev_correctable"
# Long multi-word names of 4.19–5.x kernels (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats).
printf 'Receiver Error 2\nBad TLP 0\nBad DLLP 0\nRELAY_NUM Rollover 0\nReplay Timer Timeout 0\nAdvisory Non-Fatal 0\nCorrected Internal Error 0\nHeader Log Overflow 0\nTOTAL_ERR_COR 2\n' >"$R/sys/devices/$NIC2/aer_dev_correctable"
printf 'Undefined 0\nData Link Protocol 0\nSurprise Down Error 0\nPoisoned TLP 1\nFlow Control Protocol 0\nCompletion Timeout 0\nCompleter Abort 0\nUnexpected Completion 0\nReceiver Overflow 0\nMalformed TLP 0\nECRC 0\nUnsupported Request 0\nACS Violation 0\nUncorrectable Internal Error 0\nMC Blocked TLP 0\nAtomicOp Egress Blocked 0\nTLP Prefix Blocked Error 0\nTOTAL_ERR_NONFATAL 1\n' >"$R/sys/devices/$NIC2/aer_dev_nonfatal"

# Socket 1: root port -> ConnectX-6 Dx (RoCE).
RP1=pci0000:97/0000:97:02.0
NIC1=$RP1/0000:98:00.0
pcidev $RP1 0x8086 0x347c 0x060400 1 "16.0 GT/s PCIe" 16 "16.0 GT/s PCIe" 16 pcieport
pcidev $NIC1 0x15b3 0x101d 0x020000 1 "16.0 GT/s PCIe" 16 "16.0 GT/s PCIe" 16 mlx5_core
# A virtio management NIC: the netdev's device is virtio0 below the PCI function.
pcidev pci0000:00/0000:00:03.0 0x1af4 0x1041 0x020000 -1 Unknown 0 Unknown 0 virtio-pci

# ibdev DEV FUNC-DIR: the class link and device link exactly as the kernel lays them out.
ibdev() {
	local d=sys/devices/$2/infiniband/$1
	l "sys/class/infiniband/$1" "../../devices/$2/infiniband/$1"
	l "$d/device" "../../../$(basename "$2")"
	w "$d/node_type" "1: CA"
	w "$d/fw_ver" "$3"; w "$d/hca_type" "$4"; w "$d/hw_rev" 0; w "$d/board_id" "$5"
	w "$d/node_guid" "$6"; w "$d/sys_image_guid" "$6"; w "$d/node_desc" "gpu-node-017 $1"
}
# port DEV N LINKLAYER STATE PHYS RATE LID SMLID
port() {
	local d=sys/class/infiniband/$1/ports/$2
	w "$d/link_layer" "$3"; w "$d/state" "$4"; w "$d/phys_state" "$5"; w "$d/rate" "$6"
	w "$d/lid" "$7"; w "$d/sm_lid" "$8"; w "$d/sm_sl" 0; w "$d/lid_mask_count" 0
}
pmacounters() { # DEV N symbol_error link_downed xmit_data rcv_data
	local d=sys/class/infiniband/$1/ports/$2/counters
	w "$d/symbol_error" "$3"; w "$d/link_error_recovery" 0; w "$d/link_downed" "$4"
	w "$d/port_rcv_errors" 0; w "$d/port_rcv_remote_physical_errors" 0; w "$d/port_rcv_switch_relay_errors" 0
	w "$d/port_xmit_discards" 0; w "$d/port_xmit_constraint_errors" 0; w "$d/port_rcv_constraint_errors" 0
	w "$d/local_link_integrity_errors" 0; w "$d/excessive_buffer_overrun_errors" 0; w "$d/VL15_dropped" 0
	w "$d/port_xmit_data" "$5"; w "$d/port_rcv_data" "$6"; w "$d/port_xmit_packets" 2208437791; w "$d/port_rcv_packets" 2231170391
	w "$d/port_xmit_wait" 1093498; w "$d/unicast_xmit_packets" 2208437791; w "$d/unicast_rcv_packets" 2231170391
	w "$d/multicast_xmit_packets" 0; w "$d/multicast_rcv_packets" 0
}
hwcounters() { # DIR
	w "$1/out_of_buffer" 0; w "$1/out_of_sequence" 0; w "$1/packet_seq_err" 0; w "$1/local_ack_timeout_err" 3
	w "$1/rnr_nak_retry_err" 0; w "$1/duplicate_request" 0; w "$1/implied_nak_seq_err" 0
	w "$1/rx_write_requests" 4096; w "$1/rx_read_requests" 17; w "$1/rx_atomic_requests" 0
	w "$1/lifespan" 10
}

ibdev mlx5_0 $NIC0 28.39.2048 MT4129 MT_0000000838 a088:c203:0045:1a2c
port mlx5_0 1 InfiniBand "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" 0x1a 0x1
w sys/class/infiniband/mlx5_0/ports/1/cap_mask 0xa651e848
pmacounters mlx5_0 1 0 0 46317204848127 45129806627520
hwcounters sys/class/infiniband/mlx5_0/ports/1/hw_counters
w sys/class/infiniband/mlx5_0/ports/1/gids/0 fe80:0000:0000:0000:a088:c203:0045:1a2c
w sys/class/infiniband/mlx5_0/ports/1/gids/1 0000:0000:0000:0000:0000:0000:0000:0000
w sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/0 "IB/RoCE v1"
w sys/class/infiniband/mlx5_0/ports/1/pkeys/0 0xffff

# mlx5_2: second function, malformed rate and an unreadable counter (a
# directory where the file belongs: read fails with EISDIR even as root).
ibdev mlx5_2 $NIC2 28.39.2048 MT4129 MT_0000000838 a088:c203:0045:1a2d
port mlx5_2 1 InfiniBand "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X" 0x1b 0x1
w sys/class/infiniband/mlx5_2/ports/1/cap_mask 0xa651e848
pmacounters mlx5_2 1 65535 255 1024 2048
rm "$R/sys/devices/$NIC2/infiniband/mlx5_2/ports/1/counters/port_rcv_errors"
w sys/class/infiniband/mlx5_2/ports/1/counters/port_rcv_errors/README "stands in for an attribute whose read fails"
w sys/class/infiniband/mlx5_2/ports/1/gids/0 fe80:0000:0000:0000:a088:c203:0045:1a2d

# mlx5_1: RoCE on ConnectX-6 Dx, netdev ens2f0np0, IPv4 10.0.0.5.
ibdev mlx5_1 $NIC1 22.41.1000 MT4125 MT_0000000359 0c42:a103:00a1:b2c4
port mlx5_1 1 Ethernet "4: ACTIVE" "5: LinkUp" "100 Gb/sec (4X EDR)" 0x0 0x0
w sys/class/infiniband/mlx5_1/ports/1/cap_mask 0x00010000
w sys/class/infiniband/mlx5_1/ports/1/counters/port_xmit_data 0
hwcounters sys/class/infiniband/mlx5_1/ports/1/hw_counters
w sys/class/infiniband/mlx5_1/ports/1/hw_counters/rp_cnp_handled 4821
w sys/class/infiniband/mlx5_1/ports/1/hw_counters/np_cnp_sent 0
w sys/class/infiniband/mlx5_1/ports/1/hw_counters/rx_icrc_encapsulated 0
hwcounters sys/class/infiniband/mlx5_1/hw_counters
i=0
for g in fe80:0000:0000:0000:0e42:a1ff:fea1:b2c4 fe80:0000:0000:0000:0e42:a1ff:fea1:b2c4 0000:0000:0000:0000:0000:ffff:0a00:0005 0000:0000:0000:0000:0000:ffff:0a00:0005; do
	w sys/class/infiniband/mlx5_1/ports/1/gids/$i $g
	if [ $((i % 2)) = 0 ]; then t="IB/RoCE v1"; else t="RoCE v2"; fi
	w sys/class/infiniband/mlx5_1/ports/1/gid_attrs/types/$i "$t"
	w sys/class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/$i ens2f0np0
	i=$((i + 1))
done
w sys/class/infiniband/mlx5_1/ports/1/gids/4 0000:0000:0000:0000:0000:0000:0000:0000

# netdev NAME DEVDIR TYPE OPER CARRIER SPEED MTU ADDR DEVPORT
netdev() {
	local d=sys/devices/$2/net/$1
	l "sys/class/net/$1" "../../devices/$2/net/$1"
	l "$d/device" "../../../$(basename "$2")"
	w "$d/type" "$3"; w "$d/operstate" "$4"; w "$d/mtu" "$7"; w "$d/address" "$8"
	w "$d/carrier_changes" 2; w "$d/dev_port" "$9"; w "$d/dev_id" 0x0
	[ -n "$5" ] && w "$d/carrier" "$5"
	[ -n "$6" ] && w "$d/speed" "$6"
	return 0
}
netdev ibp61s0 $NIC0 32 up 1 400000 2044 00:00:10:49:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:45:1a:2c 0
netdev ibp61s1 $NIC2 32 up 1 400000 2044 00:00:10:49:fe:80:00:00:00:00:00:00:a0:88:c2:03:00:45:1a:2d 0
netdev ens2f0np0 $NIC1 1 up 1 100000 9000 0c:42:a1:a1:b2:c4 0
netdev eth0 pci0000:00/0000:00:03.0/virtio0 1 down "" "" 1500 52:54:00:12:34:56 0
# Loopback: no device link, named by no port -> not part of the snapshot.
w sys/devices/virtual/net/lo/type 772
l sys/class/net/lo ../../devices/virtual/net/lo
