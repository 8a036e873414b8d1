package node

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

func mustBuild(t testing.TB, o Options) *Node {
	t.Helper()
	n, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func entryMap(n *Node) map[string]Entry {
	m := map[string]Entry{}
	for _, e := range n.Entries() {
		m[e.Path] = e
	}
	return m
}

// The h100-ndr layout of host gpu001: mlx5_0 on 0000:18:00.0 below switch 0
// of root complex pci0000:15; mlx5_8 the first port of the ConnectX-6 Dx.
const (
	mlx50 = "sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0"
	mlx58 = "sys/devices/pci0000:50/0000:50:01.0/0000:51:00.0"
)

// TestFormatsByteExact pins every attribute format to the kernel's format
// string (drivers/infiniband/core/sysfs.c, drivers/pci/pci-sysfs.c): literal expected bytes, trailing newline
// included.
func TestFormatsByteExact(t *testing.T) {
	m := entryMap(mustBuild(t, Options{}))
	ibp := mlx50 + "/infiniband/mlx5_0/ports/1/"
	rp := mlx58 + "/infiniband/mlx5_8/ports/1/"
	cases := []struct{ path, want string }{
		// drivers/infiniband/core/sysfs.c
		{mlx50 + "/infiniband/mlx5_0/node_type", "1: CA\n"},
		{mlx50 + "/infiniband/mlx5_0/node_guid", "b83f:d203:00f4:b469\n"},
		{mlx50 + "/infiniband/mlx5_0/sys_image_guid", "b83f:d203:00f4:b469\n"},
		{mlx50 + "/infiniband/mlx5_0/fw_ver", "28.39.2048\n"},
		{mlx50 + "/infiniband/mlx5_0/hca_type", "MT4129\n"},
		{mlx50 + "/infiniband/mlx5_0/hw_rev", "0\n"},
		{mlx50 + "/infiniband/mlx5_0/board_id", "MT_0000000838\n"},
		{mlx50 + "/infiniband/mlx5_0/node_desc", "gpu001 mlx5_0\n"},
		{ibp + "state", "4: ACTIVE\n"},
		{ibp + "phys_state", "5: LinkUp\n"},
		{ibp + "rate", "400 Gb/sec (4X NDR)\n"},
		{ibp + "lid", "0x22a1\n"},
		{ibp + "sm_lid", "0x1\n"},
		{ibp + "sm_sl", "0\n"},
		{ibp + "lid_mask_count", "0\n"},
		{ibp + "cap_mask", "0x2651e848\n"},
		{ibp + "link_layer", "InfiniBand\n"},
		{ibp + "gids/0", "fe80:0000:0000:0000:b83f:d203:00f4:b469\n"},
		{ibp + "gids/7", "0000:0000:0000:0000:0000:0000:0000:0000\n"},
		{ibp + "gid_attrs/types/0", "IB/RoCE v1\n"},
		{ibp + "pkeys/0", "0xffff\n"},
		{ibp + "pkeys/127", "0x0000\n"},
		{ibp + "counters/symbol_error", "0\n"},
		{ibp + "counters/port_xmit_data", "2281183867098\n"},
		{ibp + "hw_counters/out_of_buffer", "0\n"},
		{ibp + "hw_counters/lifespan", "10\n"},
		// RoCE (mlx5 main.c mlx5_query_port_roce, translate_eth_proto_oper)
		{rp + "state", "4: ACTIVE\n"},
		{rp + "rate", "100 Gb/sec (4X EDR)\n"},
		{rp + "link_layer", "Ethernet\n"},
		{rp + "lid", "0x0\n"},
		{rp + "cap_mask", "0x04010000\n"},
		{rp + "gids/0", "fe80:0000:0000:0000:0e42:a1ff:fe79:b2e4\n"},
		{rp + "gids/1", "fe80:0000:0000:0000:0e42:a1ff:fe79:b2e4\n"},
		{rp + "gids/2", "0000:0000:0000:0000:0000:ffff:0a6c:196d\n"},
		{rp + "gids/3", "0000:0000:0000:0000:0000:ffff:0a6c:196d\n"},
		{rp + "gids/254", "0000:0000:0000:0000:0000:0000:0000:0000\n"},
		{rp + "gid_attrs/types/0", "IB/RoCE v1\n"},
		{rp + "gid_attrs/types/1", "RoCE v2\n"},
		{rp + "gid_attrs/ndevs/3", "ens1f0np0\n"},
		{rp + "pkeys/0", "0xffff\n"},
		{rp + "hw_counters/rp_cnp_ignored", "0\n"},
		// drivers/pci/pci-sysfs.c
		{mlx50 + "/vendor", "0x15b3\n"},
		{mlx50 + "/device", "0x1021\n"},
		{mlx50 + "/class", "0x020700\n"},
		{mlx50 + "/numa_node", "0\n"},
		{mlx50 + "/local_cpulist", "0-55,112-167\n"},
		{mlx50 + "/current_link_speed", "32.0 GT/s PCIe\n"},
		{mlx50 + "/max_link_speed", "32.0 GT/s PCIe\n"},
		{mlx50 + "/current_link_width", "16\n"},
		{mlx50 + "/max_link_width", "16\n"},
		{mlx58 + "/current_link_speed", "16.0 GT/s PCIe\n"},
		{mlx58 + "/class", "0x020000\n"},
		{"sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0/vendor", "0x10de\n"},
		{"sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0/device", "0x2330\n"},
		{"sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0/class", "0x030200\n"},
		{"sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/class", "0x060400\n"},
		{"sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/vendor", "0x1000\n"},
		{"sys/devices/pci0000:95/0000:95:01.0/numa_node", "1\n"},
		// drivers/pci/pcie/aer.c aer_stats_dev_attr
		{mlx50 + "/aer_dev_correctable", "RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 0\n"},
		{mlx50 + "/aer_dev_fatal", "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nCmpltAbrt 0\nUnxCmplt 0\nRxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 0\nACSViol 0\nUncorrIntErr 0\nBlockedTLP 0\nAtomicOpBlocked 0\nTLPBlockedErr 0\nPoisonTLPBlocked 0\nTOTAL_ERR_FATAL 0\n"},
		{"sys/devices/pci0000:15/0000:15:01.0/aer_rootport_total_err_cor", "0\n"},
		// net/core/net-sysfs.c
		{mlx50 + "/net/ibp24s0/type", "32\n"},
		{mlx50 + "/net/ibp24s0/mtu", "4092\n"},
		{mlx50 + "/net/ibp24s0/speed", "400000\n"},
		{mlx50 + "/net/ibp24s0/operstate", "up\n"},
		{mlx50 + "/net/ibp24s0/carrier", "1\n"},
		{mlx50 + "/net/ibp24s0/address", "00:00:15:be:fe:80:00:00:00:00:00:00:b8:3f:d2:03:00:f4:b4:69\n"},
		{mlx58 + "/net/ens1f0np0/type", "1\n"},
		{mlx58 + "/net/ens1f0np0/address", "0c:42:a1:79:b2:e4\n"},
		{mlx58 + "/net/ens1f0np0/speed", "100000\n"},
		{mlx58 + "/net/ens1f0np0/mtu", "9000\n"},
		{mlx58 + "/net/ens1f0np0/carrier_changes", "2\n"},
		// uverbs and procfs
		{mlx50 + "/infiniband_verbs/uverbs0/ibdev", "mlx5_0\n"},
		{mlx50 + "/infiniband_verbs/uverbs0/dev", "231:192\n"},
		{"sys/class/infiniband_verbs/abi_version", "6\n"},
		{"proc/sys/kernel/hostname", "gpu001\n"},
		{"proc/sys/kernel/osrelease", "6.8.0-52-generic\n"},
		{"dev/infiniband/uverbs0", ""},
		{"dev/infiniband/rdma_cm", ""},
	}
	for _, c := range cases {
		e, ok := m[c.path]
		if !ok {
			t.Errorf("%s: missing", c.path)
			continue
		}
		if e.Kind != KindFile || string(e.Data) != c.want {
			t.Errorf("%s = %q (kind %d), want %q", c.path, e.Data, e.Kind, c.want)
		}
	}
	// mlx5 outside switchdev mode has port-level hw_counters only
	// (drivers/infiniband/hw/mlx5/counters.c, mlx5_ib_counters_init).
	if _, ok := m[mlx50+"/infiniband/mlx5_0/hw_counters/lifespan"]; ok {
		t.Error("device-level hw_counters rendered for a function not in switchdev mode")
	}
	// Empty GID slots and IB ports without a netdev fail to read.
	for _, p := range []string{ibp + "gid_attrs/types/1", ibp + "gid_attrs/ndevs/0", rp + "gid_attrs/types/4", rp + "gid_attrs/ndevs/254"} {
		if m[p].Kind != KindUnreadable {
			t.Errorf("%s: kind %d, want unreadable", p, m[p].Kind)
		}
	}
	// Every counters/ file of PortCountersExt and the mlx5 hw_counters.
	for _, s := range ib.PortCounterSpecs {
		if _, ok := m[ibp+"counters/"+s.Name]; !ok {
			t.Errorf("counter %s missing", s.Name)
		}
	}
	for _, name := range append(append([]string{}, hwBasic...), hwRetrans...) {
		if _, ok := m[ibp+"hw_counters/"+name]; !ok {
			t.Errorf("hw counter %s missing", name)
		}
	}
	if _, ok := m[ibp+"hw_counters/rp_cnp_ignored"]; ok {
		t.Error("IB port has the RoCE congestion counter rp_cnp_ignored")
	}
}

// TestFormatsParse runs every generated attribute through the shared
// parsers: the simulator must produce what the reader accepts.
func TestFormatsParse(t *testing.T) {
	for _, prof := range Profiles() {
		for _, e := range mustBuild(t, Options{Profile: prof.Name}).Entries() {
			if e.Kind != KindFile {
				continue
			}
			base := filepath.Base(e.Path)
			dir := filepath.Base(filepath.Dir(e.Path))
			v := string(e.Data)
			var err error
			switch {
			case base == "rate":
				_, err = ib.ParseRate(v)
			case base == "state" && dir != "power":
				_, err = ib.ParsePortState(v)
			case base == "phys_state":
				_, err = ib.ParsePhysState(v)
			case dir == "gids":
				_, err = ib.ParseGID(v)
			case dir == "types":
				_, err = ib.ParseGIDType(v)
			case dir == "counters" || dir == "hw_counters":
				_, err = ib.ParseCounter(v)
			case base == "node_guid" || base == "sys_image_guid":
				_, err = ib.ParseGUID(v)
			case base == "current_link_speed" || base == "max_link_speed":
				_, err = pcie.ParseSpeed(v)
			case base == "current_link_width" || base == "max_link_width":
				_, err = pcie.ParseWidth(v)
			case base == "vendor" || base == "class" || base == "device" && strings.HasPrefix(e.Path, "sys/devices/") && !strings.Contains(e.Path, "/infiniband"):
				_, err = pcie.ParseHex(v)
			}
			if err != nil {
				t.Errorf("%s %s: %q: %v", prof.Name, e.Path, v, err)
			}
		}
	}
}

func TestProfiles(t *testing.T) {
	cases := []struct {
		profile                 string
		devices, gpus, netdevs  int
		rate0, hca0             string
		speed                   pcie.Speed
		linkLayer0, lastLinkLay ib.LinkLayer
	}{
		{"h100-ndr", 10, 8, 10, "400 Gb/sec (4X NDR)", "MT4129", pcie.Gen5, ib.LinkLayerInfiniBand, ib.LinkLayerEthernet},
		{"a100-hdr", 8, 8, 8, "200 Gb/sec (4X HDR)", "MT4123", pcie.Gen4, ib.LinkLayerInfiniBand, ib.LinkLayerInfiniBand},
		{"roce-400g", 8, 8, 8, "400 Gb/sec (4X NDR)", "MT4129", pcie.Gen5, ib.LinkLayerEthernet, ib.LinkLayerEthernet},
	}
	for _, c := range cases {
		t.Run(c.profile, func(t *testing.T) {
			n := mustBuild(t, Options{Profile: c.profile})
			if len(n.Devices) != c.devices || len(n.GPUs()) != c.gpus || len(n.NetDevs) != c.netdevs {
				t.Fatalf("devices %d gpus %d netdevs %d, want %d %d %d", len(n.Devices), len(n.GPUs()), len(n.NetDevs), c.devices, c.gpus, c.netdevs)
			}
			d0 := n.Devices[0]
			if got := d0.Ports[0].Rate().Sysfs(); got != c.rate0 {
				t.Errorf("rate %q, want %q", got, c.rate0)
			}
			if d0.HCAType != c.hca0 || d0.PCI.CurSpeed != c.speed {
				t.Errorf("hca_type %s speed %s, want %s %s", d0.HCAType, d0.PCI.CurSpeed, c.hca0, c.speed)
			}
			if d0.Ports[0].LinkLayer != c.linkLayer0 || n.Devices[len(n.Devices)-1].Ports[0].LinkLayer != c.lastLinkLay {
				t.Errorf("link layers %s … %s", d0.Ports[0].LinkLayer, n.Devices[len(n.Devices)-1].Ports[0].LinkLayer)
			}
			// Two GPUs and two HCAs share each switch: a GPU's nearest
			// HCA hangs off the same switch upstream port.
			for _, g := range n.GPUs() {
				sw := g.Parent.Parent
				hcas := 0
				for _, d := range n.Devices {
					if d.PCI.Parent != nil && d.PCI.Parent.Parent == sw {
						hcas++
					}
				}
				if hcas != 2 {
					t.Errorf("%s: %d HCAs on its switch %s, want 2", g.Name, hcas, sw.Addr)
				}
			}
		})
	}
	if _, err := Build(Options{Profile: "dgx-1"}); err == nil || !strings.Contains(err.Error(), "h100-ndr") {
		t.Errorf("unknown profile: %v", err)
	}
	if _, err := Build(Options{Host: "bad/host"}); err == nil {
		t.Error("host with a slash accepted")
	}
}

// TestSymlinksRelativeInsideRoot checks every symlink of every profile is
// relative and resolves to an entry inside the root (in memory), then
// writes one root and lets the kernel resolve them; and that the class
// links land where the kernel puts them.
func TestSymlinksRelativeInsideRoot(t *testing.T) {
	for _, prof := range Profiles() {
		n := mustBuild(t, Options{Profile: prof.Name, Faults: MustParseFaults("missing:mlx5_7", "unbound:mlx5_6")})
		m := entryMap(n)
		dirs := map[string]bool{}
		for p := range m {
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				dirs[d] = true
			}
		}
		links := 0
		for _, e := range m {
			if e.Kind != KindSymlink {
				continue
			}
			links++
			if path.IsAbs(e.Target) {
				t.Errorf("%s -> %s is absolute", e.Path, e.Target)
			}
			res := path.Join(path.Dir(e.Path), e.Target)
			if strings.HasPrefix(res, "../") || res == ".." {
				t.Errorf("%s -> %s leaves the root", e.Path, e.Target)
			}
			if _, ok := m[res]; !ok && !dirs[res] {
				t.Errorf("%s -> %s dangles (%s)", e.Path, e.Target, res)
			}
			if strings.Contains(e.Path, "mlx5_7") || strings.Contains(e.Target, "mlx5_7") {
				t.Errorf("missing mlx5_7 still linked: %s", e.Path)
			}
		}
		if links < 100 {
			t.Errorf("%s: only %d symlinks", prof.Name, links)
		}
	}
	root := writtenRoot(t)
	links := 0
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return err
		}
		links++
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Errorf("%s does not resolve: %v", p, err)
		} else if !strings.HasPrefix(real, root+string(filepath.Separator)) {
			t.Errorf("%s -> %s leaves the root", p, real)
		}
		return nil
	})
	if err != nil || links < 100 {
		t.Fatalf("walk: %v, %d links", err, links)
	}
	m := entryMap(mustBuild(t, Options{}))
	want := map[string]string{
		"sys/class/infiniband/mlx5_0":                "../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0/infiniband/mlx5_0",
		mlx50 + "/infiniband/mlx5_0/device":          "../../../0000:18:00.0",
		"sys/bus/pci/devices/0000:18:00.0":           "../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0",
		mlx50 + "/driver":                            "../../../../../../bus/pci/drivers/mlx5_core",
		"sys/bus/pci/drivers/mlx5_core/0000:18:00.0": "../../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0",
		"sys/class/pci_bus/0000:18":                  "../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/pci_bus/0000:18",
		"sys/class/pci_bus/0000:15":                  "../../devices/pci0000:15/pci_bus/0000:15",
		"sys/class/net/ibp24s0":                      "../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0/net/ibp24s0",
		"sys/class/net/ens1f1np1":                    "../../devices/pci0000:50/0000:50:01.0/0000:51:00.1/net/ens1f1np1",
		mlx58 + "/net/ens1f0np0/device":              "../../../0000:51:00.0",
		"sys/class/infiniband_verbs/uverbs0":         "../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0/infiniband_verbs/uverbs0",
		mlx50 + "/infiniband_verbs/uverbs0/device":   "../../../0000:18:00.0",
		"sys/devices/pci0000:15/0000:15:01.0/driver": "../../../bus/pci/drivers/pcieport",
	}
	for p, target := range want {
		if e := m[p]; e.Kind != KindSymlink || e.Target != target {
			t.Errorf("%s -> %q (kind %d), want %q", p, e.Target, e.Kind, target)
		}
	}
}

// writtenRoot is the default node with one unreadable counter, written
// once for the tests that only read it (disk writes are the slow part).
var (
	sharedOnce sync.Once
	sharedRoot string
	sharedErr  error
)

func writtenRoot(t *testing.T) string {
	t.Helper()
	sharedOnce.Do(func() {
		sharedRoot, sharedErr = os.MkdirTemp("", "simroot")
		if sharedErr != nil {
			return
		}
		var n *Node
		if n, sharedErr = Build(Options{Faults: MustParseFaults("unreadable:mlx5_0/1/counters/port_rcv_data")}); sharedErr == nil {
			sharedErr = n.Write(sharedRoot)
		}
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedRoot
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedRoot != "" {
		os.RemoveAll(sharedRoot)
	}
	os.Exit(code)
}

func TestUnreadableFailsForRoot(t *testing.T) {
	root := writtenRoot(t)
	for _, p := range []string{
		"sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data",
		"sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/5",
	} {
		_, err := os.ReadFile(filepath.Join(root, p))
		if !errors.Is(err, syscall.EISDIR) {
			t.Errorf("reading %s: %v, want EISDIR", p, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data")); err != nil || len(b) == 0 {
		t.Errorf("neighbouring counter: %q %v", b, err)
	}
}

func TestDeterministic(t *testing.T) {
	faults := MustParseFaults("down:mlx5_3/1", "flap:mlx5_8/1=2", "aer:gpu2/correctable/BadTLP=4")
	a := mustBuild(t, Options{Faults: faults}).Entries()
	b := mustBuild(t, Options{Faults: faults}).Entries()
	if len(a) != len(b) {
		t.Fatalf("%d vs %d entries", len(a), len(b))
	}
	for i := range a {
		if a[i].Path != b[i].Path || !a[i].equal(b[i]) {
			t.Fatalf("entry %d differs: %s vs %s", i, a[i].Path, b[i].Path)
		}
	}
	// Another host gets other GUIDs and LIDs, the same layout.
	o := mustBuild(t, Options{Host: "gpu002"})
	n := mustBuild(t, Options{})
	if o.Devices[0].NodeGUID == n.Devices[0].NodeGUID || o.Devices[0].Ports[0].LID == n.Devices[0].Ports[0].LID {
		t.Error("host name does not change GUIDs and LIDs")
	}
	if len(o.Entries()) != len(n.Entries()) {
		t.Error("host name changes the layout")
	}
	seen := map[uint64]string{}
	for _, d := range n.Devices {
		if prev, dup := seen[d.NodeGUID]; dup {
			t.Errorf("%s and %s share GUID %x", prev, d.Name, d.NodeGUID)
		}
		seen[d.NodeGUID] = d.Name
	}
}

func TestRelLink(t *testing.T) {
	cases := []struct{ dir, target, want string }{
		{"sys/class/infiniband", "sys/devices/pci0000:15/0000:15:01.0/infiniband/mlx5_0", "../../devices/pci0000:15/0000:15:01.0/infiniband/mlx5_0"},
		{"sys/devices/a/b/infiniband/mlx5_0", "sys/devices/a/b", "../../../b"},
		{"sys/devices/a/b", "sys/bus/pci/drivers/x", "../../../bus/pci/drivers/x"},
		{"sys/bus/pci/devices", "sys/devices/a", "../../../devices/a"},
	}
	for _, c := range cases {
		if got := relLink(c.dir, c.target); got != c.want {
			t.Errorf("relLink(%q, %q) = %q, want %q", c.dir, c.target, got, c.want)
		}
	}
}

func TestProcModulesAndKmsg(t *testing.T) {
	m := entryMap(mustBuild(t, Options{}))
	mods := string(m["proc/modules"].Data)
	for _, want := range []string{
		"nvidia_peermem 16384 0 - Live 0x",
		"mlx5_ib 462848 0 - Live 0x",
		"mlx5_core 2428928 1 mlx5_ib, Live 0x",
		"ib_core 479232 8 nvidia_peermem,rdma_ucm,ib_ipoib,mlx5_ib,ib_uverbs,rdma_cm,iw_cm,ib_cm, Live 0x",
	} {
		if !strings.Contains(mods, "\n"+want) && !strings.HasPrefix(mods, want) {
			t.Errorf("proc/modules lacks %q:\n%s", want, mods)
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(mods, "\n"), "\n") {
		if f := strings.Fields(line); len(f) != 6 && !(len(f) == 7 && f[6] == "(OE)") {
			t.Errorf("proc/modules line %q: %d fields", line, len(f))
		}
	}
	dm := string(m["cmd/dmesg.txt"].Data)
	for _, want := range []string{
		"[    0.000000] Linux version 6.8.0-52-generic ",
		"] mlx5_core 0000:18:00.0: firmware version: 28.39.2048\n",
		"] mlx5_core 0000:18:00.0: 504.112 Gb/s available PCIe bandwidth (32.0 GT/s PCIe x16 link)\n",
		"] mlx5_core 0000:51:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)\n",
		"[   21.874000] mlx5_core 0000:51:00.0 ens1f0np0: Link up\n",
	} {
		if !strings.Contains(dm, want) {
			t.Errorf("dmesg lacks %q", want)
		}
	}
	eth := string(m["cmd/ethtool-S-ens1f0np0.txt"].Data)
	if !strings.HasPrefix(eth, "NIC statistics:\n     rx_packets: ") || !strings.Contains(eth, "\n     rx_prio3_pause: 0\n") {
		t.Errorf("ethtool -S format:\n%s", eth)
	}
	if _, ok := m["cmd/ethtool-S-ibp24s0.txt"]; ok {
		t.Error("IPoIB netdev has ethtool statistics")
	}
}

func TestPCIeBandwidth(t *testing.T) {
	cases := []struct {
		s    pcie.Speed
		w    int
		want string
	}{
		{pcie.Gen5, 16, "504.112 Gb/s"},
		{pcie.Gen5, 8, "252.056 Gb/s"},
		{pcie.Gen4, 16, "252.048 Gb/s"},
		{pcie.Gen3, 16, "126.016 Gb/s"},
		{pcie.Gen1, 1, "2.000 Gb/s"},
		{pcie.Gen2, 4, "16.000 Gb/s"},
	}
	for _, c := range cases {
		if got := bwString(pcieBW(c.s, c.w)); got != c.want {
			t.Errorf("%s x%d = %s, want %s", c.s, c.w, got, c.want)
		}
	}
}

func TestProcAndTopo(t *testing.T) {
	m := entryMap(mustBuild(t, Options{}))
	if e := m["proc/self"]; e.Kind != KindSymlink || e.Target != "48213" {
		t.Errorf("proc/self -> %q", e.Target)
	}
	lim := string(m["proc/48213/limits"].Data)
	for _, want := range []string{
		"Limit                     Soft Limit           Hard Limit           Units     \n",
		"Max locked memory         unlimited            unlimited            bytes     \n",
		"Max stack size            8388608              unlimited            bytes     \n",
		"Max nice priority         0                    0                    \n",
	} {
		if !strings.Contains(lim, want) {
			t.Errorf("limits lacks %q:\n%s", want, lim)
		}
	}
	env := string(m["proc/48213/environ"].Data)
	if !strings.Contains(env, "\x00CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\x00") || !strings.HasSuffix(env, "\x00") {
		t.Errorf("environ %q", env)
	}
	if got := string(m["proc/uptime"].Data); got != "94623.00 18924600.00\n" {
		t.Errorf("proc/uptime %q", got)
	}
	topo := string(m["cmd/nvidia-smi-topo-m.txt"].Data)
	for _, want := range []string{
		"\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1\tNIC2\tNIC3\tNIC4\tNIC5\tNIC6\tNIC7\tNIC8\tNIC9\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n",
		"\nGPU0\t X \tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tPIX\tPIX\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\t0-55,112-167\t0\t\tN/A\n",
		"\nGPU5\tNV18\tNV18\tNV18\tNV18\tNV18\t X \tNV18\tNV18\tSYS\tSYS\tSYS\tSYS\tPIX\tPIX\tNODE\tNODE\tSYS\tSYS\t56-111,168-223\t1\t\tN/A\n",
		"\nNIC8\tNODE\tNODE\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t X \tPIX\t\t\t\t\n",
		"\n\nLegend:\n\n  X    = Self\n",
		"\nNIC Legend:\n\n  NIC0: mlx5_0\n",
		"  NIC9: mlx5_9\n\n",
	} {
		if !strings.Contains(topo, want) {
			t.Errorf("nvidia-smi topo -m lacks %q:\n%s", want, topo)
		}
	}
	// A missing HCA leaves the NIC list; an A100 node has no frontend.
	topo = string(entryMap(mustBuild(t, Options{Profile: "a100-hdr", Faults: MustParseFaults("missing:mlx5_3")}))["cmd/nvidia-smi-topo-m.txt"].Data)
	if strings.Contains(topo, "mlx5_3") || !strings.Contains(topo, "  NIC3: mlx5_4\n") || strings.Contains(topo, "NIC7") {
		t.Errorf("a100 without mlx5_3:\n%s", topo)
	}
}

func TestDistance(t *testing.T) {
	n := mustBuild(t, Options{})
	cases := []struct{ a, b, want string }{
		{"gpu0", "mlx5_0", "PIX"},
		{"gpu0", "mlx5_1", "PIX"},
		{"gpu0", "mlx5_2", "NODE"},
		{"gpu0", "mlx5_4", "SYS"},
		{"gpu7", "mlx5_7", "PIX"},
		{"mlx5_8", "mlx5_9", "PIX"},
		{"gpu4", "mlx5_8", "SYS"},
		{"rp0", "gpu1", "PHB"},
		{"sw0-up", "gpu1", "PIX"},
		{"rp0", "sw0-down0", "PHB"},
	}
	for _, c := range cases {
		if got := Distance(n.Func(c.a), n.Func(c.b)); got != c.want {
			t.Errorf("Distance(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}
