// Package deploy holds ibdoctor's deployment files — Prometheus alerting
// rules and their promtool unit tests, the Grafana dashboard, the systemd
// unit, the Kubernetes DaemonSet and the Slurm/NHC health check — and the
// Go tests that check each of them against the agent they deploy.
package deploy
