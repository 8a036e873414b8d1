#!/usr/bin/env bash
# Scrape cost of `ibdoctor agent` versus Debian's prometheus-node-exporter
# (infiniband collector only) on the same simulated root: the default
# h100-ndr node, 8 NDR InfiniBand HCAs + 2 RoCE ports (`ibdoctor sim node`).
#
# Both exporters are scraped alternately N times over loopback, back to
# back. Reported per exporter: median scrape latency (curl time_total), CPU
# time per scrape (utime+stime from /proc/<pid>/stat over the whole run,
# divided by N: the agent's own sampling during the run is included, not
# hidden), series exported and RSS.
#
# Then the like-for-like cost, paced as Prometheus scrapes: the agent
# samples once a second (--interval 1s) while each exporter is scraped once
# a second for SECS seconds; the agent's CPU per interval (one sample + one
# scrape) against node_exporter's CPU per scrape in the same window. Both
# then read sysfs as seldom, and with caches as cold, as the other (back to
# back, node_exporter's reads find them warm). Once as shipped (the whole
# tree re-read every FULL_EVERY samples) and once re-reading it every
# sample (--full-read-every 1).
#
# Usage: bench/agent-vs-node-exporter.sh [N]      (default N=300)
#        SECS=40 FULL_EVERY=20 bench/agent-vs-node-exporter.sh
#        RUNS=3 bench/agent-vs-node-exporter.sh 50   (the paced run as shipped
#        three times: each run's ratio and their median)
# Needs: go, curl, prometheus-node-exporter (scripts/install-deps.sh).
set -euo pipefail
N=${1:-300}
cd "$(dirname "$0")/.."
command -v prometheus-node-exporter >/dev/null || { echo "prometheus-node-exporter missing (scripts/install-deps.sh)" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl missing" >&2; exit 1; }

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/ibdoctor" ./cmd/ibdoctor
"$tmp/ibdoctor" sim node --out "$tmp/root" >/dev/null

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ib_port=$(free_port)
ne_port=$(free_port)

"$tmp/ibdoctor" agent --root "$tmp/root" --listen "127.0.0.1:$ib_port" --interval 15s 2>"$tmp/agent.log" &
ib_pid=$!
pids+=("$ib_pid")
prometheus-node-exporter --path.sysfs="$tmp/root/sys" --path.procfs="$tmp/root/proc" \
	--collector.disable-defaults --collector.infiniband \
	--web.listen-address="127.0.0.1:$ne_port" 2>"$tmp/ne.log" &
ne_pid=$!
pids+=("$ne_pid")

ib_url="http://127.0.0.1:$ib_port/metrics"
ne_url="http://127.0.0.1:$ne_port/metrics"
wait_up() { # url: the agent answers /metrics before its first sample; wait for ports
	for _ in $(seq 100); do
		if curl -fsS "$1" 2>/dev/null | grep -q "$2"; then return 0; fi
		sleep 0.1
	done
	echo "no answer from $1" >&2
	exit 1
}
wait_up "$ib_url" '^ibdoctor_port_state'
wait_up "$ne_url" '^node_infiniband_'

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
hz=$(getconf CLK_TCK)

# Warm up (first scrapes build caches, TLS-free but still lazy allocations).
for _ in $(seq 10); do curl -s -o /dev/null "$ib_url"; curl -s -o /dev/null "$ne_url"; done

ib_c0=$(cpu_ticks "$ib_pid")
ne_c0=$(cpu_ticks "$ne_pid")
: >"$tmp/ib.lat"
: >"$tmp/ne.lat"
for _ in $(seq "$N"); do
	curl -s -o /dev/null -w '%{time_total}\n' "$ib_url" >>"$tmp/ib.lat"
	curl -s -o /dev/null -w '%{time_total}\n' "$ne_url" >>"$tmp/ne.lat"
done
ib_c1=$(cpu_ticks "$ib_pid")
ne_c1=$(cpu_ticks "$ne_pid")

median_ms() { sort -g "$1" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m*1000}'; }
ib_med=$(median_ms "$tmp/ib.lat")
ne_med=$(median_ms "$tmp/ne.lat")
ib_cpu=$(awk -v d=$((ib_c1 - ib_c0)) -v n="$N" -v hz="$hz" 'BEGIN {printf "%.3f", d*1000/hz/n}')
ne_cpu=$(awk -v d=$((ne_c1 - ne_c0)) -v n="$N" -v hz="$hz" 'BEGIN {printf "%.3f", d*1000/hz/n}')
series() { curl -s "$1" | grep -v '^#' | grep -c "$2" || true; }
ib_series=$(series "$ib_url" '^ibdoctor_')
ne_series=$(series "$ne_url" '^node_infiniband_')
ib_rss=$(rss_kib "$ib_pid")
ne_rss=$(rss_kib "$ne_pid")

# The agent at a 1 s interval, scraped once a second with node_exporter:
# CPU per interval (sysfs + ethtool + rules + kernel log + one scrape, no
# store), as shipped (identities, GID and P_Key tables every FULL_EVERY
# samples, the whole tree every 4 × FULL_EVERY, counters and state in
# between) and re-reading every sample (--full-read-every 1). SECS seconds
# each (default: one whole-tree period, 4 × FULL_EVERY, so every kind of
# read is counted at its share).
FULL_EVERY=${FULL_EVERY:-20}
SECS=${SECS:-$((4 * FULL_EVERY))}
sample_cost() { # full-read-every; sets cost_ms and cost_rss
	kill "$ib_pid"
	wait "$ib_pid" 2>/dev/null || true
	"$tmp/ibdoctor" agent --root "$tmp/root" --listen "127.0.0.1:$ib_port" --interval 1s --full-read-every "$1" >/dev/null 2>>"$tmp/agent.log" &
	ib_pid=$!
	pids+=("$ib_pid")
	wait_up "$ib_url" '^ibdoctor_port_state'
	local s0 c0 s1 c1 n0 n1 t0 i
	s0=$(curl -s "$ib_url" | awk '/^ibdoctor_samples_total/ {print $2}')
	c0=$(cpu_ticks "$ib_pid")
	n0=$(cpu_ticks "$ne_pid")
	# Paced as Prometheus would scrape: each exporter once a second, as
	# the agent samples once a second, so both read sysfs as seldom and
	# as cold as the other (the back-to-back loop above keeps caches warm).
	t0=$(date +%s.%N)
	for ((i = 1; i <= SECS; i++)); do
		curl -s -o /dev/null "$ib_url"
		curl -s -o /dev/null "$ne_url"
		sleep "$(awk -v t0="$t0" -v i="$i" -v now="$(date +%s.%N)" 'BEGIN {d=t0+i-now; if (d<0) d=0; printf "%.3f", d}')"
	done
	s1=$(curl -s "$ib_url" | awk '/^ibdoctor_samples_total/ {print $2}')
	c1=$(cpu_ticks "$ib_pid")
	n1=$(cpu_ticks "$ne_pid")
	# Per sample: the sample and (about) one scrape; the two scrapes for
	# samples_total are in it too.
	cost_ms=$(awk -v d=$((c1 - c0)) -v s="$s0" -v e="$s1" -v hz="$hz" 'BEGIN {n=e-s; if (n<1) n=1; printf "%.2f", d*1000/hz/n}')
	paced_ne_ms=$(awk -v d=$((n1 - n0)) -v n="$SECS" -v hz="$hz" 'BEGIN {printf "%.2f", d*1000/hz/n}')
	cost_rss=$(rss_kib "$ib_pid")
}
RUNS=${RUNS:-1}
ratios=() agent_runs=() ne_runs=()
for ((run = 1; run <= RUNS; run++)); do
	sample_cost "$FULL_EVERY"
	agent_runs+=("$cost_ms") ne_runs+=("$paced_ne_ms")
	ratios+=("$(awk -v a="$cost_ms" -v b="$paced_ne_ms" 'BEGIN {if (b>0) printf "%.2f", a/b; else print "inf"}')")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}'; }
paced_ms=$(median "${agent_runs[@]}") paced_ne=$(median "${ne_runs[@]}") sample_rss=$cost_rss
# The scrapes are in cost_ms: one per sample, at the paced scrape's cost.
sample_ms=$(awk -v s="$paced_ms" -v c="$ib_cpu" 'BEGIN {printf "%.2f", s-c}')
sample_cost 1
full_paced_ms=$cost_ms full_rss=$cost_rss
share=$(awk -v s="$paced_ms" 'BEGIN {printf "%.3f", s/15000*100}')

cat <<REPORT
machine: $(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(uname -sr)
date:    $(date -u +%Y-%m-%dT%H:%MZ)
root:    ibdoctor sim node (h100-ndr: 8 NDR InfiniBand HCAs + 2 RoCE ports); $N alternating scrapes each

exporter                      median scrape   CPU/scrape   series   RSS
ibdoctor agent                ${ib_med} ms        ${ib_cpu} ms     ${ib_series}      $((ib_rss / 1024)) MiB
node-exporter (infiniband)    ${ne_med} ms        ${ne_cpu} ms     ${ne_series}      $((ne_rss / 1024)) MiB

ratio (node-exporter / ibdoctor): latency $(awk -v a="$ne_med" -v b="$ib_med" 'BEGIN {printf "%.1f", a/b}')x, CPU per scrape $(awk -v a="$ne_cpu" -v b="$ib_cpu" 'BEGIN {if (b>0) printf "%.1f", a/b; else print "inf"}')x
agent: CPU per sample ${sample_ms} ms (about); CPU share at a 15 s interval with one scrape per interval: ${share}%

paced like-for-like: each exporter scraped once a second for ${SECS} s, the agent sampling once a second:
  agent, per interval (one sample + one scrape), full re-read every ${FULL_EVERY}, median of ${RUNS}   ${paced_ms} ms CPU   RSS $((sample_rss / 1024)) MiB
  agent, per interval, full re-read every sample          ${full_paced_ms} ms CPU   RSS $((full_rss / 1024)) MiB
  node-exporter (infiniband), per scrape, median of ${RUNS}                  ${paced_ne} ms CPU
  runs (agent ms / node-exporter ms = ratio): $(for ((i = 0; i < RUNS; i++)); do printf '%s/%s=%s  ' "${agent_runs[i]}" "${ne_runs[i]}" "${ratios[i]}"; done)
  ratio agent/node-exporter: median of runs $(median "${ratios[@]}"); of the median figures $(awk -v a="$paced_ms" -v b="$paced_ne" 'BEGIN {if (b>0) printf "%.2f", a/b; else print "inf"}') (every sample: $(awk -v a="$full_paced_ms" -v b="$paced_ne" 'BEGIN {if (b>0) printf "%.2f", a/b; else print "inf"}')); back-to-back node-exporter scrape: ${ne_cpu} ms (ratio $(awk -v a="$paced_ms" -v b="$ne_cpu" 'BEGIN {if (b>0) printf "%.2f", a/b; else print "inf"}')); series ratio $(awk -v a="$ib_series" -v b="$ne_series" 'BEGIN {if (b>0) printf "%.1f", a/b; else print "inf"}')x
REPORT
