package host

import (
	"bytes"
	hostmodel "github.com/ibdoctor/ibdoctor/internal/model/host"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
	"github.com/ibdoctor/ibdoctor/internal/rules/topo"
)

// TestAnalyzeCorpora runs the standalone analysis over the real-format
// samples of the parser packages: each file with the findings it must
// produce (ID/severity, in report order) and, by omission, must not.
func TestAnalyzeCorpora(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		// Two detail lines and five received lines (two "Multiple"):
		// seven correctable errors of one root port within 3 ms, a flood.
		{"../../parse/kmsg/testdata/dmesg-aer-old.txt", []string{"pcie.aer_errors/warning"}},
		{"../../parse/kmsg/testdata/journal-aer-localized.txt", []string{"pcie.aer_errors/info"}}, // two corrected reports: said, nothing to act on
		{"../../parse/kmsg/testdata/dmesg-fallen-off-multiline.txt", []string{"gpu.fallen_off_bus/critical"}},
		{"../../parse/kmsg/testdata/dmesg-old-fallen-off.txt", []string{"gpu.fallen_off_bus/critical"}},
		// INIT then ACTIVE: no flap.
		{"../../parse/kmsg/testdata/journal-mlx5-ib-port.txt", nil},
		// "Cable plugged" at probe time is not an event worth reporting.
		{"../../parse/kmsg/testdata/dmesg-mlx5-probe.txt", nil},
		{"../../parse/kmsg/testdata/dmesg-gpu-node.txt", []string{
			"pcie.aer_errors/critical", // non-fatal CmpltTO on 0000:3b:00.0 (runbook step 2)
			"gpu.xid/critical",         // Xid 79 + NVRM line, once
			"gpu.xid/critical",         // Xid 48 ×2
			"kmsg.mlx5_health/critical",
			"kmsg.module_event/critical", // High Temperature
			"kmsg.module_event/critical", // Power budget exceeded
			"gpu.xid/warning",            // Xid 31 MMU fault (MIG): the process was killed
			"kmsg.link_flap/warning",     // 3 downs
			"kmsg.module_event/warning",  // Cable unplugged
			"gpu.xid/info",               // Xid 63 row remap
		}},
		{"../../parse/kmsg/testdata/dmesg-T-flaps.txt", []string{"kmsg.link_flap/warning"}},
		{"../../parse/kmsg/testdata/dmesg-aer-firmware-first.txt", []string{"pcie.aer_errors/critical"}},
		{"../../parse/kmsg/testdata/kmsg-records.txt", []string{"gpu.xid/critical", "pcie.aer_errors/info"}}, // Xid 79; one corrected report, said
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			b, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var l *kmsg.Log
			if strings.Contains(tt.file, "kmsg-") {
				l, err = kmsg.ParseKmsg(bytes.NewReader(b), tt.file)
			} else {
				l, err = kmsg.ParseText(bytes.NewReader(b), tt.file, kmsg.TextOptions{Year: 2024})
			}
			if err != nil {
				t.Fatal(err)
			}
			if !kmsg.Detect(string(b)) {
				t.Errorf("kmsg.Detect does not recognise %s", tt.file)
			}
			fs := CheckPastedKernelLog(l, l.Records[0].Time, 0)
			if got := ids(fs); !slices.Equal(got, tt.want) {
				for _, f := range fs {
					t.Logf("%s %s: %s", f.ID, f.Severity, f.Summary)
				}
				t.Fatalf("findings = %v, want %v", got, tt.want)
			}
			for _, f := range fs {
				if f.Subject.File != tt.file || f.Subject.PCI == "" {
					t.Errorf("%s subject %+v lacks file or PCI", f.ID, f.Subject)
				}
			}
		})
	}
}

// TestAnalyzeRealWorldKernelLogs judges kernel logs people pasted in
// public threads (the analyze corpus), and small logs for each variant.
func TestAnalyzeRealWorldKernelLogs(t *testing.T) {
	rw := "../../diagnose/analyze/testdata/realworld/"
	tests := []struct {
		name, file, text string
		want             []string
	}{
		// CREATE_TIS failed with a syndrome, then the probe of the
		// function's Ethernet device failed: the function is unusable.
		{name: "vf probe", file: rw + "dmesg-linux-rdma-schnelle-vf-probe.txt", want: []string{"kmsg.mlx5_cmd_failed/critical"}},
		{name: "handle_hca_cap", file: rw + "dmesg-tinycore-redpill-9.txt", want: []string{"kmsg.mlx5_health/critical"}},
		// "Link up" four times, the down lines filtered out by grep.
		{name: "grep Link up", file: rw + "journalctl-cubecos-733.txt", want: []string{"kmsg.link_flap/warning"}},
		// One module inserted, each port up once.
		{name: "cable plugged", file: rw + "dmesg-jishuzhan-module-plugged.txt"},
		// One corrected replay-timer timeout on a chipset port: said,
		// nothing to act on.
		{name: "one corrected", file: rw + "journalctl-balena-intel-304.txt", want: []string{"pcie.aer_errors/info"}},
		{name: "xid 119", file: rw + "dmesg-gpud-testdata-xid119.txt", want: []string{"gpu.xid/critical"}},
		{name: "command failure alone", text: "[ 1.0] mlx5_core 0000:6f:08.2: mlx5_cmd_out_err:808:(pid 650): CREATE_TIS(0x912) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x595b5d), err(-22)\n",
			want: []string{"kmsg.mlx5_cmd_failed/warning"}},
		{name: "bandwidth line", text: "[ 1.0] mlx5_core 0000:3b:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:3a:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)\n",
			want: []string{"pcie.link_degraded/critical"}},
		{name: "reltime flaps", text: "[Feb23 16:24] mlx5_core 0000:3b:00.0 ens1f0np0: Link down\n[  +0.5] mlx5_core 0000:3b:00.0 ens1f0np0: Link up\n[  +2.0] mlx5_core 0000:3b:00.0 ens1f0np0: Link down\n[  +0.5] mlx5_core 0000:3b:00.0 ens1f0np0: Link up\n",
			want: []string{"kmsg.link_flap/warning"}},
		{name: "german journal flood of corrected errors", text: strings.Repeat("Okt 05 10:11:12 node7 kernel: pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.0\nOkt 05 10:11:12 node7 kernel: mlx5_core 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)\nOkt 05 10:11:12 node7 kernel: mlx5_core 0000:01:00.0: AER:    [ 7] BadDLLP\n", 12),
			want: []string{"pcie.aer_errors/warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, src := tt.text, tt.name
			if tt.file != "" {
				b, err := os.ReadFile(tt.file)
				if err != nil {
					t.Fatal(err)
				}
				text, src = string(b), tt.file
			}
			l, err := kmsg.ParseText(strings.NewReader(text), src, kmsg.TextOptions{Year: 2025})
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckPastedKernelLog(l, time.Time{}, 0)
			if got := ids(fs); !slices.Equal(got, tt.want) {
				for _, f := range fs {
					t.Logf("%s %s: %s", f.ID, f.Severity, f.Summary)
				}
				t.Fatalf("findings = %v, want %v", got, tt.want)
			}
			for _, f := range fs {
				if f.Subject.PCI == "" {
					t.Errorf("%s names no device: %+v", f.ID, f.Subject)
				}
			}
		})
	}
}

func TestAnalyzeEthtoolCorpus(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"mlx5-cx4-ubuntu1804-head.txt", nil},
		{"bnx2x-queue-prefixes.txt", nil},
		{"mlx5-roce-healthy.txt", nil},
		// ECN needs the node's DCQCN hw_counters: not judged from ethtool
		// alone. 88231 discards of 9.1e9 packets are under 0.01%.
		{"mlx5-roce-pfc-storm.txt", []string{"roce.pfc_storm/critical", "roce.pause_heavy/warning"}},
		{"mlx5-roce-pause-no-ecn.txt", []string{"roce.pause_heavy/warning"}},
		{"mlx5-roce-phy-errors.txt", []string{"roce.phy_errors/critical"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p := filepath.Join("../../parse/ethtool/testdata", tt.file)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !ethtool.Detect(string(b)) {
				t.Errorf("ethtool.Detect does not recognise %s", tt.file)
			}
			st, err := ethtool.Parse(bytes.NewReader(b), "eth0", p)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(CheckPastedEthtool(st)); !slices.Equal(got, tt.want) {
				t.Errorf("findings = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAnalyzeNvidiaSMI(t *testing.T) {
	for _, f := range []string{"v100-2gpu-4nic-tabs.txt", "h100-4gpu-8nic-vm.txt", "old-named-columns.txt", "h100-8gpu-12nic-sglang.txt"} {
		p := filepath.Join("../../parse/nvsmi/testdata", f)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !nvsmi.Detect(string(b)) {
			t.Errorf("DetectNvidiaSMI does not recognise %s", f)
		}
		m, err := nvsmi.Parse(bytes.NewReader(b), p)
		if err != nil {
			t.Fatal(err)
		}
		// These layouts are uniform (every GPU as near its NIC as any).
		if fs := CheckPastedNvidiaSMI(m, p); len(fs) != 0 {
			t.Errorf("%s: unexpected %v", f, ids(fs))
		}
	}
	m := &nvsmi.Matrix{GPUs: []string{"GPU0", "GPU1"}, NICs: []string{"mlx5_0", "mlx5_1"},
		Dist: [][]topo.Level{{topo.PIX, topo.SYS}, {topo.SYS, topo.NODE}}}
	fs := CheckPastedNvidiaSMI(m, "paste.txt")
	if got := ids(fs); !slices.Equal(got, []string{"topo.gpu_nic_far/warning"}) || fs[0].Subject.GPU != "1" {
		t.Errorf("findings = %v %+v", got, fs)
	}
	// No NIC at PIX/PXB for any GPU (a 4-GPU PCIe server, nvidia-smi
	// topo -m pasted in a C comment): every GPU whose nearest NIC is NODE
	// or SYS is far; a layout of PHB only is not judged.
	far := &nvsmi.Matrix{GPUs: []string{"GPU0", "GPU1", "GPU2"}, NICs: []string{"mlx5_0", "mlx5_3"},
		Dist: [][]topo.Level{{topo.NODE, topo.SYS}, {topo.NODE, topo.SYS}, {topo.SYS, topo.NODE}}}
	if got := ids(CheckPastedNvidiaSMI(far, "c.txt")); !slices.Equal(got, []string{"topo.gpu_nic_far/warning", "topo.gpu_nic_far/warning", "topo.gpu_nic_far/warning"}) {
		t.Errorf("all NODE: findings = %v", got)
	}
	phb := &nvsmi.Matrix{GPUs: []string{"GPU0"}, NICs: []string{"mlx5_0"}, Dist: [][]topo.Level{{topo.PHB}}}
	if got := ids(CheckPastedNvidiaSMI(phb, "c.txt")); len(got) != 0 {
		t.Errorf("PHB only: findings = %v", got)
	}
	if got := ids(CheckPastedNvidiaSMI(&nvsmi.Matrix{GPUs: []string{"GPU0", "GPU1"}, Dist: [][]topo.Level{{}, {}}}, "c.txt")); len(got) != 0 {
		t.Errorf("no NICs: findings = %v", got)
	}
	for _, neg := range []string{"hello", "NIC statistics:\n rx: 1\n", "GPU0 X\n"} {
		if nvsmi.Detect(neg) || kmsg.Detect(neg) && neg != "hello" {
			t.Errorf("detected %q", neg)
		}
	}
	if ethtool.Detect("hello\nNIC statistics:") || kmsg.Detect("just some prose\nwithout stamps\n") {
		t.Error("false detection")
	}
}

// TestPastedAERBurst: in a pasted excerpt, a few correctable AER reports of
// one function within a second are a flood (warning) although far below the
// count that warns over a whole log; spread out they are said (info: the
// paste asked about them) but are nothing to act on, and from a full node
// log they are not reported. Lines from the real pastes in
// internal/diagnose/analyze/testdata/realworld (rpipcie64, coreboot815).
func TestPastedAERBurst(t *testing.T) {
	detail := func(ts string) string {
		return ts + " pcieport 0000:00:1d.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, id=00e8(Receiver ID)\n"
	}
	tests := []struct {
		name, log string
		want      []string
	}{
		{"three reports in a millisecond", detail("[    3.499123]") + detail("[    3.499183]") + detail("[    3.499241]"), []string{"pcie.aer_errors/warning"}},
		{"two reports", detail("[    3.499123]") + detail("[    3.499183]"), []string{"pcie.aer_errors/info"}},
		{"three reports minutes apart", detail("[    3.499123]") + detail("[  183.499183]") + detail("[  363.499241]"), []string{"pcie.aer_errors/info"}},
		// Linux 6.x wording: one received line and one "Multiple" line
		// are three errors of the endpoint in the same second.
		{"received from, Multiple", "[Fri Aug 29 20:09:52 2025] pcieport 0000:00:1d.3: AER: Correctable error message received from 0000:06:00.0\n" +
			"[Fri Aug 29 20:09:52 2025] pcieport 0000:00:1d.3: AER: Multiple Correctable error message received from 0000:06:00.0\n", []string{"pcie.aer_errors/warning"}},
		// A steady stream: a PCH root port's Data Link Layer timing out
		// every ~10 s (archfan/coreboot#2), under the burst and count limits.
		{"four reports ~10 s apart", detail("[   41.670148]") + detail("[   51.871356]") + detail("[   63.441547]") + detail("[   64.088716]"), []string{"pcie.aer_errors/warning"}},
		{"three reports ~10 s apart", detail("[   41.670148]") + detail("[   51.871356]") + detail("[   63.441547]"), []string{"pcie.aer_errors/info"}},
		{"four reports, one a boot-time straggler", detail("[    3.100000]") + detail("[  300.000000]") + detail("[  330.000000]") + detail("[  360.000000]"), []string{"pcie.aer_errors/info"}},
		{"four reports two minutes apart", detail("[  100.000000]") + detail("[  220.000000]") + detail("[  340.000000]") + detail("[  460.000000]"), []string{"pcie.aer_errors/info"}},
		{"one uncorrectable", "[    5.000000] pcieport 0000:00:1d.0: AER: Uncorrected (Fatal) error received: 0000:3b:00.0\n", []string{"pcie.aer_errors/critical"}},
		// dmesg -H cut after its minute line: only the deltas since the
		// message before (rwth-i6/returnn#1486, realworld-fresh19).
		{"dmesg -H deltas, three in a millisecond", detail("[  +0.000005]") + detail("[  +0.000213]") + detail("[  +0.001161]"), []string{"pcie.aer_errors/warning"}},
		{"dmesg -H deltas, a minute apart", detail("[  +0.000005]") + detail("[ +60.000213]") + detail("[ +60.001161]"), []string{"pcie.aer_errors/info"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := kmsg.ParseText(strings.NewReader(tt.log), "paste.txt", kmsg.TextOptions{Year: 2025})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(CheckPastedKernelLog(l, time.Time{}, 0)); !slices.Equal(got, tt.want) {
				t.Errorf("findings = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPastedXidCause: an Xid 45 (preemptive cleanup, info) that names an
// NVLink Xid as its cause reports that Xid too, where the paste lost the
// cause's own line; the NVLink Xids 144-150 are warnings unless their
// message says Fatal. Lines from NVIDIA/open-gpu-kernel-modules#1150 and
// leptonai/gpud#1160/#1174 (kernel messages quoted in the issues).
func TestPastedXidCause(t *testing.T) {
	tests := []struct {
		name, log string
		want      []string
	}{
		{"45 caused by 149", "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149\n",
			[]string{"gpu.xid/info", "gpu.xid/warning"}},
		{"45 alone", "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001\n", []string{"gpu.xid/info"}},
		{"149 Fatal", "NVRM: Xid (PCI:0000:00:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n",
			[]string{"gpu.xid/critical"}},
		{"145 Nonfatal", "NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x0409a0c2 0x00000008 0x00000001 0x00000000 0x00100000 0x00000004)\n",
			[]string{"gpu.xid/warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := kmsg.ParseText(strings.NewReader(tt.log), "paste.txt", kmsg.TextOptions{Year: 2026})
			if err != nil {
				t.Fatal(err)
			}
			got := ids(CheckPastedKernelLog(l, time.Time{}, 0))
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPastedGIDs: a pasted GID table (show_gids) of a RoCE port with no
// RoCE v2 GID is critical, one whose only v2 GIDs are link-local a
// warning; a routable v2 GID, or an InfiniBand port (no netdev), is fine.
func TestPastedGIDs(t *testing.T) {
	ll := mustGID(t, "fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8")
	v4 := mustGID(t, "0000:0000:0000:0000:0000:ffff:ac13:003c")
	port := func(ll ib.LinkLayer, gs ...snapshot.GIDEntry) *snapshot.Snapshot {
		return &snapshot.Snapshot{Devices: []snapshot.Device{{Name: "mlx5_0", Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1, LinkLayer: ll, NetDev: "ens1f0", GIDs: gs}}}}}
	}
	v1 := func(i int, g ib.GID) snapshot.GIDEntry {
		return snapshot.GIDEntry{Index: i, GID: g, Type: ib.GIDTypeIBRoCEv1}
	}
	v2 := func(i int, g ib.GID) snapshot.GIDEntry {
		return snapshot.GIDEntry{Index: i, GID: g, Type: ib.GIDTypeRoCEv2}
	}
	tests := []struct {
		name string
		snap *snapshot.Snapshot
		want []string
	}{
		{"link-local and IPv4, v1 and v2", port(ib.LinkLayerEthernet, v1(0, ll), v2(1, ll), v1(4, v4), v2(5, v4)), nil},
		{"v2 only link-local", port(ib.LinkLayerEthernet, v1(0, ll), v2(1, ll)), []string{"roce.gid_missing_v2/warning"}},
		{"v1 only", port(ib.LinkLayerEthernet, v1(0, ll), v1(4, v4)), []string{"roce.gid_missing_v2/critical"}},
		{"InfiniBand port", port("", v1(0, ll)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(CheckPastedGIDs(tt.snap, nil)); !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPastedGIDsBesideOthers: a RoCE v2 GID of a unique-local IPv6
// address (fd93::) is routable; a port with only link-local v2 GIDs beside
// ports of another kind that have routable ones is noted as one not used
// for RDMA, beside one of its own kind it has lost its address
// (kvcache-ai/Mooncake#1617: four rocepNs0 ports with fd93:… v2 GIDs and
// rocep193s0f0 with link-local v1 and v2 only).
func TestPastedGIDsBesideOthers(t *testing.T) {
	gid := func(s string) ib.GID { return mustGID(t, s) }
	type row struct {
		dev, netdev string
		gids        []string // "v1:GID" or "v2:GID"
	}
	snap := func(rows ...row) *snapshot.Snapshot {
		s := &snapshot.Snapshot{}
		for _, r := range rows {
			p := snapshot.Port{Device: r.dev, Number: 1, LinkLayer: ib.LinkLayerEthernet, NetDev: r.netdev}
			for i, g := range r.gids {
				typ := ib.GIDTypeRoCEv2
				if strings.HasPrefix(g, "v1:") {
					typ = ib.GIDTypeIBRoCEv1
				}
				p.GIDs = append(p.GIDs, snapshot.GIDEntry{Index: i, GID: gid(g[3:]), Type: typ, NetDev: r.netdev})
			}
			s.Devices = append(s.Devices, snapshot.Device{Name: r.dev, Ports: []snapshot.Port{p}})
		}
		s.Sort()
		return s
	}
	ula := row{"rocep105s0", "enp105s0", []string{"v2:fe80:0000:0000:0000:0690:81ff:fe39:e3e8", "v2:fd93:16d3:59b6:010d:0690:81ff:fe39:e3e8"}}
	ula2 := row{"rocep121s0", "enp121s0", []string{"v2:fe80:0000:0000:0000:0690:81ff:fe39:01c8", "v2:fd93:16d3:59b6:010e:0690:81ff:fe39:01c8"}}
	mgmt := row{"rocep193s0f0", "enp193s0f0np0", []string{"v1:fe80:0000:0000:0000:7ec2:55ff:feba:ff88", "v2:fe80:0000:0000:0000:7ec2:55ff:feba:ff88"}}
	lost := row{"rocep137s0", "enp137s0", []string{"v2:fe80:0000:0000:0000:0690:81ff:fe39:f420"}}
	tests := []struct {
		name  string
		snap  *snapshot.Snapshot
		want  []string
		notes int
	}{
		{"ULA v2 GIDs only", snap(ula, ula2), nil, 0},
		{"link-local only beside another kind", snap(ula, ula2, mgmt), nil, 1},
		{"link-local only beside its own kind", snap(ula, ula2, lost), []string{"roce.gid_missing_v2/warning"}, 0},
		{"link-local only everywhere", snap(mgmt), []string{"roce.gid_missing_v2/warning"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckPastedGIDs(tt.snap, nil)
			if got := ids(fs); !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			if notes := NotRDMAPorts(tt.snap); len(notes) != tt.notes {
				t.Errorf("notes %q, want %d", notes, tt.notes)
			}
			if tt.name == "link-local only beside its own kind" && !strings.Contains(fs[0].Summary, "rocep105s0 port 1, a port of the same kind, has a routable one") {
				t.Errorf("summary %q", fs[0].Summary)
			}
		})
	}
	if f := NoGIDs(finding.Evidence{Source: "p.txt:4", Value: "n_gids_found=0"}); f.ID != "roce.gid_missing_v2" || f.Severity != finding.Critical || !strings.Contains(f.Summary, "no GID at all") {
		t.Errorf("NoGIDs: %+v", f)
	}
}

func mustGID(t *testing.T, s string) ib.GID {
	t.Helper()
	g, err := ib.ParseGID(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPastedGIDsCut: a show_gids paste cut inside its last port's rows
// (NVIDIA/nccl#1573: "mlx5_2	1	4	fe80:0000:0000:0000:90ea:b5ff:fec5:3f24			v1	net3"
// is the paste's last line, no n_gids_found line) shows that port one
// RoCE v1 GID: its v2 twin may have been cut, so it is not judged; two
// v1 GIDs without a v2, or a table whose closing line is there, still are.
func TestPastedGIDsCut(t *testing.T) {
	ll := mustGID(t, "fe80:0000:0000:0000:90ea:b5ff:fec5:3f24")
	v4 := mustGID(t, "0000:0000:0000:0000:0000:ffff:0a98:080c")
	row := func(i int, g ib.GID, typ ib.GIDType) snapshot.GIDEntry {
		return snapshot.GIDEntry{Index: i, GID: g, Type: typ, NetDev: "net3"}
	}
	tests := []struct {
		name string
		gids []snapshot.GIDEntry
		cut  bool // the table ends at this port without its closing line
		want []string
		note bool
	}{
		{"one v1 row, table cut", []snapshot.GIDEntry{row(4, ll, ib.GIDTypeIBRoCEv1)}, true, nil, true},
		{"one v1 row, table closed", []snapshot.GIDEntry{row(4, ll, ib.GIDTypeIBRoCEv1)}, false, []string{"roce.gid_missing_v2/critical"}, false},
		{"two v1 rows, table cut", []snapshot.GIDEntry{row(4, ll, ib.GIDTypeIBRoCEv1), row(5, v4, ib.GIDTypeIBRoCEv1)}, true, []string{"roce.gid_missing_v2/critical"}, false},
		{"one v2 row, table cut", []snapshot.GIDEntry{row(5, v4, ib.GIDTypeRoCEv2)}, true, nil, false},
		// NVIDIA/nccl#1538: the paste stops at "mlx5_3	1	6	0000:0000:0000:0000:0000:ffff:0a9c:8d84	10.156.141.132  	v1	net4",
		// after the port's link-local v1/v2 pair: the IPv4 v2 twin at
		// index 7 was cut, as the three ports above show it.
		{"link-local pair then an IPv4 v1 row, table cut", []snapshot.GIDEntry{row(4, ll, ib.GIDTypeIBRoCEv1), row(5, ll, ib.GIDTypeRoCEv2), row(6, v4, ib.GIDTypeIBRoCEv1)}, true, nil, true},
		{"link-local pair then an IPv4 v1 row, table closed", []snapshot.GIDEntry{row(4, ll, ib.GIDTypeIBRoCEv1), row(5, ll, ib.GIDTypeRoCEv2), row(6, v4, ib.GIDTypeIBRoCEv1)}, false, []string{"roce.gid_missing_v2/warning"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &snapshot.Snapshot{Devices: []snapshot.Device{{Name: "mlx5_2", Ports: []snapshot.Port{{Device: "mlx5_2", Number: 1, LinkLayer: ib.LinkLayerEthernet, NetDev: "net3", GIDs: tt.gids}}}}}
			var cut *snapshot.Port
			if tt.cut {
				cut = s.Port("mlx5_2", 1)
			}
			if got := ids(CheckPastedGIDs(s, cut)); !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			if note, ok := CutGIDPort(cut); ok != tt.note || ok && !strings.Contains(note, "mlx5_2 port 1") {
				t.Errorf("note %q %v, want %v", note, ok, tt.note)
			}
		})
	}
}

// TestPastedGIDIndex: NCCL_IB_GID_INDEX exported in a paste judged
// against the show_gids table beside it (NVIDIA/nccl#1510: index 4 is the
// IPv4 RoCE v1 GID of mlx5_0, its v2 twin is index 5). An index the table
// does not list is empty when the table is whole, not judged when it
// lacks its closing line; a port another output showed down is skipped.
func TestPastedGIDIndex(t *testing.T) {
	ll := mustGID(t, "fe80:0000:0000:0000:9cbb:b7ff:feb3:937a")
	v4 := mustGID(t, "0000:0000:0000:0000:0000:ffff:0a0c:0015")
	row := func(i int, g ib.GID, typ ib.GIDType) snapshot.GIDEntry {
		return snapshot.GIDEntry{Index: i, GID: g, Type: typ, NetDev: "net1"}
	}
	table := []snapshot.GIDEntry{row(4, v4, ib.GIDTypeIBRoCEv1), row(5, v4, ib.GIDTypeRoCEv2), row(6, ll, ib.GIDTypeIBRoCEv1), row(7, ll, ib.GIDTypeRoCEv2)}
	down := ib.StateDown
	tests := []struct {
		name  string
		env   []string
		open  bool
		state *ib.PortState
		want  []string
		has   string
	}{
		{"index 4 is RoCE v1", []string{"NCCL_IB_GID_INDEX=4"}, true, nil, []string{"nccl.gid_index_wrong/critical"}, "is a RoCE v1 GID (not routable, no ECN); use the routable RoCE v2 GID 0000:0000:0000:0000:0000:ffff:0a0c:0015 at index 5"},
		{"index 5 is RoCE v2", []string{"NCCL_IB_GID_INDEX=5"}, true, nil, nil, ""},
		{"index 7 is link-local v2", []string{"NCCL_IB_GID_INDEX=7"}, true, nil, []string{"nccl.gid_index_wrong/warning"}, "link-local"},
		{"index 3 not listed, table whole", []string{"NCCL_IB_GID_INDEX=3"}, false, nil, []string{"nccl.gid_index_wrong/critical"}, "is empty"},
		{"index 3 not listed, table open", []string{"NCCL_IB_GID_INDEX=3"}, true, nil, nil, ""},
		{"another HCA selected", []string{"NCCL_IB_GID_INDEX=4", "NCCL_IB_HCA=mlx5_1"}, true, nil, nil, ""},
		{"port shown down", []string{"NCCL_IB_GID_INDEX=4"}, true, &down, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &snapshot.Snapshot{Devices: []snapshot.Device{{Name: "mlx5_0", Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1, LinkLayer: ib.LinkLayerEthernet, NetDev: "net1", GIDs: table, State: tt.state}}}}}
			fs := CheckPastedGIDIndex(s, ncclenv.FromList("paste.txt", tt.env), tt.open)
			if got := ids(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("findings %v, want %v", got, tt.want)
			}
			if tt.has != "" && !strings.Contains(fs[0].Summary, tt.has) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.has)
			}
		})
	}
}

// TestCheckPastedMemlock: a pasted locked-memory limit (openucx/ucx#8229's
// `ulimit -a`: "max locked memory       (kbytes, -l) 64") is judged with
// no node around it: below 64 MiB critical, above a warning, unlimited
// fine; ulimit -a's soft-only value says so, the row is the evidence.
func TestCheckPastedMemlock(t *testing.T) {
	ev := finding.Evidence{Source: "u.txt:8", Value: "max locked memory       (kbytes, -l) 64"}
	tests := []struct {
		name string
		l    hostmodel.Limit
		want []string
		says string
	}{
		{"ulimit -a 64 KiB", hostmodel.Limit{Soft: 64 << 10, HardUnknown: true}, []string{"host.memlock_limited/critical"}, "64 KiB (the soft limit"},
		{"ulimit -a 128 MiB", hostmodel.Limit{Soft: 128 << 20, HardUnknown: true}, []string{"host.memlock_limited/warning"}, "128 MiB"},
		{"limits file", hostmodel.Limit{Soft: 64 << 10, Hard: 64 << 10}, []string{"host.memlock_limited/critical"}, "(hard 64 KiB)"},
		{"unlimited", hostmodel.Limit{SoftUnlimited: true, HardUnknown: true}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckPastedMemlock(&tt.l, ev)
			if got := ids(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("findings %v, want %v", got, tt.want)
			}
			if len(fs) == 1 && (!strings.Contains(fs[0].Summary, tt.says) || len(fs[0].Evidence) != 1 || fs[0].Evidence[0] != ev) {
				t.Errorf("finding %+v", fs[0])
			}
		})
	}
}
