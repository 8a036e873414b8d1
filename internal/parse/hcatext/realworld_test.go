package hcatext

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
)

// TestRealWorldHCA parses the HCA tool outputs people pasted in public
// threads (the analyze corpus) and judges them as pasted: what each port
// was read as, which lines were left, and the findings.
func TestRealWorldHCA(t *testing.T) {
	dir := filepath.Join("..", "..", "diagnose", "analyze", "testdata", "realworld")
	tests := []struct {
		file     string
		port     map[string]string // "dev/n" -> "STATE Phys"
		skipped  []int
		findings []string
	}{
		{"ibstat-ceph-17018.txt", map[string]string{"mlx4_0/1": "ACTIVE LinkUp", "mlx4_0/2": "ACTIVE LinkUp"}, []int{1}, nil},
		// GUIDs redacted as "...": unknown, not malformed. Base lid 868
		// from an SM: the Polling port was in use.
		{"ibstat-gpud-482.txt", map[string]string{"mlx5_10/1": "DOWN Polling"}, nil, []string{"port.polling/critical mlx5_10/1"}},
		{"ibstat-gpud-testdata-h100-polling.txt", map[string]string{"mlx5_11/1": "DOWN Polling", "mlx5_5/1": "DOWN Disabled", "mlx5_0/1": "ACTIVE LinkUp"}, nil,
			[]string{"port.polling/critical mlx5_11/1", "port.disabled/warning mlx5_5/1"}},
		// CA names renamed to netdev style. A port Disabled without a
		// LID beside ACTIVE ones of its model may be off on purpose: a
		// warning; the one DOWN with its link up is cabled: critical.
		{"ibstat-linux-rdma-zarzycki-socketdirect.txt", map[string]string{"ibp2s0f0/1": "ACTIVE LinkUp", "ibp3s0f0/1": "DOWN LinkUp"}, nil,
			[]string{"port.down/critical ibp3s0f0/1", "port.disabled/warning ibp2s0f1/1", "port.disabled/warning ibp3s0f1/1"}},
		// Notes glued after "CA 'mlx4_0'" and a Port GUID, a stray quote.
		// Port 2 of both dual-port cards Polling beside their ACTIVE
		// port 1: the cards' spare ports, so warnings.
		{"ibstat-magnate3-annotated-mlx4.txt", map[string]string{"mlx4_0/1": "ACTIVE LinkUp", "mlx4_0/2": "DOWN Polling", "mlx4_1/2": "DOWN Polling"}, []int{1},
			[]string{"port.polling/warning mlx4_0/2", "port.polling/warning mlx4_1/2"}},
		{"ibstat-network-operator-249.txt", map[string]string{"mlx5_7/1": "DOWN LinkUp"}, []int{1}, []string{"port.down/critical mlx5_7/1"}},
		{"ibstatus-gpud-testdata-a100.txt", map[string]string{"mlx5_8/1": "ACTIVE LinkUp"}, []int{74}, nil},
		// Blanks that a web archive turned into no-break spaces.
		{"ibv_devinfo-linux-rdma-andrei-cx7.txt", map[string]string{"mlx5_2/1": "ACTIVE -", "mlx5_3/1": "ACTIVE -"}, nil, nil},
		// Ethernet ports DISABLED beside an ACTIVE port of another model:
		// a paste asks about them, so a warning.
		{"ibv_devinfo-magnate3-bond-v.txt", map[string]string{"mlx5_0/1": "DOWN Disabled", "mlx5_2/1": "ACTIVE LinkUp"}, []int{1},
			[]string{"port.disabled/warning mlx5_0/1", "port.disabled/warning mlx5_4/1"}},
		// Mail-wrapped "rdma stat show": names and values split across
		// lines are joined back, nothing left over.
		{"rdma-statistic-linux-rdma-stat-wrapped.txt", map[string]string{"mlx5_0/1": "- -"}, []int{1}, nil},
		{"rdma-statistic-linux-rdma-optional-counters.txt", map[string]string{"rocep8s0f0/1": "- -"}, []int{2}, nil},
		// show_counters' "Port 1 hw counters:" list.
		{"hw_counters-magnate3-uc-drop.txt", map[string]string{"mlx5_1/1": "- -"}, nil, nil},
		{"rdma-link-magnate3-irdma.txt", map[string]string{"irdma0/1": "DOWN Disabled", "irdma1/1": "ACTIVE LinkUp"}, []int{1}, []string{"port.disabled/warning irdma0/1"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			r, err := parserFor(tt.file)(strings.NewReader(string(b)), tt.file)
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tt.port {
				dev, n, _ := rdmaName(name)
				p := r.Snap.Port(dev, n)
				if p == nil {
					t.Errorf("port %s missing", name)
					continue
				}
				got := []string{"-", "-"}
				if p.State != nil {
					got[0] = p.State.String()
				}
				if p.PhysState != nil {
					got[1] = p.PhysState.String()
				}
				if s := strings.Join(got, " "); s != want {
					t.Errorf("port %s = %q, want %q", name, s, want)
				}
			}
			var lines []int
			for _, s := range r.Skipped {
				lines = append(lines, s.Line)
			}
			if !slices.Equal(lines, tt.skipped) {
				t.Errorf("skipped lines %v, want %v (%+v)", lines, tt.skipped, r.Skipped)
			}
			var got []string
			for _, f := range noderules.CheckPasted(r.Snap, nil) {
				got = append(got, fmt.Sprintf("%s/%s %s/%d", f.ID, f.Severity, f.Subject.Device, f.Subject.Port))
			}
			if !slices.Equal(got, tt.findings) {
				t.Errorf("findings %q, want %q", got, tt.findings)
			}
		})
	}
}

// TestStateForms: every way the tools (and people) print a port state.
func TestStateForms(t *testing.T) {
	for in, want := range map[string]int{
		"Active": 4, "ACTIVE": 4, "active": 4, "PORT_ACTIVE (4)": 4, "PORT_ACTIVE": 4, "4: ACTIVE": 4, "4": 4,
		"Initializing": 2, "PORT_INIT (2)": 2, "2: INIT": 2, "init": 2, "Armed": 3, "Down": 1, "PORT_DOWN (1)": 1,
		"ACTIVE_DEFER": 5, "Active (see above)": 4,
		"Bogus": 0, "": 0, "9": 0, "0": 0,
	} {
		got, ok := readState(in, portStateAliases)
		if got != want || ok != (want != 0) {
			t.Errorf("readState(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for in, want := range map[string]int{
		"LinkUp": 5, "LINK_UP": 5, "link_up": 5, "5: LinkUp": 5, "LINK_UP (5)": 5, "Polling": 2, "POLLING": 2,
		"DISABLED (3)": 3, "Disabled": 3, "PortConfigurationTraining": 4, "LinkErrorRecovery": 6, "Link Up": 5,
		"Sleepy": 0,
	} {
		got, ok := readState(in, physStateAliases)
		if got != want || ok != (want != 0) {
			t.Errorf("readState(%q, phys) = %d, %v; want %d", in, got, ok, want)
		}
	}
}

// TestPastedVariants: lines as people leave them in a paste.
func TestPastedVariants(t *testing.T) {
	tests := []struct {
		name, text, port, want string
		parse                  parser
	}{
		{"ibstat without indentation, glued note", "CA 'mlx5_0' <-- this one\nCA type: MT4123\nPort 1:\nState: Initializing\nPhysical state: LinkUp ——> cabled\nRate: 200\nSM lid: 0\nLink layer: InfiniBand\n", "mlx5_0/1", "INIT LinkUp", ParseIBStat},
		{"ibstat cut after Physical state", "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Armed\n\t\tPhysical state: LinkUp\n", "mlx5_0/1", "ARMED LinkUp", ParseIBStat},
		{"ibstat shifted by one space", " CA 'mlx5_0'\n \tPort 1:\n \t\tState: Down\n \t\tPhysical state: Polling\n", "mlx5_0/1", "DOWN Polling", ParseIBStat},
		{"ibv_devinfo numeric state", "hca_id:\tmlx5_0\n\tport:\t1\n\t\tstate:\t\t\t4\n\t\tphys_state:\t\tLINK_UP\n", "mlx5_0/1", "ACTIVE LinkUp", ParseDevinfo},
		{"ibv_devinfo names only", "hca_id:\trxe0\n\tport:\t1\n\t\tstate:\t\t\tPORT_ACTIVE\n\t\tlink_layer:\t\tEthernet\n", "rxe0/1", "ACTIVE -", ParseDevinfo},
		{"rdma lower case", "link irdma0/1 state down physical_state disabled netdev ens1\n", "irdma0/1", "DOWN Disabled", ParseRdma},
		{"ibstatus sysfs form", "Infiniband device 'mlx5_0' port 1 status:\n\tstate:\t\t 2: INIT\n\tphys state:\t 5: LinkUp\n", "mlx5_0/1", "INIT LinkUp", ParseIBStatus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.parse(strings.NewReader(tt.text), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			dev, n, _ := rdmaName(tt.port)
			p := r.Snap.Port(dev, n)
			if p == nil {
				t.Fatalf("port %s missing (%+v)", tt.port, r.Skipped)
			}
			got := []string{"-", "-"}
			if p.State != nil {
				got[0] = p.State.String()
			}
			if p.PhysState != nil {
				got[1] = p.PhysState.String()
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("port = %q, want %q (skipped %+v)", s, tt.want, r.Skipped)
			}
		})
	}
	for in, want := range map[string]bool{"...": true, "xxxx": true, "<redacted>": true, "0x...": true, "0x0c42a10300123456": false, "": false} {
		if redacted(in) != want {
			t.Errorf("redacted(%q) = %v", in, !want)
		}
	}
}

// TestCounterLists: hw counters as show_counters and grep print them, and
// an rdma statistic line wrapped between a name and its value.
func TestCounterLists(t *testing.T) {
	tests := []struct {
		name, text string
		want       map[string]uint64 // "dev/port name" -> value
	}{
		{"show_counters", "show_counters mlx5_1\nPort 1 hw counters:\nout_of_buffer: 7\nresp_cqe_error: 3\n",
			map[string]uint64{"mlx5_1/1 out_of_buffer": 7, "mlx5_1/1 resp_cqe_error": 3}},
		{"grep of sysfs", "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence:12\n/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_discards:5\n",
			map[string]uint64{"mlx5_0/1 out_of_sequence": 12, "mlx5_0/1 counters/port_xmit_discards": 5}},
		{"wrapped between name and value", "link mlx5_0/1 rx_write_requests 0 out_of_buffer\n9 packet_seq_err\n4\n",
			map[string]uint64{"mlx5_0/1 out_of_buffer": 9, "mlx5_0/1 packet_seq_err": 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRdma(strings.NewReader(tt.text), "c.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Skipped) > 0 {
				t.Errorf("skipped %+v", r.Skipped)
			}
			for k, want := range tt.want {
				port, name, _ := strings.Cut(k, " ")
				dev, n, _ := rdmaName(port)
				p := r.Snap.Port(dev, n)
				if p == nil {
					t.Fatalf("port %s missing", port)
				}
				c, ok := p.HWCounter(name)
				if pc, isPort := strings.CutPrefix(name, "counters/"); isPort {
					c, ok = p.Counter(pc)
				}
				if !ok || c.Value != want {
					t.Errorf("%s = %v (%v), want %d", k, c.Value, ok, want)
				}
			}
		})
	}
}

// TestWinOFIBStat: the ibstat of Mellanox WinOF (Windows) names the device
// ibv_device0, leaves CA type empty, prints "Link layer: IB" and ends each
// port with "Transport: IB" (gist necr0n/fbf808f33b3c5547b818bd8f360d542f,
// its indentation lost); a port Initializing with its link up is read as
// INIT, nothing skipped.
func TestWinOFIBStat(t *testing.T) {
	const paste = "CA 'ibv_device0'\nCA type:\nNumber of ports: 1\nFirmware version: 2.42.5000\nHardware version: 0x0\n" +
		"Node GUID: 0x0002c903000232da\nSystem image GUID: 0x0002c903000232dd\nPort 1:\nState: Initializing\nPhysical state: LinkUp\n" +
		"Rate: 56\nBase lid: 1\nLMC: 0\nSM lid: 1\nCapability mask: 0x90580000\nPort GUID: 0x0002c903000232db\nLink layer: IB\nTransport: IB\n"
	for _, tt := range []struct {
		name, text string
		ll         ib.LinkLayer
	}{
		{"as printed", paste, ib.LinkLayerInfiniBand},
		{"Transport only", strings.Replace(paste, "Link layer: IB\n", "", 1), ib.LinkLayerInfiniBand},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseIBStat(strings.NewReader(tt.text), "winof.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Skipped) != 0 {
				t.Errorf("skipped %+v", r.Skipped)
			}
			p := r.Snap.Port("ibv_device0", 1)
			if p == nil || p.State == nil || *p.State != ib.StateInit || p.PhysState == nil || *p.PhysState != ib.PhysLinkUp || p.LinkLayer != tt.ll {
				t.Fatalf("port %+v", p)
			}
			if p.LID == nil || *p.LID != 1 || p.SMLID == nil || *p.SMLID != 1 {
				t.Errorf("LID %v SM lid %v", p.LID, p.SMLID)
			}
		})
	}
}

// TestEarlyRdmaLink: the first `rdma link` output (Leon Romanovsky's
// iproute2 patch on netdev, 2017, mail-archive msg167180), each record
// wrapped by the archive onto four lines with trailing blanks, values
// holding blanks ("5: LinkUp", "100 Gb/sec (4X EDR)", "state 1:" then
// "DOWN" on the next line).
func TestEarlyRdmaLink(t *testing.T) {
	const paste = " # rdma link\n" +
		"1/1: mlx5_0/1: ifname ib0 cap_mask 0x2651e848 lid 0x13 lid_mask_count 0 \n" +
		"link_layer InfiniBand\n" +
		"        phys_state 5: LinkUp rate 100 Gb/sec (4X EDR) sm_lid 0x2 sm_sl 0 state \n" +
		"4: ACTIVE\n" +
		"2/1: mlx5_1/1: ifname ib1 cap_mask 0x2651e848 lid 0xffff lid_mask_count 0 \n" +
		"link_layer InfiniBand\n" +
		"        phys_state 3: Disabled rate 10 Gb/sec (4X) sm_lid 0x0 sm_sl 0 state 1: \n" +
		"DOWN\n" +
		"3/1: mlx5_2/1: ifname ib2 cap_mask 0x26516848 lid 0x1a lid_mask_count 0 \n" +
		"link_layer InfiniBand\n" +
		"        phys_state 5: LinkUp rate 56 Gb/sec (4X FDR) sm_lid 0x2 sm_sl 0 state \n" +
		"4: ACTIVE\n" +
		"\n" +
		"Print all links for specific device:\n"
	r, err := ParseRdma(strings.NewReader(paste), "mail.txt")
	if err != nil {
		t.Fatal(err)
	}
	type port struct {
		state, phys, netdev, rate string
		lid, smlid                uint32
	}
	want := map[string]port{
		"mlx5_0/1": {"ACTIVE", "LinkUp", "ib0", "100 Gb/s 4X EDR", 0x13, 2},
		"mlx5_1/1": {"DOWN", "Disabled", "ib1", "10 Gb/s 4X SDR", 0xffff, 0},
		"mlx5_2/1": {"ACTIVE", "LinkUp", "ib2", "56 Gb/s 4X FDR", 0x1a, 2},
	}
	for name, w := range want {
		dev, n, _ := rdmaName(name)
		p := r.Snap.Port(dev, n)
		if p == nil || p.State == nil || p.PhysState == nil || p.Rate == nil || p.LID == nil || p.SMLID == nil {
			t.Errorf("%s: %+v", name, p)
			continue
		}
		got := port{p.State.String(), p.PhysState.String(), p.NetDev, p.Rate.String(), *p.LID, *p.SMLID}
		if got != w || p.LinkLayer != ib.LinkLayerInfiniBand {
			t.Errorf("%s = %+v %s, want %+v", name, got, p.LinkLayer, w)
		}
	}
	// The state's evidence is the line its value ends on.
	if ev := r.Lines[portPath("mlx5_1", 1, "state")]; ev.N != 9 || ev.Text != "DOWN" {
		t.Errorf("state evidence %+v, want line 9", ev)
	}
	var lines []int
	for _, s := range r.Skipped {
		lines = append(lines, s.Line)
	}
	if !slices.Equal(lines, []int{1, 15}) {
		t.Errorf("skipped %+v, want the prompt and the prose after the records", r.Skipped)
	}
}

// TestCounterLoopBanners: port counters printed by a shell loop, each file
// under an "=== name ===" banner and its value on the next line
// (leptonai/gpud#943: `for file in $(find . -type f); do echo "=== $file
// ==="; cat "$file"; echo; done` run in a port's counters directory,
// which the prompt names).
func TestCounterLoopBanners(t *testing.T) {
	const loop = "/sys/class/infiniband/mlx5_1/ports/1/counters$ for file in $(find . -type f); do\n" +
		"    echo \"=== $file ===\"\n    cat \"$file\"\n    echo\ndone\n" +
		"=== ./port_xmit_wait ===\n4294967295\n\n=== ./excessive_buffer_overrun_errors ===\n15\n\n" +
		"=== ./link_downed ===\n255\n\n=== ./port_xmit_discards ===\n65535\n\n=== ./symbol_error ===\n0\n"
	for _, tt := range []struct {
		name, text string
		dev        string
		want       map[string]uint64
		wantLine   int
	}{
		{"relative names under a prompt's directory", loop, "mlx5_1",
			map[string]uint64{"link_downed": 255, "port_xmit_discards": 65535, "excessive_buffer_overrun_errors": 15, "symbol_error": 0, "port_xmit_wait": 4294967295}, 13},
		{"after a cd", "# cd /sys/class/infiniband/mlx5_3/ports/1/counters/\n=== link_downed ===\n4\n", "mlx5_3", map[string]uint64{"link_downed": 4}, 3},
		{"absolute names", "=== /sys/class/infiniband/mlx5_0/ports/1/counters/link_downed ===\n7\n", "mlx5_0", map[string]uint64{"link_downed": 7}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRdma(strings.NewReader(tt.text), "loop.txt")
			if err != nil {
				t.Fatal(err)
			}
			p := r.Snap.Port(tt.dev, 1)
			if p == nil || !p.HasCounters {
				t.Fatalf("port %s/1 not read: %+v", tt.dev, r.Snap.Devices)
			}
			got := map[string]uint64{}
			for _, c := range p.Counters {
				got[c.Name] = c.Value
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("counters %v, want %v", got, tt.want)
			}
			if l := r.Lines[portPath(tt.dev, 1, "counters/link_downed")]; l.N != tt.wantLine {
				t.Errorf("link_downed evidence %+v, want line %d", l, tt.wantLine)
			}
		})
	}
	// Relative names with no directory named: nothing to place them on.
	if _, err := ParseRdma(strings.NewReader("=== ./link_downed ===\n255\n"), "loop.txt"); err == nil {
		t.Error("relative banners without a directory read as a port")
	}
}
