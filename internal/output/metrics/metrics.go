package metrics

import (
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
)

// Namespace prefixes every metric.
const Namespace = "ibdoctor"

// State is what one scrape renders: the agent's last sample.
type State struct {
	Snapshot *snapshot.Snapshot
	// Ethtool holds the ethtool statistics of RoCE netdevs.
	Ethtool trend.Ethtool
	// Rates are the per-second rates over the last interval.
	Rates []trend.CounterRate
	// Findings are the active findings (static and over time).
	Findings []finding.Finding
	// CollectErrors counts unreadable files per path since the agent
	// started.
	CollectErrors map[string]uint64
	// SourceUp says whether each source (sysfs, ethtool, store) worked in
	// the last interval.
	SourceUp map[string]bool
	// SampleDuration is how long the last sample took; Samples counts
	// samples since start.
	SampleDuration time.Duration
	Samples        uint64
	// KernelEvents counts the kernel-log events read since the agent
	// started, by kind and device; KernelLost the records the kernel
	// overwrote before they were read.
	KernelEvents map[KernelEvent]uint64
	KernelLost   uint64
}

// KernelEvent labels ibdoctor_kernel_events_total: the event kind (xid,
// fallen_off_bus, aer, link, module, health) and the device it is about
// (the RDMA device, else the interface or PCI address named).
type KernelEvent struct{ Kind, Device string }

// portLabels are the labels of every port series.
var portLabels = []string{"device", "port", "link_layer", "netdev"}

// Collector renders the State returned by its source function.
type Collector struct {
	state   func() *State
	version string

	mu    sync.Mutex
	descs map[string]*family

	// text is the state of AppendText, reused from one rendering to the
	// next.
	textMu sync.Mutex
	text   textSink

	buildInfo, scrapeDuration, finding, health, collectErrors, sourceUp,
	sampleDuration, samples, lastSample, portState, portPhys, portRate,
	portInfo, hw, devHW, ethtool, carrier, saturated, throughput,
	kernelEvents, kernelLost *family
}

// New returns a collector that renders state() on every scrape; state may
// return nil before the first sample.
func New(version string, state func() *State) *Collector {
	c := &Collector{state: state, version: version, descs: map[string]*family{}}
	d := func(name, help string, labels ...string) *family {
		return newFamily(Namespace+"_"+name, help, labels)
	}
	c.buildInfo = d("build_info", "ibdoctor build; always 1.", "version", "goversion")
	c.scrapeDuration = d("scrape_duration_seconds", "Time it took to render the metrics of the last sample. The agent renders them once per sample; scrapes serve that text and never re-read sysfs.")
	c.finding = d("finding", "1 per active finding (static rules and rules over time); see `ibdoctor rules ID`.", "id", "severity", "device", "port")
	c.health = d("node_health", "Node verdict from the active findings: 0 healthy, 1 warning, 2 critical (the exit codes of `ibdoctor check`).")
	c.collectErrors = d("collect_errors_total", "Files that could not be read or parsed, per path, since the agent started.", "path")
	c.sourceUp = d("source_up", "1 when the source worked in the last sample (sysfs, ethtool, store).", "source")
	c.sampleDuration = d("sample_duration_seconds", "Time the last sample of sysfs and ethtool took.")
	c.samples = d("samples_total", "Samples taken since the agent started.")
	c.lastSample = d("last_sample_timestamp_seconds", "Unix time of the sample this scrape renders.")
	c.portState = d("port_state", "Logical port state number (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER).", portLabels...)
	c.portPhys = d("port_phys_state", "Physical port state number (2 Polling, 3 Disabled, 5 LinkUp, 6 LinkErrorRecovery, …).", portLabels...)
	c.portRate = d("port_link_rate_bytes_per_second", "Active link rate (sysfs rate) in bytes per second; absent when the port is not ACTIVE.", portLabels...)
	c.portInfo = d("port_info", "Port and HCA identity; always 1.", append(portLabels, "fw_ver", "hca_type", "board_id", "node_guid", "rate", "port_guid", "pci")...)
	c.hw = d("port_hw_stat_total", "Per-port hw_counters/ file (mlx5: Q counters wrap at 2^32, congestion counters are 64-bit), by file name.", append(portLabels, "counter")...)
	c.devHW = d("device_hw_stat_total", "Device-level hw_counters/ file, by file name.", "device", "counter")
	c.ethtool = d("port_ethtool_total", "ethtool -S statistic of the port's netdev (PFC, pause, ECN, PHY and discard counters; per-ring statistics are not exported).", append(portLabels, "counter")...)
	c.carrier = d("port_carrier_changes_total", "carrier_changes of the port's netdev (each flap adds two).", portLabels...)
	c.saturated = d("port_counter_saturated", "1 while a saturating IBTA error counter sits at its maximum: its rate is unknown.", append(portLabels, "counter")...)
	c.throughput = d("port_data_rate_bytes_per_second", "Data rate over the last sample interval (port_xmit_data/port_rcv_data × 4 per second); absent when unknown (reset or saturated counter).", append(portLabels, "direction")...)
	c.kernelEvents = d("kernel_events_total", "Kernel log events read since the agent started (Xid, fallen off the bus, AER, link, module, mlx5 health), by kind and device.", "kind", "device")
	c.kernelLost = d("kernel_records_lost_total", "Kernel log records the ring buffer overwrote before the agent read them.")
	return c
}

// Describe sends nothing: the collector is unchecked, because counter
// names are discovered at run time.
func (c *Collector) Describe(chan<- *prometheus.Desc) {}

// Collect renders the latest state. AppendText renders the same series
// in the text exposition format without client_golang; Collect is what
// it is checked against.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.collect(promSink{ch})
}

// collect sends every series of the latest state to m.
func (c *Collector) collect(m metricSink) {
	start := time.Now()
	m.gauge(c.buildInfo, 1, c.version, runtime.Version())
	st := c.state()
	if st != nil {
		c.collectState(m, st)
	}
	m.gauge(c.scrapeDuration, time.Since(start).Seconds())
}

// collectState sends the metrics of one agent state: sampling health,
// findings, and per device and port the sysfs, throughput and ethtool
// figures of its snapshot.
func (c *Collector) collectState(m metricSink, st *State) {
	c.collectSampling(m, st)
	c.collectFindings(m, st.Findings)
	s := st.Snapshot
	if s == nil {
		return
	}
	m.gauge(c.lastSample, float64(s.Taken.UnixNano())/1e9)
	tp := portThroughput(st.Rates)
	for di := range s.Devices {
		d := &s.Devices[di]
		for _, hc := range d.HWCounters {
			if hc.Spec.Kind != ib.KindSetting && hc.Name != "lifespan" {
				m.counter(c.devHW, float64(hc.Value), d.Name, hc.Name)
			}
		}
		for pi := range d.Ports {
			c.collectPort(m, st, d, &d.Ports[pi], tp)
		}
	}
}

// metricSink receives the series of one rendering: gauge and counter send
// the series of family f with value v and label values l (in the order
// of the family's labels).
type metricSink interface {
	gauge(f *family, v float64, l ...string)
	counter(f *family, v float64, l ...string)
}

// promSink sends constant metrics to a collection channel.
type promSink struct{ ch chan<- prometheus.Metric }

func (m promSink) gauge(f *family, v float64, l ...string) {
	m.ch <- prometheus.MustNewConstMetric(f.desc, prometheus.GaugeValue, v, l...)
}

func (m promSink) counter(f *family, v float64, l ...string) {
	m.ch <- prometheus.MustNewConstMetric(f.desc, prometheus.CounterValue, v, l...)
}

// collectSampling sends how the sampling went: sources up, collection
// errors, sample duration and count, kernel events and losses.
func (c *Collector) collectSampling(m metricSink, st *State) {
	for src, up := range st.SourceUp {
		m.gauge(c.sourceUp, b2f(up), src)
	}
	for path, n := range st.CollectErrors {
		m.counter(c.collectErrors, float64(n), path)
	}
	m.gauge(c.sampleDuration, st.SampleDuration.Seconds())
	for k, n := range st.KernelEvents {
		m.counter(c.kernelEvents, float64(n), k.Kind, k.Device)
	}
	if st.KernelEvents != nil {
		m.counter(c.kernelLost, float64(st.KernelLost))
	}
	m.counter(c.samples, float64(st.Samples))
}

// collectFindings sends the health gauge (0 healthy, 1 warning, 2
// critical) and one series per distinct finding ID, severity, device and
// port.
func (c *Collector) collectFindings(m metricSink, findings []finding.Finding) {
	health := 0.0
	switch finding.Worst(findings) {
	case finding.Warning:
		health = 1
	case finding.Critical:
		health = 2
	}
	m.gauge(c.health, health)
	seen := map[[4]string]bool{}
	for _, f := range findings {
		port := ""
		if f.Subject.Port != 0 {
			port = strconv.Itoa(f.Subject.Port)
		}
		k := [4]string{f.ID, string(f.Severity), f.Subject.Device, port}
		if seen[k] { // e.g. two findings of one ID on one device's PCIe
			continue
		}
		seen[k] = true
		m.gauge(c.finding, 1, k[:]...)
	}
}

// portDataRate is a port's known transmit and receive byte rates: has
// says which of the two are known.
type portDataRate struct {
	v   [2]float64
	has [2]bool
}

// portThroughput gathers the known port_xmit_data and port_rcv_data
// rates from the counters, per port.
func portThroughput(rates []trend.CounterRate) map[trend.PortKey]portDataRate {
	tp := map[trend.PortKey]portDataRate{}
	for _, r := range rates {
		if r.Source != trend.SrcCounters || !r.Rate.Known() {
			continue
		}
		k := trend.PortKey{Device: r.Device, Port: r.Port}
		t := tp[k]
		switch r.Name {
		case "port_xmit_data":
			t.v[0], t.has[0] = r.Rate.PerSecond, true
		case "port_rcv_data":
			t.v[1], t.has[1] = r.Rate.PerSecond, true
		}
		tp[k] = t
	}
	return tp
}

// collectPort sends the metrics of port p of device d: info, state,
// rate, throughput, counters, carrier changes and ethtool statistics.
func (c *Collector) collectPort(m metricSink, st *State, d *snapshot.Device, p *snapshot.Port, tp map[trend.PortKey]portDataRate) {
	s := st.Snapshot
	// Room for the extra labels: the sinks copy what they keep, so
	// append(l, x) may reuse the array from one series to the next.
	l := make([]string, 4, 4+7)
	l[0], l[1], l[2], l[3] = d.Name, strconv.Itoa(p.Number), string(p.LinkLayer), p.NetDev
	rate := ""
	if p.Rate != nil {
		rate = p.Rate.Sysfs()
	}
	m.gauge(c.portInfo, 1, append(l, d.FWVersion, d.HCAType, d.BoardID, guidLabel(d.NodeGUID), rate, PortGUID(p), string(d.PCI))...)
	if p.State != nil {
		m.gauge(c.portState, float64(*p.State), l...)
	}
	if p.PhysState != nil {
		m.gauge(c.portPhys, float64(*p.PhysState), l...)
	}
	if p.IsActive() && p.Rate != nil {
		m.gauge(c.portRate, float64(p.Rate.BytesPerSecond()), l...)
	}
	if t := tp[trend.PortKey{Device: d.Name, Port: p.Number}]; t.has[0] || t.has[1] {
		if t.has[0] {
			m.gauge(c.throughput, t.v[0], append(l, "transmit")...)
		}
		if t.has[1] {
			m.gauge(c.throughput, t.v[1], append(l, "receive")...)
		}
	}
	for _, pc := range p.Counters {
		v := float64(pc.Value)
		if mul := pc.Spec.BytesPerUnit(); mul > 0 {
			v *= float64(mul)
		}
		m.counter(c.portCounterFamily(pc.Name, pc.Spec), v, l...)
		if pc.Saturated() {
			m.gauge(c.saturated, 1, append(l, pc.Name)...)
		}
	}
	for _, hc := range p.HWCounters {
		if hc.Spec.Kind != ib.KindSetting && hc.Name != "lifespan" {
			m.counter(c.hw, float64(hc.Value), append(l, hc.Name)...)
		}
	}
	if nd := s.NetDev(p.NetDev); nd != nil && nd.CarrierChanges != nil {
		m.counter(c.carrier, float64(*nd.CarrierChanges), l...)
	}
	for name, v := range st.Ethtool[p.NetDev] {
		if ExportEthtool(name) {
			m.counter(c.ethtool, float64(v), append(l, name)...)
		}
	}
}

// guidLabel renders a GUID label as ib.GUIDString ("0x" + 16 lowercase hex
// digits), the form of the fabric's findings and tools, whichever form the
// snapshot holds; text that is no GUID is kept as it is.
func guidLabel(g string) string {
	if n, err := ib.NormalizeGUID(g); err == nil {
		return n
	}
	return g
}

// PortGUID is the port GUID of an InfiniBand port as ib.GUIDString: the
// low 64 bits of its default GID (index 0), which is the subnet prefix
// followed by the port GUID (InfiniBand Architecture Specification vol. 1,
// 4.1.1). It is "" for Ethernet ports, whose GIDs derive from addresses,
// and when GID 0 was not read.
func PortGUID(p *snapshot.Port) string {
	if p.LinkLayer != ib.LinkLayerInfiniBand {
		return ""
	}
	for _, g := range p.GIDs {
		if g.Index == 0 && !g.GID.IsZero() {
			return ib.GUIDString(binary.BigEndian.Uint64(g.GID[8:]))
		}
	}
	return ""
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// PortCounterName is the metric name of a counters/ file: the file name
// lower-cased without its "port_" prefix, data counters in bytes
// ("port_xmit_data" → "ibdoctor_port_xmit_bytes_total"), others in their
// own unit ("symbol_error" → "ibdoctor_port_symbol_error_total").
func PortCounterName(file string, spec ib.CounterSpec) string {
	n := strings.TrimPrefix(strings.ToLower(file), "port_")
	if spec.BytesPerUnit() > 0 {
		n = strings.TrimSuffix(n, "_data") + "_bytes"
	}
	return Namespace + "_port_" + sanitize(n) + "_total"
}

var invalid = regexp.MustCompile(`[^a-z0-9_]`)

func sanitize(s string) string { return invalid.ReplaceAllString(s, "_") }

// portCounterDesc is the descriptor of a counters/ file's family.
func (c *Collector) portCounterDesc(file string, spec ib.CounterSpec) *prometheus.Desc {
	return c.portCounterFamily(file, spec).desc
}

// portCounterFamily is the family of a counters/ file, made at its first
// use: its help depends on the file's counter table.
func (c *Collector) portCounterFamily(file string, spec ib.CounterSpec) *family {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.descs[file]; ok {
		return d
	}
	help := "counters/" + file
	if spec.Help != "" {
		help += ": " + spec.Help
	}
	max := spec.Max()
	if n := spec.BytesPerUnit(); n > 0 {
		// The value is exported in bytes, so the help says bytes; the
		// sysfs file's own unit is named only to explain the factor.
		what := strings.TrimSuffix(spec.Help, ", in "+string(spec.Unit))
		if what == "" {
			what = "data"
		}
		help = what + ", in bytes"
		if n == 1 {
			help += " (counters/" + file + ")"
		} else {
			help += fmt.Sprintf(" (counters/%s counts %s; exported × %d)", file, spec.Unit, n)
			if max <= math.MaxUint64/n {
				max *= n
			}
		}
	}
	if spec.Saturating {
		help += "; saturates at " + strconv.FormatUint(max, 10) + " (see ibdoctor_port_counter_saturated)"
	}
	d := newFamily(PortCounterName(file, spec), help, portLabels)
	c.descs[file] = d
	return d
}

// ExportEthtool reports whether an ethtool statistic is exported: PFC,
// pause, per-priority, PHY, discard, ECN/CNP, buffer, module and PCIe
// statistics (mlx5 counters.rst); never the per-queue ones (rx3_packets,
// tx12_bytes, ch0_events) that inflate `ethtool -S` into thousands of
// lines. It runs for every statistic of every sample, so it matches by
// hand what the expressions in its test say.
func ExportEthtool(name string) bool {
	return !perRingStat(name) && relevantStat(name)
}

// perRingStat: ^(rx|tx|ch|xdp|ptp)[0-9]+_
func perRingStat(name string) bool {
	for _, p := range [...]string{"rx", "tx", "ch", "xdp", "ptp"} {
		rest, ok := strings.CutPrefix(name, p)
		if !ok {
			continue
		}
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i > 0 && i < len(rest) && rest[i] == '_' {
			return true
		}
	}
	return false
}

// relevantStat: pause|_prio[0-7]_|_phy$|discard|ecn|cnp|out_of_buffer|
// link_down_events|module_|pci_|storm
func relevantStat(name string) bool {
	for _, s := range [...]string{"pause", "discard", "ecn", "cnp", "out_of_buffer", "link_down_events", "module_", "pci_", "storm"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	if strings.HasSuffix(name, "_phy") {
		return true
	}
	for rest := name; ; {
		i := strings.Index(rest, "_prio")
		if i < 0 {
			return false
		}
		rest = rest[i+len("_prio"):]
		if len(rest) >= 2 && rest[0] >= '0' && rest[0] <= '7' && rest[1] == '_' {
			return true
		}
	}
}

// Families returns the name of every metric family the agent can export:
// the fixed ones, the SelfCollector's, and one per known counters/ file (unknown counters/ files
// found at run time follow PortCounterName). Dashboards and alert rules are
// tested against this list.
func Families() []string {
	c := New("", func() *State { return nil })
	var out []string
	for _, f := range []*family{c.buildInfo, c.scrapeDuration, c.finding, c.health, c.collectErrors, c.sourceUp,
		c.sampleDuration, c.samples, c.lastSample, c.portState, c.portPhys, c.portRate, c.portInfo, c.hw, c.devHW,
		c.ethtool, c.carrier, c.saturated, c.throughput, c.kernelEvents, c.kernelLost} {
		out = append(out, f.name)
	}
	for _, s := range ib.PortCounterSpecs {
		out = append(out, PortCounterName(s.Name, s))
	}
	self := NewSelfCollector()
	for _, d := range []*prometheus.Desc{self.cpu, self.rss, self.vsz, self.errsD} {
		out = append(out, descName(d))
	}
	return out
}

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

func descName(d *prometheus.Desc) string {
	if m := fqName.FindStringSubmatch(d.String()); m != nil {
		return m[1]
	}
	return ""
}
