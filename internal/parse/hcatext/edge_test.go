package hcatext

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

func TestCRLFAndTabsReadAlike(t *testing.T) {
	b, err := os.ReadFile("testdata/ibstat-cx6-ib-down-nccl-tests-128.txt")
	if err != nil {
		t.Fatal(err)
	}
	crlf := strings.ReplaceAll(strings.ReplaceAll(string(b), "        ", "\t"), "\n", "\r\n")
	r, err := ParseIBStat(strings.NewReader(crlf), "x")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Snap.Port("mlx5_1", 1)
	if len(r.Skipped) != 0 || p == nil || *p.State != ib.StateDown || *p.PhysState != ib.PhysDisabled {
		t.Fatalf("CRLF/tab copy read differently: %+v %+v", r.Skipped, p)
	}
	if l, ok := r.Locate("sys/class/infiniband/mlx5_1/ports/1/phys_state"); !ok || l.N != 27 || l.Text != "Physical state: Disabled" {
		t.Errorf("Locate phys_state = %+v %v, want line 27", l, ok)
	}
}

// The -v port lines of ucx#10317 under a device header: active_width and
// active_speed make a rate with width and lane speed, and GIDs are typed.
func TestDevinfoVerboseRate(t *testing.T) {
	b, err := os.ReadFile("testdata/ibv_devinfo-v-disabled-ucx-10317.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	in := "hca_id:\tmlx5_1\n\tfw_ver:\t\t28.39.2048\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n" + strings.Join(lines[:13], "\n") + "\n"
	r, err := ParseDevinfo(strings.NewReader(in), "v")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Snap.Port("mlx5_1", 1)
	if p == nil || p.Rate == nil || *p.Rate != ib.NewRate(4, ib.SpeedQDR) || *p.PhysState != ib.PhysDisabled {
		t.Fatalf("port = %+v", p)
	}
	if len(p.GIDs) != 2 || p.GIDs[1].Type != ib.GIDTypeRoCEv2 || p.GIDs[0].Type != ib.GIDTypeIBRoCEv1 {
		t.Errorf("GIDs = %+v", p.GIDs)
	}
	if p.SMSL == nil || *p.SMSL != 0 {
		t.Errorf("sm_sl = %v", p.SMSL)
	}
}

// A down port's -v lines say "invalid" with 0 in parentheses: no rate, no
// complaint.
func TestDevinfoInvalidWidthSpeed(t *testing.T) {
	in := "hca_id:\tmlx5_0\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n\t\t\tactive_width:\t\tinvalid width (0)\n\t\t\tactive_speed:\t\tinvalid speed (0)\n\t\t\tphys_state:\t\tPOLLING (2)\n"
	r, err := ParseDevinfo(strings.NewReader(in), "d")
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Snap.Port("mlx5_0", 1); len(r.Skipped) != 0 || p.Rate != nil || *p.PhysState != ib.PhysPolling {
		t.Errorf("skipped %+v port %+v", r.Skipped, p)
	}
}

func TestRdmaCounters(t *testing.T) {
	one := parseFile(t, "rdma-statistic-qiita.txt").Snap.Port("mlx5_2", 1)
	c, ok := one.HWCounter("rx_write_requests")
	if !ok || c.Value != 18747 {
		t.Errorf("rx_write_requests = %+v %v", c, ok)
	}
	wrapped := parseFile(t, "rdma-statistic-wrapped-iproute2-patch.txt").Snap.Port("mlx5_2", 1)
	for name, want := range map[string]uint64{"rx_read_requests": 4, "rx_atomic_requests": 0, "out_of_buffer": 0, "rx_icrc_encapsulated": 0} {
		if c, ok := wrapped.HWCounter(name); !ok || c.Value != want {
			t.Errorf("wrapped %s = %+v %v, want %d", name, c, ok, want)
		}
	}
}

func TestRdmaOldFormAndTruncation(t *testing.T) {
	r, err := ParseRdma(strings.NewReader("1/1: mlx5_0/1: state ACTIVE physical_state LINK_UP netdev ens1\nlink mlx5_1/1 out_of_buffer 7 out_of_sequence"), "old")
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Snap.Port("mlx5_0", 1); p == nil || !p.IsActive() || p.NetDev != "ens1" {
		t.Errorf("old form port = %+v", p)
	}
	if len(r.Skipped) != 1 || r.Skipped[0].Line != 2 || !strings.Contains(r.Skipped[0].Reason, "truncated") {
		t.Errorf("skipped = %+v", r.Skipped)
	}
}

func TestErrors(t *testing.T) {
	for name, p := range map[string]parser{"ibstat": ParseIBStat, "ibstatus": ParseIBStatus, "devinfo": ParseDevinfo, "rdma": ParseRdma} {
		_, err := p(strings.NewReader("hello\nworld\n"), "paste.txt")
		if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "paste.txt") {
			t.Errorf("%s: err = %v, want ErrNoData naming the file", name, err)
		}
	}
	_, err := ParseRdma(strings.NewReader("link mlx5_0/1 "+strings.Repeat("x", maxLine+1)), "long.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Source != "long.txt" || pe.Line != 1 || !strings.HasPrefix(err.Error(), "long.txt line 1: ") {
		t.Errorf("over-long line: err = %v", err)
	}
}

func seed(f *testing.F) {
	fs, _ := filepath.Glob("testdata/*.txt")
	for _, name := range fs {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
}

func fuzzParser(f *testing.F, p parser) {
	seed(f)
	f.Fuzz(func(t *testing.T, in string) {
		r, err := p(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, d := range r.Snap.Devices {
			if d.Name == "" {
				t.Fatal("device without a name")
			}
			for _, pt := range d.Ports {
				if pt.Device != d.Name {
					t.Fatalf("port %+v under %s", pt, d.Name)
				}
				for _, m := range []*int{pt.ActiveMTU, pt.MaxMTU} {
					if m != nil && !slices.Contains(ibMTUs[1:], *m) {
						t.Fatalf("port %s/%d: MTU %d is not an IB MTU", d.Name, pt.Number, *m)
					}
				}
			}
		}
		lines := strings.Count(in, "\n") + 1
		for _, s := range r.Skipped {
			if s.Line < 1 || s.Line > lines || s.Reason == "" {
				t.Fatalf("bad skip %+v of %d lines", s, lines)
			}
		}
		for path, l := range r.Lines {
			if l.N < 1 || l.N > lines || !strings.HasPrefix(path, "sys/class/infiniband/") && !strings.HasPrefix(path, "sys/bus/pci/devices/") {
				t.Fatalf("value %s from line %d of %d", path, l.N, lines)
			}
		}
	})
}

func FuzzParseIBStat(f *testing.F)   { fuzzParser(f, ParseIBStat) }
func FuzzParseIBStatus(f *testing.F) { fuzzParser(f, ParseIBStatus) }
func FuzzParseDevinfo(f *testing.F)  { fuzzParser(f, ParseDevinfo) }
func FuzzParseRdma(f *testing.F) {
	// sysfs attribute pastes: a grep of the files, a cat with the path
	// wrapped.
	f.Add("/sys/class/infiniband/mlx5_0/ports/1/state:4: ACTIVE\n/sys/class/infiniband/mlx5_0/ports/1/rate:100 Gb/sec (4X EDR)\n")
	f.Add("# cat /sys/class/infiniband/mlx4_0/ports/\n1/state 2: INIT\n# cat /sys/class/infiniband/mlx4_0/ports/2/link_layer\nEthernet\n")
	// The first rdma link output, wrapped; a loop's banners.
	f.Add("1/1: mlx5_0/1: ifname ib0 cap_mask 0x2651e848 lid 0x13 lid_mask_count 0 \nlink_layer InfiniBand\n        phys_state 5: LinkUp rate 100 Gb/sec (4X EDR) sm_lid 0x2 sm_sl 0 state \n4: ACTIVE\n")
	f.Add("/sys/class/infiniband/mlx5_1/ports/1/counters$ for f in *; do\n=== ./link_downed ===\n255\n\n=== ./port_xmit_discards ===\n65535\n")
	f.Add("cd /sys/class/infiniband/hfi1_0/ports/1/hw_counters\nfor i in *; do printf \"%-20.20s  %s\\n\" \"$i\" \"$(<$i)\"; done\nPktDrop               134\nRcAcks                19918731\n")
	fuzzParser(f, ParseRdma)
}

func FuzzParseLshca(f *testing.F) {
	f.Add("Nodes: n1\n----------\n  PCI_addr   |  RDMA  | Net | Numa | LnkStat | IpStat | Link | Rate | LnkCapWidth | LnkStaWidth | HCA_Type\n" +
		"000a:11:00.0 | mlx5_0 | ib0 |  2   |  down   |  down  |  IB  | 10*  |   x16 G3    |   x8 >!<    |  MT4119\n" +
		"000a:11:00.1 | mlx5_1 | ib1 |  2   |  init   |  down  |  IB  | 100  |   x16 G3    |   x8 >!<    |  MT4119\n")
	f.Add("Dev #1\n Desc: ConnectX-6\n FW: 20.26.0282\n------\n RDMA  | Net | Numa | IpStat  | VrtHCA | PLid | Port\nmlx5_0 | ib0 |  0   | up_ip4  |  Phys  |  22  | 1\n")
	fuzzParser(f, ParseLshca)
}

func FuzzParseShowGIDs(f *testing.F) {
	f.Add("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n" +
		"mlx5_0\t1\t0\tfe80:0000:0000:0000:0e42:a1ff:fe5d:4db8\t\t\tv1\tens1f0\nmlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:ac13:003c\t172.19.0.60  \tv2\tens1f0\nn_gids_found=2\n")
	fuzzParser(f, ParseShowGIDs)
}

func TestRdmaRepeatedPortKeepsLaterValue(t *testing.T) {
	r, err := ParseRdma(strings.NewReader("link mlx5_0/1 out_of_buffer 7\nlink mlx5_0/1 out_of_buffer 9\n"), "twice")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Snap.Port("mlx5_0", 1)
	if c, ok := p.HWCounter("out_of_buffer"); len(p.HWCounters) != 1 || !ok || c.Value != 9 {
		t.Errorf("counters %+v", p.HWCounters)
	}
}

// BenchmarkParseIBStat parses a 64-HCA ibstat (a large node pasted whole).
func BenchmarkParseIBStat(b *testing.B) {
	one, err := os.ReadFile("testdata/ibstat-cx6dx-roce-l2fwd-nv-6.txt")
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for i := 0; i < 32; i++ {
		sb.WriteString(strings.NewReplacer("'mlx5_0'", fmt.Sprintf("'mlx5_%d'", 2*i), "'mlx5_1'", fmt.Sprintf("'mlx5_%d'", 2*i+1)).Replace(string(one)))
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := ParseIBStat(strings.NewReader(in), "bench")
		if err != nil || len(r.Snap.Devices) != 64 {
			b.Fatalf("%v %d", err, len(r.Snap.Devices))
		}
	}
}

func TestShift(t *testing.T) {
	r := parseFile(t, "ibstat-ibpanic-gpud-752.txt")
	r.Shift(100)
	if l, ok := r.Locate("sys/class/infiniband/mlx5_7/ports/1/state"); !ok || l.N != 111 {
		t.Errorf("state line %+v", l)
	}
	if r.Skipped[0].Line != 101 {
		t.Errorf("first skip %+v", r.Skipped[0])
	}
}

// ibv_devinfo -v | grep -E 'hca_id|state|active_' drops the "port:" lines.
func TestDevinfoFilteredPaste(t *testing.T) {
	in := "hca_id:\tmlx5_0\n\tfw_ver:\t\t\t\t32.47.1088\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n\t\t\tactive_width:\t\t4X (2)\n\t\t\tactive_speed:\t\t25.0 Gbps (32)\n\t\t\tphys_state:\t\tLINK_UP (5)\n"
	r, err := ParseDevinfo(strings.NewReader(in), "f")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Snap.Port("mlx5_0", 1)
	if p == nil || *p.State != ib.StateDown || *p.PhysState != ib.PhysLinkUp || p.Rate == nil || *p.Rate != ib.NewRate(4, ib.SpeedEDR) {
		t.Fatalf("port %+v", p)
	}
	if len(r.Skipped) != 1 || r.Skipped[0].Line != 3 || !strings.Contains(r.Skipped[0].Reason, "read as port 1") {
		t.Errorf("skipped %+v", r.Skipped)
	}
}

// active_mtu and max_mtu are read in bytes; a number that is no IB MTU, or
// whose enum in parentheses disagrees, is skipped with its line named.
func TestDevinfoMTU(t *testing.T) {
	for _, tt := range []struct {
		active, max string
		wantA       int // 0: not read
		wantM       int
	}{
		{"4096 (5)", "4096 (5)", 4096, 4096},
		{"2048 (4)", "4096 (5)", 2048, 4096},
		{"1024", "4096 (5)", 1024, 4096},
		{"4096 (4)", "4096 (5)", 0, 4096},
		{"9000 (5)", "4096 (5)", 0, 4096},
		{"unknown", "256 (1)", 0, 256},
	} {
		in := "hca_id:\tmlx5_0\n\tport:\t1\n\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\tmax_mtu:\t\t" + tt.max + "\n\t\tactive_mtu:\t\t" + tt.active + "\n\t\tlink_layer:\t\tInfiniBand\n"
		r, err := ParseDevinfo(strings.NewReader(in), "d")
		if err != nil {
			t.Fatal(err)
		}
		p := r.Snap.Port("mlx5_0", 1)
		get := func(v *int) int {
			if v == nil {
				return 0
			}
			return *v
		}
		if p == nil || get(p.ActiveMTU) != tt.wantA || get(p.MaxMTU) != tt.wantM {
			t.Errorf("active %q max %q: got %+v", tt.active, tt.max, p)
		}
		if skipped := len(r.Skipped) > 0; skipped != (tt.wantA == 0) {
			t.Errorf("active %q: skipped %v", tt.active, r.Skipped)
		}
	}
}

// TestDevinfoPortBlockAlone: a port block of ibv_devinfo -v pasted without
// the hca_id line above it (Mellanox/k8s-rdma-shared-dev-plugin#164) is
// read as the port of an unnamed device, with a note; port lines before
// any port: line still have no device.
func TestDevinfoPortBlockAlone(t *testing.T) {
	in := "                port:   1\n                        state:                  PORT_ACTIVE (4)\n" +
		"                        link_layer:             Ethernet\n                        active_width:           1X (1)\n" +
		"                        active_speed:           25.0 Gbps (32)\n                        phys_state:             LINK_UP (5)\n"
	r, err := ParseDevinfo(strings.NewReader(in), "f")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Snap.Port(unnamedDevice, 1)
	if p == nil || *p.State != ib.StateActive || p.Rate == nil || *p.Rate != ib.NewRate(1, ib.SpeedEDR) {
		t.Fatalf("port %+v", p)
	}
	if len(r.Skipped) != 1 || r.Skipped[0].Line != 1 || !strings.Contains(r.Skipped[0].Reason, "without its hca_id") {
		t.Errorf("skipped %+v", r.Skipped)
	}
	if _, err := ParseDevinfo(strings.NewReader("                        state:                  PORT_ACTIVE (4)\n"), "g"); err == nil {
		t.Error("a state line alone parsed")
	}
}

// TestIBStatPortBlockAlone: an ibstat fragment cut to one port block with
// "..." above and below and no CA line (Azure/azhpc-images#76) is read as
// the port of an unnamed device, marked a fragment; the ellipses are
// skipped as cut lines.
func TestIBStatPortBlockAlone(t *testing.T) {
	in := "...\nPort 1:\n                State: Down\n                Physical state: Polling\n...\n"
	r, err := ParseIBStat(strings.NewReader(in), "f")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Snap.Port(unnamedDevice, 1)
	if p == nil || p.State == nil || *p.State != ib.StateDown || p.PhysState == nil || *p.PhysState != ib.PhysPolling {
		t.Fatalf("port %+v", p)
	}
	if len(r.Fragments) != 1 || r.Fragments[0] != unnamedDevice {
		t.Errorf("fragments %v", r.Fragments)
	}
	var reasons []string
	for _, s := range r.Skipped {
		reasons = append(reasons, fmt.Sprintf("%d %s", s.Line, s.Reason))
	}
	want := []string{"1 an ellipsis: lines the poster cut", "2 a port block without its CA '…' line: the device is read as \"unnamed\"", "5 an ellipsis: lines the poster cut"}
	if !slices.Equal(reasons, want) {
		t.Errorf("skipped %q, want %q", reasons, want)
	}
	// A whole ibstat output is no fragment.
	r, err = ParseIBStat(strings.NewReader("CA 'mlx5_0'\n\tPort 1:\n\t\tState: Down\n"), "g")
	if err != nil || len(r.Fragments) != 0 {
		t.Errorf("whole output: fragments %v, err %v", r.Fragments, err)
	}
	// Port fields with no header at all ("ibstat | grep -i state"): each
	// State starts the next port of the unnamed device.
	r, err = ParseIBStat(strings.NewReader("\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tState: Down\n\t\tPhysical state: Polling\n"), "h")
	if err != nil {
		t.Fatal(err)
	}
	if p1, p2 := r.Snap.Port(unnamedDevice, 1), r.Snap.Port(unnamedDevice, 2); p1 == nil || p2 == nil || *p1.State != ib.StateActive || *p2.PhysState != ib.PhysPolling || len(r.Fragments) != 1 {
		t.Errorf("ports %+v %+v, fragments %v", p1, p2, r.Fragments)
	}
	// A field other than State still belongs to no device.
	if _, err := ParseIBStat(strings.NewReader("\t\tPhysical state: Polling\n"), "i"); err == nil {
		t.Error("a physical state alone parsed")
	}
}

// TestShowGIDs: MLNX_OFED show_gids output becomes the ports' GID tables
// (lines from IBM/SpectrumScale_NETWORK_READINESS#4, a CX-6 RoCE port);
// a row without IPv4 keeps its columns apart, a port without a netdev
// is not taken for RoCE, and other lines are skipped with a reason.
func TestShowGIDs(t *testing.T) {
	in := "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n" +
		"---     ----    -----   ---                                     ------------    ---     ---\n" +
		"mlx5_0  1       0       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8                 v1      ens1f0\n" +
		"mlx5_0  1       1       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8                 v2      ens1f0\n" +
		"mlx5_0  1       5       0000:0000:0000:0000:0000:ffff:ac13:003c 172.19.0.60     v2      ens1f0\n" +
		"mlx5_2  1       0       fe80:0000:0000:0000:b8ce:f603:0071:f6fc                 v1\n" +
		"this is prose\n" +
		"n_gids_found=4\n"
	r, err := ParseShowGIDs(strings.NewReader(in), "f")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Snap.Port("mlx5_0", 1)
	if p == nil || len(p.GIDs) != 3 || p.NetDev != "ens1f0" || p.LinkLayer != ib.LinkLayerEthernet {
		t.Fatalf("mlx5_0/1 %+v", p)
	}
	if g := p.GIDs[2]; g.Index != 5 || g.Type != ib.GIDTypeRoCEv2 || g.NetDev != "ens1f0" || g.GID.String() != "0000:0000:0000:0000:0000:ffff:ac13:003c" {
		t.Errorf("row 5 %+v", g)
	}
	if g := p.GIDs[0]; g.Type != ib.GIDTypeIBRoCEv1 || !g.GID.IsLinkLocal() {
		t.Errorf("row 0 %+v", g)
	}
	if q := r.Snap.Port("mlx5_2", 1); q == nil || q.LinkLayer != "" || len(q.GIDs) != 1 {
		t.Errorf("mlx5_2/1 %+v", q)
	}
	if l, ok := r.Locate("sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types"); !ok || l.N != 3 {
		t.Errorf("evidence line %+v %v", l, ok)
	}
	if len(r.Skipped) != 1 || r.Skipped[0].Line != 7 {
		t.Errorf("skipped %+v", r.Skipped)
	}
	if r.Unclosed != nil {
		t.Errorf("a closed table names %+v unclosed", r.Unclosed)
	}
	// Without its closing line (NVIDIA/nccl#1573, cut in mlx5_2) the
	// table names the port of its last row.
	cut := "mlx5_1\t1\t7\t0000:0000:0000:0000:0000:ffff:0a98:040c\t10.152.4.12  \tv2\tnet2\n" +
		"mlx5_2\t1\t4\tfe80:0000:0000:0000:90ea:b5ff:fec5:3f24\t\t\tv1\tnet3\n"
	if r, err := ParseShowGIDs(strings.NewReader(cut), "c"); err != nil || r.Unclosed == nil || *r.Unclosed != (PortName{"mlx5_2", 1}) {
		t.Errorf("cut table: %v, unclosed %+v", err, r)
	}
	if _, err := ParseShowGIDs(strings.NewReader("DEV PORT INDEX GID IPv4 VER DEV\nn_gids_found=0\n"), "g"); !errors.Is(err, ErrNoData) {
		t.Errorf("empty table: %v", err)
	}
}

// TestShowGIDsWrappedRow: a row wrapped before its VER column (a mail
// client or a narrow terminal, rows of NVIDIA/nccl#1538) is one row with
// the line that holds only VER [DEV]; a row whose next line is something
// else is skipped for its missing VER, as before.
func TestShowGIDsWrappedRow(t *testing.T) {
	rows := "mlx5_0\t1\t6\t0000:0000:0000:0000:0000:ffff:0a9c:8184\t10.156.129.132  \tv1\tnet1\n" +
		"mlx5_0\t1\t7\t0000:0000:0000:0000:0000:ffff:0a9c:8184\t10.156.129.132\n" +
		"\tv2\tnet1\n"
	tests := []struct {
		name   string
		in     string
		gids   int    // of mlx5_0 port 1
		last   string // type of its last GID
		skip   []int  // lines skipped
		netdev string
	}{
		{"wrapped after the IPv4 column", rows, 2, "RoCE v2", nil, "net1"},
		{"wrapped after the GID", "mlx5_0\t1\t7\t0000:0000:0000:0000:0000:ffff:0a9c:8184\n  v2 net1\n", 1, "RoCE v2", nil, "net1"},
		{"no VER and the next row", "mlx5_0\t1\t6\t0000:0000:0000:0000:0000:ffff:0a9c:8184\t10.156.129.132\n" +
			"mlx5_0\t1\t7\t0000:0000:0000:0000:0000:ffff:0a9c:8184\t10.156.129.132\tv2\tnet1\n", 1, "RoCE v2", []int{1}, "net1"},
		{"no VER at the end", "mlx5_0\t1\t4\tfe80:0000:0000:0000:c025:a1ff:fe31:2e81\tv1\tnet1\nmlx5_0\t1\t5\tfe80:0000:0000:0000:c025:a1ff:fe31:2e81\n", 1, "IB/RoCE v1", []int{2}, "net1"},
		{"a VER line alone", "\tv2\tnet1\n", 0, "", []int{1}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseShowGIDs(strings.NewReader(tt.in), "w")
			if tt.gids == 0 {
				if !errors.Is(err, ErrNoData) {
					t.Fatalf("err %v, want ErrNoData", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := r.Snap.Port("mlx5_0", 1)
			if p == nil || len(p.GIDs) != tt.gids || string(p.GIDs[len(p.GIDs)-1].Type) != tt.last || p.NetDev != tt.netdev {
				t.Fatalf("port %+v", p)
			}
			var skipped []int
			for _, s := range r.Skipped {
				skipped = append(skipped, s.Line)
			}
			if !slices.Equal(skipped, tt.skip) {
				t.Errorf("skipped lines %v, want %v", skipped, tt.skip)
			}
		})
	}
	// The joined row's evidence is its first line.
	r, _ := ParseShowGIDs(strings.NewReader(rows), "w")
	if l, ok := r.Locate("sys/class/infiniband/mlx5_0/ports/1/gids/7"); !ok || l.N != 2 {
		t.Errorf("evidence of the wrapped row: %+v %v", l, ok)
	}
}

// TestRdmaSysfsAttributes: a grep of the port attribute files
// (`grep "" /sys/class/infiniband/*/ports/*/{state,rate,phys_state}`,
// stackhpc/ansible-slurm-appliance#988) and a manual's cat of them, with
// the path wrapped after "ports/", are read as the ports' state, rate and
// link layer.
func TestRdmaSysfsAttributes(t *testing.T) {
	grep := "/sys/class/infiniband/mlx5_0/ports/1/state:4: ACTIVE\n/sys/class/infiniband/mlx5_0/ports/1/rate:100 Gb/sec (4X EDR)\n/sys/class/infiniband/mlx5_0/ports/1/phys_state:5: LinkUp\n/sys/class/infiniband/mlx5_0/ports/1/link_layer:InfiniBand\n"
	r, err := ParseRdma(strings.NewReader(grep), "g")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Snap.Port("mlx5_0", 1)
	if p == nil || !p.IsActive() || p.PhysState == nil || *p.PhysState != ib.PhysLinkUp || p.Rate == nil || p.Rate.Gbps() != 100 || p.LinkLayer != ib.LinkLayerInfiniBand || len(r.Skipped) != 0 {
		t.Errorf("grep: port %+v, skipped %+v", p, r.Skipped)
	}
	cat := "# cat /sys/class/infiniband/mlx4_0/ports/\n1/state 2: INIT\n# cat /sys/class/infiniband/mlx4_0/ports/2/state\n4: ACTIVE\n#\n# cat /sys/class/infiniband/mlx4_0/ports/2/link_layer\nEthernet\n"
	r, err = ParseRdma(strings.NewReader(cat), "c")
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := r.Snap.Port("mlx4_0", 1), r.Snap.Port("mlx4_0", 2)
	if p1 == nil || p1.State == nil || *p1.State != ib.StateInit || p2 == nil || !p2.IsActive() || p2.LinkLayer != ib.LinkLayerEthernet {
		t.Errorf("cat: ports %+v %+v, skipped %+v", p1, p2, r.Skipped)
	}
	// A rate not in the kernel's format is skipped with its line, not
	// guessed.
	r, _ = ParseRdma(strings.NewReader("/sys/class/infiniband/mlx5_0/ports/1/state:4: ACTIVE\n/sys/class/infiniband/mlx5_0/ports/1/rate:fast\n"), "bad")
	if r == nil || len(r.Skipped) != 1 || r.Skipped[0].Line != 2 || r.Snap.Port("mlx5_0", 1).Rate != nil {
		t.Errorf("bad rate: %+v", r)
	}
}

// TestIBStatusFatal: the ibstatus script's fatal errors about devices
// are read as devices it says do not exist (clustervision/trinity#219:
// "Fatal error:  device '*': sys files not found
// (/sys/class/infiniband/*/ports)" on a node with no RDMA device; the
// Open MPI users list of 2012 quotes it with the path wrapped onto the
// next line); other "Fatal error:" lines are not.
func TestIBStatusFatal(t *testing.T) {
	tests := []struct {
		name, in string
		absent   []string // device names, "" for none at all
		ports    int
		err      bool
	}{
		{"no device at all", "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)\n", []string{""}, 0, false},
		{"path wrapped", "Fatal error:  device '*': sys files not found\n(/sys/class/infiniband/*/ports)\n", []string{""}, 0, false},
		{"no class directory", "Fatal error:  No devices\n", []string{""}, 0, false},
		{"a named device", "Infiniband device 'mlx5_0' port 1 status:\n\tstate:\t\t 4: ACTIVE\n\nFatal error:  device 'mlx5_4': sys files not found (/sys/class/infiniband/mlx5_4/ports)\n", []string{"mlx5_4"}, 1, false},
		{"another fatal error", "Fatal error:  cannot open file\n", nil, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseIBStatus(strings.NewReader(tt.in), "f")
			if (err != nil) != tt.err {
				t.Fatalf("err %v", err)
			}
			if err != nil {
				return
			}
			var got []string
			for _, a := range r.Absent {
				got = append(got, a.Device)
				if !strings.HasPrefix(a.Line.Text, "Fatal error:") {
					t.Errorf("line %+v", a.Line)
				}
			}
			if !slices.Equal(got, tt.absent) || r.Ports() != tt.ports || len(r.Skipped) != 0 {
				t.Errorf("absent %q ports %d skipped %+v, want %q %d", got, r.Ports(), r.Skipped, tt.absent, tt.ports)
			}
		})
	}
}

// TestDevinfoAbsent: ibv_devinfo's "No IB devices found" and "IB device
// 'mlx5_4' wasn't found" (libibverbs/examples/devinfo.c) are read as
// devices it says do not exist.
func TestDevinfoAbsent(t *testing.T) {
	tests := []struct {
		in     string
		absent []string
	}{
		{"No IB devices found\n", []string{""}},
		{"0 HCAs found:\n", []string{""}}, // ibv_devinfo -l
		{"IB device 'mlx5_4' wasn't found\n", []string{"mlx5_4"}},
		{"hca_id:\tmlx5_0\n\tport:\t1\n\t\tstate:\t\t\tPORT_ACTIVE (4)\n", nil},
	}
	for _, tt := range tests {
		r, err := ParseDevinfo(strings.NewReader(tt.in), "f")
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		var got []string
		for _, a := range r.Absent {
			got = append(got, a.Device)
		}
		if !slices.Equal(got, tt.absent) {
			t.Errorf("%q: absent %q, want %q", tt.in, got, tt.absent)
		}
	}
	if _, ok := DevinfoAbsent("IB device 'a b' wasn't found"); ok {
		t.Error("a name with a blank")
	}
}

// TestVerbsWarnings: libibverbs' warnings about devices it cannot use,
// printed before ibv_devinfo's output (NVIDIA/caffe#590: five uverbs
// devices without a provider, then "0 HCAs found:" of ibv_devinfo -l).
func TestVerbsWarnings(t *testing.T) {
	tests := []struct {
		in      string
		want    []VerbsWarn
		devices int
		absent  int
	}{
		{"libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs4\n" +
			"libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0\n0 HCAs found:\n",
			[]VerbsWarn{{VerbsNoProvider, "uverbs4", Line{1, "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs4"}},
				{VerbsNoProvider, "uverbs0", Line{2, "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0"}}}, 0, 1},
		{"libibverbs: Warning: couldn't load driver 'libvmw_pvrdma-rdmav34.so': libvmw_pvrdma-rdmav34.so: cannot open shared object file: No such file or directory\n" +
			"hca_id:\tmlx5_0\n\tport:\t1\n\t\tstate:\t\t\tPORT_ACTIVE (4)\n",
			[]VerbsWarn{{VerbsLoadFailed, "libvmw_pvrdma-rdmav34.so", Line{1, "libibverbs: Warning: couldn't load driver 'libvmw_pvrdma-rdmav34.so': libvmw_pvrdma-rdmav34.so: cannot open shared object file: No such file or directory"}}}, 1, 0},
		{"libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.\nNo IB devices found\n",
			[]VerbsWarn{{VerbsNoConfig, "/etc/libibverbs.d", Line{1, "libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'."}}}, 0, 1},
		// k8snetworkplumbingwg/sriov-cni#348: a pod's bnxt_re provider
		// against the host driver's uverbs ABI.
		{"libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2\nNo IB devices found\n",
			[]VerbsWarn{{VerbsABIMismatch, "bnxt_re2", Line{1, "libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2"}}}, 0, 1},
		{"libibverbs: Warning: Driver mlx4 does not support the kernel ABI of 3 (supports 4 to 4)\nNo IB devices found\n",
			[]VerbsWarn{{VerbsABIMismatch, "mlx4", Line{1, "libibverbs: Warning: Driver mlx4 does not support the kernel ABI of 3 (supports 4 to 4)"}}}, 0, 1},
	}
	for _, tt := range tests {
		r, err := ParseDevinfo(strings.NewReader(tt.in), "f")
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if !slices.Equal(r.Verbs, tt.want) || len(r.Snap.Devices) != tt.devices || len(r.Absent) != tt.absent || len(r.Skipped) != 0 {
			t.Errorf("%q: verbs %+v devices %d absent %d skipped %+v", tt.in, r.Verbs, len(r.Snap.Devices), len(r.Absent), r.Skipped)
		}
	}
	// Warnings alone are still an output: the devices the kernel has.
	if r, err := ParseDevinfo(strings.NewReader("libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs1\n"), "f"); err != nil || len(r.Verbs) != 1 {
		t.Errorf("warning alone: %+v %v", r, err)
	}
	// The same session pasted as rdma link, then ibv_devinfo: the
	// warnings and "No IB devices found" are read, not skipped.
	in := "link bnxt_re0/1 state ACTIVE physical_state LINK_UP\nlink bnxt_re2/1 state ACTIVE physical_state LINK_UP\n\n" +
		"libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2\nNo IB devices found\n"
	if r, err := ParseRdma(strings.NewReader(in), "f"); err != nil || len(r.Verbs) != 1 || r.Verbs[0].Kind != VerbsABIMismatch || len(r.Absent) != 1 || len(r.Snap.Devices) != 2 || len(r.Skipped) != 0 {
		t.Errorf("rdma link then ibv_devinfo: %+v %v", r, err)
	}
	for _, l := range []string{"libibverbs: Warning: fork()-safety requested but init failed", "Libibverbs: Warning: Driver mlx4 does not support", "Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0"} {
		if w, ok := VerbsWarning(l); ok {
			t.Errorf("VerbsWarning(%q) = %+v", l, w)
		}
	}
}
