package metrics

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// filtered is a collector that passes on one metric family of another.
type filtered struct {
	c    prometheus.Collector
	name string
}

func (f *filtered) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(f, ch) }

func (f *filtered) Collect(ch chan<- prometheus.Metric) {
	all := make(chan prometheus.Metric, 16)
	go func() { f.c.Collect(all); close(all) }()
	for m := range all {
		if strings.Contains(m.Desc().String(), `"`+f.name+`"`) {
			ch <- m
		}
	}
}
