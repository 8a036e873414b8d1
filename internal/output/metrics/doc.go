// Package metrics renders the agent's latest sample, rates and findings as
// Prometheus metrics through one custom prometheus.Collector (no
// package-level gauges): every scrape builds const metrics from the state
// the agent sampled last, so a scrape never re-reads sysfs and concurrent
// scrapes never race.
//
// The collector is unchecked (Describe sends nothing) because the counter
// names of counters/, hw_counters/ and ethtool are discovered at run time.
package metrics
