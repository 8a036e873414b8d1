// Package agent is the long-running sampler behind `ibdoctor agent`: every
// interval it reads a snapshot (sysfs counters, hw_counters, and the
// ethtool statistics of RoCE netdevs), keeps a window of samples in memory,
// computes per-second rates, runs the static node rules and the rules over
// time (package trend), keeps active findings with the time each was first
// seen, persists all of it in the state store, and serves the result over
// HTTP: /metrics (Prometheus), /api/v1/health, /api/v1/ports and /healthz.
//
// Scrapes render the last sample; they never read sysfs themselves.
package agent
