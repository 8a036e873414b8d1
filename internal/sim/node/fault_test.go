package node

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

// change is how one path differs between the healthy and the faulted node:
// its new content, or a marker.
const (
	gone       = "<gone>"
	unreadable = "<unreadable>"
	anyChange  = "<changed>"
)

func diffEntries(a, b map[string]Entry) map[string]string {
	out := map[string]string{}
	for p, e := range a {
		o, ok := b[p]
		switch {
		case !ok:
			out[p] = gone
		case o.Kind == KindUnreadable && e.Kind != KindUnreadable:
			out[p] = unreadable
		case !o.equal(e):
			out[p] = string(o.Data) + o.Target
		}
	}
	for p, o := range b {
		if _, ok := a[p]; !ok {
			out[p] = "<new>" + string(o.Data)
		}
	}
	return out
}

// TestFaultChangesExactly applies each fault to the default node and
// compares every rendered path with the healthy node: the listed paths
// must change to the listed bytes, and nothing else may change.
func TestFaultChangesExactly(t *testing.T) {
	healthy := mustBuild(t, Options{})
	base := entryMap(healthy)
	port := func(dev string) string { return healthy.Device(dev).Dir() + "/ports/1/" }
	net := func(dev string) string {
		d := healthy.Device(dev)
		return d.PCI.Path() + "/net/" + d.Ports[0].NetDev.Name + "/"
	}
	pci := func(name string) string { return healthy.Func(name).Path() + "/" }
	parent := func(name string) string { return healthy.Func(name).Parent.Path() + "/" }
	ipoibDown := func(dev string) map[string]string {
		return map[string]string{net(dev) + "operstate": "down\n", net(dev) + "carrier": "0\n", net(dev) + "carrier_changes": "3\n", net(dev) + "speed": "-1\n"}
	}
	merge := func(ms ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range ms {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	cases := []struct {
		fault string
		want  map[string]string
	}{
		{"down:mlx5_3/1", merge(ipoibDown("mlx5_3"), map[string]string{
			port("mlx5_3") + "state": "1: DOWN\n", port("mlx5_3") + "phys_state": "1: Sleep\n",
			port("mlx5_3") + "rate": "10 Gb/sec (4X SDR)\n", port("mlx5_3") + "lid": "0xffff\n", port("mlx5_3") + "sm_lid": "0x0\n"})},
		{"polling:mlx5_3/1", merge(ipoibDown("mlx5_3"), map[string]string{
			port("mlx5_3") + "state": "1: DOWN\n", port("mlx5_3") + "phys_state": "2: Polling\n",
			port("mlx5_3") + "rate": "10 Gb/sec (4X SDR)\n", port("mlx5_3") + "lid": "0xffff\n", port("mlx5_3") + "sm_lid": "0x0\n"})},
		{"disabled:mlx5_0/1", merge(ipoibDown("mlx5_0"), map[string]string{
			port("mlx5_0") + "state": "1: DOWN\n", port("mlx5_0") + "phys_state": "3: Disabled\n",
			port("mlx5_0") + "rate": "10 Gb/sec (4X SDR)\n", port("mlx5_0") + "lid": "0xffff\n", port("mlx5_0") + "sm_lid": "0x0\n"})},
		{"init:mlx5_3/1", merge(ipoibDown("mlx5_3"), map[string]string{
			port("mlx5_3") + "state": "2: INIT\n", port("mlx5_3") + "lid": "0xffff\n", port("mlx5_3") + "sm_lid": "0x0\n"})},
		{"armed:mlx5_3/1", merge(ipoibDown("mlx5_3"), map[string]string{port("mlx5_3") + "state": "3: ARMED\n"})},
		// RoCE: the state follows the netdev; rate falls back to 4X QDR.
		{"down:mlx5_8/1", map[string]string{
			port("mlx5_8") + "state": "1: DOWN\n", port("mlx5_8") + "phys_state": "3: Disabled\n",
			port("mlx5_8") + "rate":     "40 Gb/sec (4X QDR)\n",
			net("mlx5_8") + "operstate": "down\n", net("mlx5_8") + "carrier": "0\n", net("mlx5_8") + "carrier_changes": "3\n", net("mlx5_8") + "speed": "-1\n",
			"cmd/dmesg.txt": anyChange, "cmd/ethtool-S-ens1f0np0.txt": anyChange}},
		{"width:mlx5_2/1=2", map[string]string{port("mlx5_2") + "rate": "200 Gb/sec (2X NDR)\n", net("mlx5_2") + "speed": "200000\n"}},
		{"width:mlx5_2/1=1X", map[string]string{port("mlx5_2") + "rate": "100 Gb/sec (1X NDR)\n", net("mlx5_2") + "speed": "100000\n"}},
		{"speed:mlx5_2/1=HDR", map[string]string{port("mlx5_2") + "rate": "200 Gb/sec (4X HDR)\n", net("mlx5_2") + "speed": "200000\n"}},
		{"speed:mlx5_9/1=hdr", map[string]string{port("mlx5_9") + "rate": "200 Gb/sec (4X HDR)\n", net("mlx5_9") + "speed": "200000\n"}},
		// Both ends of the PCIe link see the downtrained width; the boot
		// log says what limits the bandwidth.
		{"pcie-width:mlx5_4=8", map[string]string{pci("mlx5_4") + "current_link_width": "8\n", parent("mlx5_4") + "current_link_width": "8\n", "cmd/dmesg.txt": anyChange}},
		{"pcie-speed:mlx5_4=3", map[string]string{pci("mlx5_4") + "current_link_speed": "8.0 GT/s PCIe\n", parent("mlx5_4") + "current_link_speed": "8.0 GT/s PCIe\n", "cmd/dmesg.txt": anyChange}},
		{"pcie-width:gpu3=4", map[string]string{pci("gpu3") + "current_link_width": "4\n", parent("gpu3") + "current_link_width": "4\n"}},
		{"pcie-speed:gpu3=Gen4", map[string]string{pci("gpu3") + "current_link_speed": "16.0 GT/s PCIe\n", parent("gpu3") + "current_link_speed": "16.0 GT/s PCIe\n"}},
		{"counter:mlx5_1/1/symbol_error=1234", map[string]string{port("mlx5_1") + "counters/symbol_error": "1234\n"}},
		{"counter:mlx5_1/1/port_rcv_data=4294967290", map[string]string{port("mlx5_1") + "counters/port_rcv_data": "4294967290\n"}},
		{"saturate:mlx5_1/1/symbol_error", map[string]string{port("mlx5_1") + "counters/symbol_error": "65535\n"}},
		{"saturate:mlx5_1/1/link_downed", map[string]string{port("mlx5_1") + "counters/link_downed": "255\n"}},
		{"saturate:mlx5_1/1/local_link_integrity_errors", map[string]string{port("mlx5_1") + "counters/local_link_integrity_errors": "15\n"}},
		// Only the port's file: no device-level hw_counters outside
		// switchdev mode (the "extra" check below fails on any other change).
		{"hw-counter:mlx5_0/1/out_of_buffer=5000", map[string]string{port("mlx5_0") + "hw_counters/out_of_buffer": "5000\n"}},
		{"fw:mlx5_5=28.36.1010", map[string]string{healthy.Device("mlx5_5").Dir() + "/fw_ver": "28.36.1010\n", "cmd/dmesg.txt": anyChange}},
		{"fw:mlx5_5=28.36.10", map[string]string{healthy.Device("mlx5_5").Dir() + "/fw_ver": "28.36.0010\n", "cmd/dmesg.txt": anyChange}},
		{"unreadable:mlx5_0/1/counters/port_rcv_data", map[string]string{port("mlx5_0") + "counters/port_rcv_data": unreadable}},
		{"unreadable:mlx5_0/fw_ver", map[string]string{healthy.Device("mlx5_0").Dir() + "/fw_ver": unreadable}},
		{"unreadable:gpu0/current_link_width", map[string]string{pci("gpu0") + "current_link_width": unreadable}},
		{"unreadable:ens1f0np0/speed", map[string]string{net("mlx5_8") + "speed": unreadable}},
		{"unreadable:proc/modules", map[string]string{"proc/modules": unreadable}},
		{"pma-classic:mlx5_1", map[string]string{
			port("mlx5_1") + "counters/port_xmit_data": "4294967295\n", port("mlx5_1") + "counters/port_rcv_data": "4294967295\n",
			port("mlx5_1") + "counters/unicast_xmit_packets": gone, port("mlx5_1") + "counters/unicast_rcv_packets": gone,
			port("mlx5_1") + "counters/multicast_xmit_packets": gone, port("mlx5_1") + "counters/multicast_rcv_packets": gone}},
		{"no-uverbs:mlx5_0", map[string]string{"dev/infiniband/uverbs0": gone}},
		{"no-rdma-cm", map[string]string{"dev/infiniband/rdma_cm": gone}},
		{"no-module:nvidia_peermem", map[string]string{"proc/modules": anyChange}},
		{"ethtool:ens1f0np0/rx_prio3_pause=250000", map[string]string{"cmd/ethtool-S-ens1f0np0.txt": anyChange}},
		{"mtu:ens1f1np1=1500", map[string]string{net("mlx5_9") + "mtu": "1500\n"}},
		{"no-gid-v2:mlx5_8/1", map[string]string{
			port("mlx5_8") + "gids/1": "0000:0000:0000:0000:0000:0000:0000:0000\n", port("mlx5_8") + "gids/3": "0000:0000:0000:0000:0000:0000:0000:0000\n",
			port("mlx5_8") + "gid_attrs/types/1": unreadable, port("mlx5_8") + "gid_attrs/types/3": unreadable,
			port("mlx5_8") + "gid_attrs/ndevs/1": unreadable, port("mlx5_8") + "gid_attrs/ndevs/3": unreadable}},
		{"xid:gpu3=79", map[string]string{"cmd/dmesg.txt": anyChange}},
		{"pkeys:mlx5_3/1=0x7fff", map[string]string{port("mlx5_3") + "pkeys/0": "0x7fff\n"}},
		{"pkeys:mlx5_3/1=0x7fff,0x8001", map[string]string{port("mlx5_3") + "pkeys/0": "0x7fff\n", port("mlx5_3") + "pkeys/1": "0x8001\n"}},
		{"driver=24.07-0.6.1", map[string]string{"sys/module/mlx5_core/version": "24.07-0.6.1\n", "sys/module/mlx5_core/srcversion": anyChange}},
		{"iommu=translated", map[string]string{"proc/cmdline": "BOOT_IMAGE=/boot/vmlinuz-6.8.0-52-generic root=UUID=6b1f0c52-3a8e-4d0c-9a57-1f2e3d4c5b6a ro intel_iommu=on\n"}},
		{"iommu=off", map[string]string{"proc/cmdline": "BOOT_IMAGE=/boot/vmlinuz-6.8.0-52-generic root=UUID=6b1f0c52-3a8e-4d0c-9a57-1f2e3d4c5b6a ro intel_iommu=off\n",
			"sys/class/iommu/dmar0": gone, "sys/class/iommu/dmar1": gone, "sys/devices/virtual/iommu/dmar0/uevent": gone, "sys/devices/virtual/iommu/dmar1/uevent": gone}},
		{"pkeys:mlx5_3/1=none", map[string]string{port("mlx5_3") + "pkeys/0": "0x0000\n"}},
		{"memlock=65536", map[string]string{"proc/48213/limits": anyChange}},
		{"env:NCCL_IB_HCA==mlx5_0:1", map[string]string{"proc/48213/environ": anyChange}},
		{"no-env:CUDA_VISIBLE_DEVICES", map[string]string{"proc/48213/environ": anyChange}},
		{"flap:mlx5_8/1=3", map[string]string{port("mlx5_8") + "counters/link_downed": "3\n", net("mlx5_8") + "carrier_changes": "8\n",
			"cmd/dmesg.txt": anyChange, "cmd/ethtool-S-ens1f0np0.txt": anyChange}},
		{"flap:mlx5_1/1=2", map[string]string{port("mlx5_1") + "counters/link_downed": "2\n", net("mlx5_1") + "carrier_changes": "6\n"}},
		{"aer:mlx5_2/correctable/RxErr=12", map[string]string{
			pci("mlx5_2") + "aer_dev_correctable":                            "RxErr 12\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 12\n",
			"sys/devices/pci0000:35/0000:35:01.0/aer_rootport_total_err_cor": "12\n", "cmd/dmesg.txt": anyChange}},
		{"aer:gpu0/fatal/MalfTLP=1", map[string]string{
			pci("gpu0") + "aer_dev_fatal": anyChange, "sys/devices/pci0000:15/0000:15:01.0/aer_rootport_total_err_fatal": "1\n", "cmd/dmesg.txt": anyChange}},
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			n := mustBuild(t, Options{Faults: MustParseFaults(c.fault)})
			got := diffEntries(base, entryMap(n))
			for p, want := range c.want {
				g, ok := got[p]
				switch {
				case !ok:
					t.Errorf("%s did not change (want %q)", p, want)
				case want != anyChange && g != want:
					t.Errorf("%s = %q, want %q", p, g, want)
				}
			}
			var extra []string
			for p, g := range got {
				if _, ok := c.want[p]; !ok {
					extra = append(extra, p+" = "+g)
				}
			}
			sort.Strings(extra)
			for _, e := range extra {
				t.Errorf("unexpected change %s", e)
			}
		})
	}
}

// TestFaultContent checks what the faults that change whole documents
// (kernel log, ethtool, modules) put in them.
func TestFaultContent(t *testing.T) {
	cases := []struct {
		fault, path string
		want        []string
		not         []string
	}{
		{"xid:gpu3=79", "cmd/dmesg.txt", []string{
			"] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n",
			"] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n"}, nil},
		{"xid:gpu0=63", "cmd/dmesg.txt", []string{"] NVRM: Xid (PCI:0000:19:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping, reset gpu to activate.\n"}, []string{"fallen off"}},
		{"aer:mlx5_2/correctable/RxErr=12", "cmd/dmesg.txt", []string{
			"] pcieport 0000:35:01.0: AER: Multiple Correctable error message received from 0000:38:00.0\n",
			"] mlx5_core 0000:38:00.0: AER: PCIe Bus Error: severity=Correctable, type=Physical Layer, (Receiver ID)\n",
			"] mlx5_core 0000:38:00.0: AER:   device [15b3:1021] error status/mask=00000001/00000000\n",
			"] mlx5_core 0000:38:00.0: AER:    [ 0] RxErr                  (First)\n"}, nil},
		{"aer:gpu0/nonfatal/CmpltTO=1", "cmd/dmesg.txt", []string{
			"] pcieport 0000:15:01.0: AER: Uncorrectable (Non-Fatal) error message received from 0000:19:00.0\n",
			"] nvidia 0000:19:00.0: AER: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), type=Transaction Layer, (Receiver ID)\n",
			"] nvidia 0000:19:00.0: AER:    [14] CmpltTO                (First)\n"}, nil},
		{"pcie-width:mlx5_4=8", "cmd/dmesg.txt", []string{
			"] mlx5_core 0000:98:00.0: 252.056 Gb/s available PCIe bandwidth, limited by 32.0 GT/s PCIe x8 link at 0000:97:00.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)\n"}, nil},
		{"flap:mlx5_8/1=2", "cmd/dmesg.txt", []string{
			"] mlx5_core 0000:51:00.0 ens1f0np0: Link down\n", "] mlx5_core 0000:51:00.0 ens1f0np0: Link up\n"}, nil},
		{"flap:mlx5_8/1=2", "cmd/ethtool-S-ens1f0np0.txt", []string{"\n     link_down_events_phy: 2\n"}, nil},
		{"ethtool:ens1f0np0/rx_prio3_pause=250000", "cmd/ethtool-S-ens1f0np0.txt", []string{"\n     rx_prio3_pause: 250000\n"}, nil},
		{"ethtool:ens1f0np0/tx_pause_storm_error_events=3", "cmd/ethtool-S-ens1f0np0.txt", []string{"\n     tx_pause_storm_error_events: 3\n"}, nil},
		{"ethtool:ens1f0np0/rx_prio4_pause=9", "cmd/ethtool-S-ens1f0np0.txt", []string{"     rx_prio4_pause: 9\n"}, nil},
		{"no-module:nvidia_peermem", "proc/modules", []string{"\nib_core 479232 7 rdma_ucm,ib_ipoib,mlx5_ib,ib_uverbs,rdma_cm,iw_cm,ib_cm, Live ",
			"\nnvidia 56807424 2 nvidia_uvm,nvidia_modeset, Live "}, []string{"nvidia_peermem"}},
		{"down:mlx5_3/1", "cmd/dmesg.txt", nil, []string{"Link down"}},
		{"memlock=65536", "proc/48213/limits", []string{"\nMax locked memory         65536                65536                bytes     \n"}, nil},
		{"env:NCCL_IB_HCA==mlx5_0:1", "proc/48213/environ", []string{"\x00NCCL_IB_HCA==mlx5_0:1\x00"}, nil},
		{"env:CUDA_VISIBLE_DEVICES=3", "proc/48213/environ", []string{"\x00CUDA_VISIBLE_DEVICES=3\x00"}, []string{"0,1"}},
		{"no-env:NCCL_DEBUG", "proc/48213/environ", nil, []string{"NCCL_DEBUG"}},
	}
	for _, c := range cases {
		m := entryMap(mustBuild(t, Options{Faults: MustParseFaults(c.fault)}))
		got := string(m[c.path].Data)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %s lacks %q", c.fault, c.path, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %s has %q", c.fault, c.path, w)
			}
		}
	}
}

func TestFaultRemovesDevice(t *testing.T) {
	healthy := mustBuild(t, Options{})
	d := healthy.Device("mlx5_7")
	bdf, dir := string(d.PCI.Addr), d.PCI.Path()
	nd := d.Ports[0].NetDev.Name
	for _, c := range []struct {
		fault    string
		keepsPCI bool
	}{{"missing:mlx5_7", false}, {"unbound:mlx5_7", true}} {
		m := entryMap(mustBuild(t, Options{Faults: MustParseFaults(c.fault)}))
		for p := range m {
			if strings.Contains(p, "mlx5_7") || strings.Contains(p, "/"+nd) || p == "dev/infiniband/uverbs7" || strings.HasSuffix(p, "drivers/mlx5_core/"+bdf) {
				t.Errorf("%s: %s still present", c.fault, p)
			}
		}
		_, vendor := m[dir+"/vendor"]
		_, link := m["sys/bus/pci/devices/"+bdf]
		_, drv := m[dir+"/driver"]
		if vendor != c.keepsPCI || link != c.keepsPCI || drv {
			t.Errorf("%s: PCI attributes %v, bus link %v, driver link %v", c.fault, vendor, link, drv)
		}
		if _, ok := m["sys/class/infiniband/mlx5_6"]; !ok {
			t.Errorf("%s: mlx5_6 gone too", c.fault)
		}
		if strings.Contains(string(m["cmd/dmesg.txt"].Data), bdf+": firmware") {
			t.Errorf("%s: boot log probes the absent device", c.fault)
		}
	}
	// A GPU gone from the bus: its PCI function and topology column go.
	g := healthy.Func("gpu3")
	m := entryMap(mustBuild(t, Options{Faults: MustParseFaults("missing:gpu3")}))
	if _, ok := m[g.Path()+"/vendor"]; ok {
		t.Error("missing:gpu3 left its PCI function")
	}
	if _, ok := m["sys/bus/pci/devices/"+string(g.Addr)]; ok {
		t.Error("missing:gpu3 left its bus link")
	}
	if topo := string(m["cmd/nvidia-smi-topo-m.txt"].Data); strings.Contains(topo, "GPU7") || !strings.Contains(topo, "\tGPU6\tNIC0") {
		t.Errorf("topology with 7 GPUs:\n%s", topo)
	}
	if _, err := Build(Options{Faults: MustParseFaults("missing:sw0-up")}); err == nil || !strings.Contains(err.Error(), "no RDMA device or GPU") {
		t.Errorf("missing switch: %v", err)
	}
	m = entryMap(mustBuild(t, Options{Faults: MustParseFaults("no-counters:mlx5_6")}))
	for p := range m {
		if strings.HasPrefix(p, healthy.Device("mlx5_6").Dir()+"/ports/1/counters/") {
			t.Errorf("no-counters left %s", p)
		}
	}
	if _, ok := m[healthy.Device("mlx5_6").Dir()+"/ports/1/hw_counters/out_of_buffer"]; !ok {
		t.Error("no-counters removed hw_counters too")
	}
}

func TestParseFault(t *testing.T) {
	good := []struct {
		in   string
		want Fault
	}{
		{"down:mlx5_3/1", Fault{Kind: "down", Target: "mlx5_3/1"}},
		{"width:mlx5_2/1=2", Fault{Kind: "width", Target: "mlx5_2/1", Value: "2"}},
		{" no-rdma-cm ", Fault{Kind: "no-rdma-cm"}},
		{"counter:mlx5_1/1/symbol_error=1234", Fault{Kind: "counter", Target: "mlx5_1/1/symbol_error", Value: "1234"}},
		{"unreadable:sys/class/infiniband/mlx5_0/fw_ver", Fault{Kind: "unreadable", Target: "sys/class/infiniband/mlx5_0/fw_ver"}},
		{"pcie-width:0000:98:00.0=8", Fault{Kind: "pcie-width", Target: "0000:98:00.0", Value: "8"}},
	}
	for _, c := range good {
		f, err := ParseFault(c.in)
		if err != nil || f != c.want {
			t.Errorf("ParseFault(%q) = %+v, %v; want %+v", c.in, f, err, c.want)
		}
		if again, err := ParseFault(f.String()); err != nil || again != f {
			t.Errorf("round trip of %q: %+v %v", c.in, again, err)
		}
	}
	bad := []struct{ in, msg string }{
		{"", "unknown kind"},
		{"explode:mlx5_0/1", `unknown kind "explode"`},
		{"down", "missing target"},
		{"down:", "missing target"},
		{"down:mlx5_3", "want DEVICE/PORT"},
		{"down:mlx5_3/x", "not a port number"},
		{"down:mlx5_3/01", "not a port number"},
		{"down:mlx5_3/1=2", "takes no value"},
		{"no-rdma-cm:x", "takes no target"},
		{"width:mlx5_2/1", "missing value"},
		{"width:mlx5_2/1=3", "want 1, 2, 4, 8 or 12"},
		{"speed:mlx5_2/1=FAST", "want SDR"},
		{"pcie-width:mlx5_4=7", "PCIe width"},
		{"pcie-width:mlx5_4=0", "PCIe width"},
		{"pcie-speed:mlx5_4=9", "PCIe generation"},
		{"counter:mlx5_1/1=5", "DEVICE/PORT/COUNTER"},
		{"counter:mlx5_1/1/symbol_error=-1", "unsigned decimal"},
		{"counter:mlx5_1/1/symbol_error=1e3", "unsigned decimal"},
		{"fw:mlx5_5=28.36", "MAJOR.MINOR.SUBMINOR"},
		{"unreadable:mlx5_0/../../etc/passwd", "'..'"},
		{"unreadable:/etc/passwd", "segment"},
		{"aer:mlx5_2/odd/RxErr=1", "correctable|nonfatal|fatal"},
		{"aer:mlx5_2/correctable/MalfTLP=1", "unknown AER error"},
		{"down:mlx5 3/1", "blanks"},
		{"memlock=lots", "bytes or unlimited"},
		{"memlock:self=5", "takes no target"},
		{"env:NCCL-IB=1", "letters, digits and '_'"},
		{"iommu=strict", "want translated, pt or off"},
		{"pkeys:mlx5_3/1=7fff", "want 0x0001–0xffff"},
		{"pkeys:mlx5_3/1=0x10000", "want 0x0001–0xffff"},
		{"pkeys:mlx5_3/1=0x0", "want 0x0001–0xffff"},
	}
	for _, c := range bad {
		_, err := ParseFault(c.in)
		if err == nil || !errors.Is(err, ErrBadFault) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseFault(%q) = %v, want an ErrBadFault saying %q", c.in, err, c.msg)
		}
	}
}

// TestApplyErrors: faults that parse but do not fit the node name the
// problem and change nothing fatal.
func TestApplyErrors(t *testing.T) {
	cases := []struct{ fault, msg string }{
		{"down:mlx5_42/1", `no RDMA device "mlx5_42"`},
		{"down:mlx5_0/2", "has no port 2"},
		{"init:mlx5_8/1", "RoCE port"},
		{"counter:mlx5_1/1/bogus=1", `no counter "bogus"`},
		{"counter:mlx5_1/1/symbol_error=65536", "exceeds its maximum 65535"},
		{"hw-counter:mlx5_1/1/out_of_buffer=4294967296", "exceeds its maximum"},
		{"saturate:mlx5_1/1/port_xmit_data", "does not saturate"},
		{"pcie-width:mlx5_4=32", "exceeds the maximum x16"},
		{"pcie-speed:mlx5_8=5", "exceeds the maximum"},
		{"pcie-width:gpu9=8", `no PCI function "gpu9"`},
		{"unreadable:mlx5_0/1/counters/nonesuch", "no such file"},
		{"unreadable:mlx5_0/ports", "not a regular file"},
		{"unreadable:nowhere/x", "first part"},
		{"no-module:nvidia_fs", "is not loaded"},
		{"ethtool:ibp24s0/rx_prio3_pause=1", "not an Ethernet netdev"},
		{"ethtool:eth9/x=1", `no netdev "eth9"`},
		{"mtu:ens1f0np0=20", "68–65535"},
		{"no-gid-v2:mlx5_0/1", "not a RoCE port"},
		{"xid:mlx5_0=79", "no GPU"},
		{"flap:mlx5_0/1=0", "1–10000"},
		{"no-env:NCCL_IB_HCA", "is not set"},
	}
	for _, c := range cases {
		_, err := Build(Options{Faults: MustParseFaults(c.fault)})
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), c.fault) {
			t.Errorf("%s: %v, want an error naming the fault and saying %q", c.fault, err, c.msg)
		}
	}
	_, err := Build(Options{Profile: "a100-hdr", Faults: MustParseFaults("down:mlx5_8/1")})
	if err == nil || !strings.Contains(err.Error(), "mlx5_7") {
		t.Errorf("a100 has no mlx5_8: %v", err)
	}
}

func TestFaultsDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Faults() {
		if seen[k.Name] || k.Description == "" || !strings.HasPrefix(k.Syntax, k.Name) {
			t.Errorf("fault kind %q: duplicate or undocumented (%q)", k.Name, k.Syntax)
		}
		seen[k.Name] = true
		f, err := ParseFault(k.Example)
		if err != nil || f.Kind != k.Name {
			t.Errorf("example %q of %s: %v", k.Example, k.Name, err)
			continue
		}
		if _, err := Build(Options{Faults: []Fault{f}}); err != nil {
			t.Errorf("example %q does not apply to the default profile: %v", k.Example, err)
		}
	}
}

// TestFaultTable: the table is the base faults followed by the kernel-log
// faults of triage_faults.go, each once, in that order.
func TestFaultTable(t *testing.T) {
	var names []string
	for _, k := range Faults() {
		names = append(names, k.Name)
	}
	base, triage := len(baseFaultKinds()), len(triageFaultKinds())
	if len(names) != base+triage {
		t.Fatalf("%d fault kinds, want %d base + %d kernel-log", len(names), base, triage)
	}
	if got := names[base:]; !slices.Equal(got, []string{"module-event", "mlx5-health"}) {
		t.Errorf("kernel-log faults at the end: %v", got)
	}
	for _, n := range []string{"module-event", "mlx5-health", "down", "xid"} {
		if kindOf(n) == nil {
			t.Errorf("%s not found in the table", n)
		}
	}
}

func FuzzParseFault(f *testing.F) {
	for _, k := range Faults() {
		f.Add(k.Example)
	}
	for _, s := range []string{"", ":", "=", "down:/", "width:a/1=", "aer:x/fatal/", "unreadable:a//b", "x:y=z=w"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ft, err := ParseFault(s)
		if err != nil {
			if !errors.Is(err, ErrBadFault) {
				t.Fatalf("error %v does not wrap ErrBadFault", err)
			}
			return
		}
		again, err := ParseFault(ft.String())
		if err != nil || again != ft {
			t.Fatalf("round trip %q -> %q: %v", s, ft.String(), err)
		}
		// Applying may fail (unknown device), but never panics, and a
		// target can never point outside the root.
		n := mustBuild(t, Options{})
		_ = n.Apply(ft)
		for p := range n.Unreadable {
			if strings.HasPrefix(p, "/") || strings.Contains("/"+p+"/", "/../") {
				t.Fatalf("unreadable path %q escapes", p)
			}
		}
	})
}

// A RoCE port goes down as Disabled; that must not leak into the next
// InfiniBand port taken down (the apply function is shared by all nodes).
func TestDownFaultPerLinkLayer(t *testing.T) {
	for _, tt := range []struct {
		fault string
		phys  ib.PhysState
	}{
		{"down:mlx5_9/1", ib.PhysDisabled},
		{"down:mlx5_3/1", ib.PhysSleep},
		{"down:mlx5_8/1", ib.PhysDisabled},
		{"polling:mlx5_2/1", ib.PhysPolling},
	} {
		n, err := Build(Options{Profile: "h100-ndr", Faults: MustParseFaults(tt.fault)})
		if err != nil {
			t.Fatal(err)
		}
		target, _ := strings.CutPrefix(tt.fault, strings.SplitN(tt.fault, ":", 2)[0]+":")
		_, p, err := n.PortRef(target)
		if err != nil {
			t.Fatal(err)
		}
		if p.Phys != tt.phys {
			t.Errorf("%s: phys %s, want %s", tt.fault, p.Phys, tt.phys)
		}
	}
}
