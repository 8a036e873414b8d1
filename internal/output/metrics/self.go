package metrics

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// userHZ is the kernel's USER_HZ, the unit of utime/stime in /proc/<pid>/stat
// (fixed at 100 on every Linux architecture Go supports; procfs assumes
// the same).
const userHZ = 100

// ProcStat is the part of /proc/<pid>/stat the agent reports about itself.
type ProcStat struct {
	// UTime and STime are user and system CPU time in clock ticks
	// (fields 14 and 15).
	UTime, STime uint64
	// VSize is virtual memory in bytes (field 23), RSS resident pages
	// (field 24, printed %ld but never negative).
	VSize uint64
	RSS   uint64
}

// ParseProcStat parses /proc/<pid>/stat (proc(5)). The command name, field
// 2, is in parentheses and may itself contain spaces and parentheses, so
// fields are counted after the last ')'.
func ParseProcStat(data []byte) (ProcStat, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return ProcStat{}, fmt.Errorf("proc stat: no ')' closing the command name")
	}
	f := bytes.Fields(data[i+1:])
	// f[0] is field 3 (state); field n is f[n-3].
	if len(f) < 22 {
		return ProcStat{}, fmt.Errorf("proc stat: %d fields after the command name, want at least 22", len(f))
	}
	var st ProcStat
	var err error
	parse := func(n int) uint64 {
		if err != nil {
			return 0
		}
		var v uint64
		v, err = strconv.ParseUint(string(f[n-3]), 10, 64)
		if err != nil {
			err = fmt.Errorf("proc stat field %d: %w", n, err)
		}
		return v
	}
	st.UTime, st.STime, st.VSize, st.RSS = parse(14), parse(15), parse(23), parse(24)
	return st, err
}

// SelfCollector reports the agent's own CPU time and memory from one read
// of /proc/self/stat per scrape, with the standard process_* names under
// the ibdoctor namespace. It replaces client_golang's process collector,
// which reads several files per scrape and cost as much as the rest of the
// scrape.
type SelfCollector struct {
	path                 string
	pageSize             int
	cpu, rss, vsz, errsD *prometheus.Desc
}

// NewSelfCollector reads /proc/self/stat.
func NewSelfCollector() *SelfCollector {
	return &SelfCollector{
		path: "/proc/self/stat", pageSize: os.Getpagesize(),
		cpu:   prometheus.NewDesc(Namespace+"_process_cpu_seconds_total", "User and system CPU time the agent spent, in seconds.", nil, nil),
		rss:   prometheus.NewDesc(Namespace+"_process_resident_memory_bytes", "Resident memory of the agent in bytes.", nil, nil),
		vsz:   prometheus.NewDesc(Namespace+"_process_virtual_memory_bytes", "Virtual memory of the agent in bytes.", nil, nil),
		errsD: prometheus.NewDesc(Namespace+"_process_stat_up", "1 when /proc/self/stat could be read and parsed.", nil, nil),
	}
}

// Describe sends the descriptors.
func (c *SelfCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.cpu
	ch <- c.rss
	ch <- c.vsz
	ch <- c.errsD
}

// Collect reads /proc/self/stat.
func (c *SelfCollector) Collect(ch chan<- prometheus.Metric) {
	st, err := c.read()
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.errsD, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.errsD, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(c.cpu, prometheus.CounterValue, float64(st.UTime+st.STime)/userHZ)
	ch <- prometheus.MustNewConstMetric(c.rss, prometheus.GaugeValue, float64(st.RSS)*float64(c.pageSize))
	ch <- prometheus.MustNewConstMetric(c.vsz, prometheus.GaugeValue, float64(st.VSize))
}

func (c *SelfCollector) read() (ProcStat, error) {
	data, err := os.ReadFile(c.path)
	if err != nil {
		return ProcStat{}, err
	}
	return ParseProcStat(data)
}

// selfText are the four families of the SelfCollector as the text format
// writes them, in name order: HELP and TYPE lines, then the sample's
// name.
var selfText = [...]struct{ head, name string }{
	{"# HELP ibdoctor_process_cpu_seconds_total User and system CPU time the agent spent, in seconds.\n# TYPE ibdoctor_process_cpu_seconds_total counter\n", "ibdoctor_process_cpu_seconds_total "},
	{"# HELP ibdoctor_process_resident_memory_bytes Resident memory of the agent in bytes.\n# TYPE ibdoctor_process_resident_memory_bytes gauge\n", "ibdoctor_process_resident_memory_bytes "},
	{"# HELP ibdoctor_process_stat_up 1 when /proc/self/stat could be read and parsed.\n# TYPE ibdoctor_process_stat_up gauge\n", "ibdoctor_process_stat_up "},
	{"# HELP ibdoctor_process_virtual_memory_bytes Virtual memory of the agent in bytes.\n# TYPE ibdoctor_process_virtual_memory_bytes gauge\n", "ibdoctor_process_virtual_memory_bytes "},
}

// AppendText reads /proc/self/stat and appends what Collect sends in the
// text exposition format, as client_golang's registry and expfmt write it.
func (c *SelfCollector) AppendText(b []byte) []byte {
	st, err := c.read()
	var v [len(selfText)]float64
	if err == nil {
		v = [...]float64{float64(st.UTime+st.STime) / userHZ, float64(st.RSS) * float64(c.pageSize), 1, float64(st.VSize)}
	}
	for i, f := range selfText {
		if err != nil && i != 2 {
			continue // only ibdoctor_process_stat_up, 0
		}
		b = append(b, f.head...)
		b = append(b, f.name...)
		b = appendFloat(b, v[i])
		b = append(b, '\n')
	}
	return b
}
