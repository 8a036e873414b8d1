package metrics

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/rates"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func testState() *State {
	active, down := ib.StateActive, ib.StateDown
	linkUp, polling := ib.PhysState(5), ib.PhysState(2)
	ndr := ib.NewRate(4, ib.SpeedNDR)
	cc := uint64(4)
	ctr := func(name string, v uint64) snapshot.Counter {
		return snapshot.Counter{Name: name, Value: v, Spec: ib.PortCounterSpec(name, true)}
	}
	hw := func(name string, v uint64) snapshot.Counter {
		return snapshot.Counter{Name: name, Value: v, Spec: ib.HWCounterSpec(name)}
	}
	s := &snapshot.Snapshot{Host: "gpu017", Taken: t0, Devices: []snapshot.Device{
		{Name: "mlx5_0", FWVersion: "28.39.2048", HCAType: "MT4129", BoardID: "MT_0000000838", NodeGUID: "a088:c203:0046:1a2c",
			HWCounters: []snapshot.Counter{hw("lifespan", 10), hw("out_of_buffer", 3)},
			Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: &active, PhysState: &linkUp, Rate: &ndr, HasCounters: true,
				Counters:   []snapshot.Counter{ctr("port_xmit_data", 1000), ctr("symbol_error", 65535), ctr("VL15_dropped", 0)},
				HWCounters: []snapshot.Counter{hw("lifespan", 10), hw("out_of_buffer", 7)}}}},
		{Name: "mlx5_8", Ports: []snapshot.Port{{Device: "mlx5_8", Number: 1, LinkLayer: ib.LinkLayerEthernet, State: &down, PhysState: &polling, Rate: &ndr, NetDev: "eth8"}}},
	}, NetDevs: []snapshot.NetDev{{Name: "eth8", CarrierChanges: &cc}}}
	return &State{
		Snapshot: s,
		Ethtool:  trend.Ethtool{"eth8": {"rx_prio3_pause": 5, "rx3_packets": 99, "tx_pause_storm_error_events": 0, "rx_bytes": 1}},
		Rates: []trend.CounterRate{
			{Device: "mlx5_0", Port: 1, Source: trend.SrcCounters, Name: "port_xmit_data", Rate: rates.Rate{PerSecond: 5e10, Status: rates.StatusOK}},
			{Device: "mlx5_0", Port: 1, Source: trend.SrcCounters, Name: "port_rcv_data", Rate: rates.Rate{Status: rates.StatusReset}},
		},
		Findings: []finding.Finding{
			catalog.New("port.counter_saturated", finding.Subject{Device: "mlx5_0", Port: 1}, "x"),
			func() finding.Finding {
				f := catalog.New("port.link_flapping", finding.Subject{Device: "mlx5_8", Port: 1}, "y")
				f.Severity = finding.Critical
				return f
			}(),
		},
		CollectErrors:  map[string]uint64{"sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data": 2},
		SourceUp:       map[string]bool{"sysfs": true, "ethtool": false},
		SampleDuration: 3 * time.Millisecond,
		Samples:        12,
	}
}

func TestCollect(t *testing.T) {
	st := testState()
	c := New("v1.2.3", func() *State { return st })
	want := `
# HELP ibdoctor_finding 1 per active finding (static rules and rules over time); see ` + "`ibdoctor rules ID`" + `.
# TYPE ibdoctor_finding gauge
ibdoctor_finding{device="mlx5_0",id="port.counter_saturated",port="1",severity="warning"} 1
ibdoctor_finding{device="mlx5_8",id="port.link_flapping",port="1",severity="critical"} 1
# HELP ibdoctor_node_health Node verdict from the active findings: 0 healthy, 1 warning, 2 critical (the exit codes of ` + "`ibdoctor check`" + `).
# TYPE ibdoctor_node_health gauge
ibdoctor_node_health 2
# HELP ibdoctor_port_xmit_bytes_total data sent, in bytes (counters/port_xmit_data counts 4-octet words; exported × 4)
# TYPE ibdoctor_port_xmit_bytes_total counter
ibdoctor_port_xmit_bytes_total{device="mlx5_0",link_layer="InfiniBand",netdev="",port="1"} 4000
# HELP ibdoctor_port_symbol_error_total counters/symbol_error: minor link errors detected on physical lanes; saturates at 65535 (see ibdoctor_port_counter_saturated)
# TYPE ibdoctor_port_symbol_error_total counter
ibdoctor_port_symbol_error_total{device="mlx5_0",link_layer="InfiniBand",netdev="",port="1"} 65535
# HELP ibdoctor_port_counter_saturated 1 while a saturating IBTA error counter sits at its maximum: its rate is unknown.
# TYPE ibdoctor_port_counter_saturated gauge
ibdoctor_port_counter_saturated{counter="symbol_error",device="mlx5_0",link_layer="InfiniBand",netdev="",port="1"} 1
# HELP ibdoctor_port_data_rate_bytes_per_second Data rate over the last sample interval (port_xmit_data/port_rcv_data × 4 per second); absent when unknown (reset or saturated counter).
# TYPE ibdoctor_port_data_rate_bytes_per_second gauge
ibdoctor_port_data_rate_bytes_per_second{device="mlx5_0",direction="transmit",link_layer="InfiniBand",netdev="",port="1"} 5e+10
# HELP ibdoctor_port_hw_stat_total Per-port hw_counters/ file (mlx5: Q counters wrap at 2^32, congestion counters are 64-bit), by file name.
# TYPE ibdoctor_port_hw_stat_total counter
ibdoctor_port_hw_stat_total{counter="out_of_buffer",device="mlx5_0",link_layer="InfiniBand",netdev="",port="1"} 7
# HELP ibdoctor_device_hw_stat_total Device-level hw_counters/ file, by file name.
# TYPE ibdoctor_device_hw_stat_total counter
ibdoctor_device_hw_stat_total{counter="out_of_buffer",device="mlx5_0"} 3
# HELP ibdoctor_port_ethtool_total ethtool -S statistic of the port's netdev (PFC, pause, ECN, PHY and discard counters; per-ring statistics are not exported).
# TYPE ibdoctor_port_ethtool_total counter
ibdoctor_port_ethtool_total{counter="rx_prio3_pause",device="mlx5_8",link_layer="Ethernet",netdev="eth8",port="1"} 5
ibdoctor_port_ethtool_total{counter="tx_pause_storm_error_events",device="mlx5_8",link_layer="Ethernet",netdev="eth8",port="1"} 0
# HELP ibdoctor_port_carrier_changes_total carrier_changes of the port's netdev (each flap adds two).
# TYPE ibdoctor_port_carrier_changes_total counter
ibdoctor_port_carrier_changes_total{device="mlx5_8",link_layer="Ethernet",netdev="eth8",port="1"} 4
# HELP ibdoctor_port_link_rate_bytes_per_second Active link rate (sysfs rate) in bytes per second; absent when the port is not ACTIVE.
# TYPE ibdoctor_port_link_rate_bytes_per_second gauge
ibdoctor_port_link_rate_bytes_per_second{device="mlx5_0",link_layer="InfiniBand",netdev="",port="1"} 5e+10
# HELP ibdoctor_port_state Logical port state number (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER).
# TYPE ibdoctor_port_state gauge
ibdoctor_port_state{device="mlx5_0",link_layer="InfiniBand",netdev="",port="1"} 4
ibdoctor_port_state{device="mlx5_8",link_layer="Ethernet",netdev="eth8",port="1"} 1
# HELP ibdoctor_collect_errors_total Files that could not be read or parsed, per path, since the agent started.
# TYPE ibdoctor_collect_errors_total counter
ibdoctor_collect_errors_total{path="sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data"} 2
# HELP ibdoctor_source_up 1 when the source worked in the last sample (sysfs, ethtool, store).
# TYPE ibdoctor_source_up gauge
ibdoctor_source_up{source="ethtool"} 0
ibdoctor_source_up{source="sysfs"} 1
`
	names := []string{"ibdoctor_finding", "ibdoctor_node_health", "ibdoctor_port_xmit_bytes_total", "ibdoctor_port_symbol_error_total",
		"ibdoctor_port_counter_saturated", "ibdoctor_port_data_rate_bytes_per_second", "ibdoctor_port_hw_stat_total",
		"ibdoctor_device_hw_stat_total", "ibdoctor_port_ethtool_total", "ibdoctor_port_carrier_changes_total",
		"ibdoctor_port_link_rate_bytes_per_second", "ibdoctor_port_state", "ibdoctor_collect_errors_total", "ibdoctor_source_up"}
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	// The lifespan setting and per-ring ethtool statistics are never exported.
	if n := testutil.CollectAndCount(c, "ibdoctor_port_hw_stat_total"); n != 1 {
		t.Errorf("hw counters: %d series, want 1 (lifespan skipped)", n)
	}
}

func TestLint(t *testing.T) {
	st := testState()
	c := New("v1", func() *State { return st })
	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		// The VL15 name keeps the kernel's spelling lower-cased; nothing else may complain.
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

func TestBeforeFirstSample(t *testing.T) {
	c := New("v1", func() *State { return nil })
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mf := range mfs {
		got = append(got, mf.GetName())
	}
	if !slices.Equal(got, []string{"ibdoctor_build_info", "ibdoctor_scrape_duration_seconds"}) {
		t.Errorf("families before the first sample: %v", got)
	}
}

func TestPortCounterName(t *testing.T) {
	for file, want := range map[string]string{
		"port_xmit_data":      "ibdoctor_port_xmit_bytes_total",
		"port_rcv_data":       "ibdoctor_port_rcv_bytes_total",
		"symbol_error":        "ibdoctor_port_symbol_error_total",
		"VL15_dropped":        "ibdoctor_port_vl15_dropped_total",
		"port_xmit_wait":      "ibdoctor_port_xmit_wait_total",
		"unicast_rcv_packets": "ibdoctor_port_unicast_rcv_packets_total",
		"weird-name.x":        "ibdoctor_port_weird_name_x_total",
	} {
		if got := PortCounterName(file, ib.PortCounterSpec(file, true)); got != want {
			t.Errorf("PortCounterName(%s) = %s, want %s", file, got, want)
		}
	}
}

// The data counters are exported in bytes, so their help must say bytes and
// must not call the exported value 4-octet words; a saturating 32-bit word
// counter saturates at 4 × (2^32-1) bytes.
func TestDataCounterHelpSaysBytes(t *testing.T) {
	for _, tc := range []struct {
		file string
		ext  bool
		want []string
	}{
		{"port_rcv_data", true, []string{"data received, in bytes", "exported × 4"}},
		{"port_xmit_data", true, []string{"data sent, in bytes", "exported × 4"}},
		{"port_xmit_data", false, []string{"data sent, in bytes", "saturates at 17179869180 "}},
		{"symbol_error", false, []string{"symbol", "saturates at 65535 "}},
	} {
		spec := ib.PortCounterSpec(tc.file, tc.ext)
		c := New("", func() *State { return nil }) // descriptions are cached per file
		help := c.portCounterDesc(tc.file, spec).String()
		for _, w := range tc.want {
			if !strings.Contains(help, w) {
				t.Errorf("%s (ext %v): help %s lacks %q", tc.file, tc.ext, help, w)
			}
		}
		if strings.Contains(help, "sent, in 4-octet") || strings.Contains(help, "received, in 4-octet") {
			t.Errorf("%s: help still gives the exported unit as 4-octet words: %s", tc.file, help)
		}
	}
}

// The node_guid label has the fabric's form, 0x + 16 lowercase hex
// digits, whatever form the snapshot holds (sysfs prints b83f:d203:…).
func TestNodeGUIDLabel(t *testing.T) {
	for in, want := range map[string]string{
		"a088:c203:0046:1a2c": "0xa088c20300461a2c",
		"0C42:A103:00A1:B2C4": "0x0c42a10300a1b2c4",
		"0x0c42a10300a1b2c4":  "0x0c42a10300a1b2c4",
		"0x2c4":               "0x00000000000002c4",
		"":                    "",
	} {
		st := testState()
		st.Snapshot.Devices[0].NodeGUID = in
		c := New("v", func() *State { return st })
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(c)
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got, found := "", false
		for _, mf := range mfs {
			if mf.GetName() != "ibdoctor_port_info" {
				continue
			}
			for _, m := range mf.GetMetric() {
				labels := map[string]string{}
				for _, lp := range m.GetLabel() {
					labels[lp.GetName()] = lp.GetValue()
				}
				if labels["device"] == "mlx5_0" {
					got, found = labels["node_guid"], true
				}
			}
		}
		if !found || got != want {
			t.Errorf("node_guid %q: label %q (found %v), want %q", in, got, found, want)
		}
	}
}

func TestExportEthtool(t *testing.T) {
	for name, want := range map[string]bool{
		"rx_prio3_pause": true, "tx_prio0_pause_duration": true, "rx_global_pause": true, "rx_discards_phy": true,
		"tx_pause_storm_warning_events": true, "link_down_events_phy": true, "rx_pcs_symbol_err_phy": true,
		"rx_prio3_packets": true, "rx3_packets": false, "tx12_bytes": false, "ch0_events": false, "rx_bytes": false,
		"rx_out_of_buffer": true, "module_unplug": true, "rx_pci_signal_integrity": true,
		"rx_prio8_packets": false, "rx_prio3": false, "tx_prio_x_prio7_bytes": true, "rx_ecn_mark": true,
		"np_cnp_sent": true, "xdp7_": false, "xdp_redirect": false, "ptp0_cq0_err": false, "rx": false,
		"rx3packets": false, "ch_events_phy": true, "rx0_discard": false, "ptp": false, "": false,
	} {
		if got := ExportEthtool(name); got != want {
			t.Errorf("ExportEthtool(%s) = %v, want %v", name, got, want)
		}
	}
}

// The expressions ExportEthtool matches by hand.
var (
	perRingRE  = regexp.MustCompile(`^(rx|tx|ch|xdp|ptp)[0-9]+_`)
	relevantRE = regexp.MustCompile(`(pause|_prio[0-7]_|_phy$|discard|ecn|cnp|out_of_buffer|link_down_events|module_|pci_|storm)`)
)

// FuzzExportEthtool holds the hand-written matcher to its expressions.
func FuzzExportEthtool(f *testing.F) {
	for _, s := range []string{"rx_prio3_pause", "rx3_packets", "tx_prio9_x", "_prio_prio7_", "xdp12_drop", "link_down_events_phy"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		want := !perRingRE.MatchString(name) && relevantRE.MatchString(name)
		if got := ExportEthtool(name); got != want {
			t.Errorf("ExportEthtool(%q) = %v, the expressions say %v", name, got, want)
		}
	})
}

func TestFamilies(t *testing.T) {
	fs := Families()
	for _, want := range []string{"ibdoctor_finding", "ibdoctor_port_xmit_bytes_total", "ibdoctor_port_hw_stat_total", "ibdoctor_build_info"} {
		if !slices.Contains(fs, want) {
			t.Errorf("Families() lacks %s", want)
		}
	}
	for _, f := range fs {
		if f == "" || !strings.HasPrefix(f, "ibdoctor_") {
			t.Errorf("bad family name %q", f)
		}
	}
}

// BenchmarkCollect renders 8 IB HCAs and 2 RoCE ports with full counter
// sets: the per-scrape cost of /metrics.
func BenchmarkCollect(b *testing.B) {
	st := testState()
	base := st.Snapshot.Devices[0]
	var devs []snapshot.Device
	for i := 0; i < 10; i++ {
		d := base
		d.Name = "mlx5_" + string(rune('0'+i))
		d.Ports = []snapshot.Port{base.Ports[0]}
		p := &d.Ports[0]
		p.Device = d.Name
		p.Counters = nil
		for _, s := range ib.PortCounterSpecs {
			p.Counters = append(p.Counters, snapshot.Counter{Name: s.Name, Value: 12345, Spec: s})
		}
		p.HWCounters = nil
		for _, n := range []string{"out_of_buffer", "out_of_sequence", "duplicate_request", "rnr_nak_retry_err", "packet_seq_err", "implied_nak_seq_err",
			"local_ack_timeout_err", "rp_cnp_ignored", "rp_cnp_handled", "np_ecn_marked_roce_packets", "np_cnp_sent", "rx_write_requests", "rx_read_requests"} {
			p.HWCounters = append(p.HWCounters, snapshot.Counter{Name: n, Value: 99, Spec: ib.HWCounterSpec(n)})
		}
		devs = append(devs, d)
	}
	st.Snapshot.Devices = devs
	c := New("v1", func() *State { return st })
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
