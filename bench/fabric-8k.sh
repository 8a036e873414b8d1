#!/usr/bin/env bash
# `ibdoctor fabric collect` and `fabric check --from` on an 8,192-HCA
# two-tier fat-tree under ibsim: 32 spines × 128 leaves × 64 hosts (spines
# with 128 ports, the size where dump_fts's last-port quirk bites), routed
# by OpenSM's ftree engine (about 12 s on an idle machine). Not part of
# `make test`: it needs a few GiB of memory and a couple of minutes.
#
# Printed: the per-tool collection times (start and duration: the tools
# run concurrently) and the wall time, the analysis time and peak memory
# of `fabric check --from` (/usr/bin/time -v), the findings by severity,
# the number of lines of the text report, and the machine's load.
#
# On a loaded machine the wall times stretch (ibsim, a single thread,
# serves every tool): the load average is printed with them, and the CPU
# time of the analysis beside its wall time.
#
# Usage: [PARALLEL=N] bench/fabric-8k.sh [SPINES LEAVES HOSTS]
# Needs: go, ibsim-utils, opensm, infiniband-diags, /usr/bin/time, jq.
set -euo pipefail
SP=${1:-32} LV=${2:-128} HO=${3:-64}
cd "$(dirname "$0")/.."
for t in ibsim opensm ibnetdiscover dump_fts jq /usr/bin/time; do
	command -v $t >/dev/null || { echo "$t missing (scripts/install-deps.sh)" >&2; exit 1; }
done
lib=$(ls /usr/lib/*/umad2sim/libumad2sim.so | head -1)

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/ibdoctor" ./cmd/ibdoctor
"$tmp/ibdoctor" sim fabric --spines "$SP" --leaves "$LV" --hosts-per-leaf "$HO" --out "$tmp/fab" >/dev/null
export IBSIM_SOCKNAME="ibd8k$$"
cd "$tmp" # libumad2sim.so leaves sys-<pid> trees in the working directory
mkfifo "$tmp/console"
setsid ibsim -N 40000 -S 4000 -P 200000 -s "$tmp/fab/net" <"$tmp/console" >"$tmp/ibsim.log" 2>&1 &
pids+=($!)
exec 3>"$tmp/console" # keep the console open
for _ in $(seq 600); do grep -q "simulator ready" "$tmp/ibsim.log" && break; sleep 0.1; done
grep -q "simulator ready" "$tmp/ibsim.log" || { cat "$tmp/ibsim.log" >&2; exit 1; }
# OpenSM stays master (no periodic sweeps: -s 0), as on a real fabric; its
# first sweep routes with ftree.
printf 'force_log_flush TRUE\n' >"$tmp/opensm.conf"
s=$(date +%s.%N)
LD_PRELOAD=$lib OSM_CACHE_DIR=$tmp setsid opensm -F "$tmp/opensm.conf" -R ftree -s 0 -f "$tmp/opensm.log" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 3000); do grep -q "SUBNET UP" "$tmp/opensm.log" 2>/dev/null && break; sleep 0.1; done
grep -q "SUBNET UP" "$tmp/opensm.log" || { echo "OpenSM did not come up" >&2; exit 1; }
printf 'OpenSM ftree (first sweep to SUBNET UP): %.1f s\n' "$(awk "BEGIN{print $(date +%s.%N) - $s}")"

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "load before collect: $(load)"
"$tmp/ibdoctor" fabric collect --ibsim "$IBSIM_SOCKNAME" --timeout 300s --out "$tmp/col" --parallel "${PARALLEL:-4}"
echo "load before check: $(load)"
rc=0
/usr/bin/time -v -o "$tmp/time.txt" "$tmp/ibdoctor" fabric check --from "$tmp/col" --format json >"$tmp/check.json" || rc=$?
"$tmp/ibdoctor" fabric check --from "$tmp/col" >"$tmp/check.txt" || true
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time.txt")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time.txt")
usr=$(sed -n 's/.*User time (seconds): //p' "$tmp/time.txt")
sys=$(sed -n 's/.*System time (seconds): //p' "$tmp/time.txt")
printf 'fabric check --from: %s wall, %s s user + %s s system CPU, peak RSS %.0f MiB, exit %d\n' "$wall" "$usr" "$sys" "$(awk "BEGIN{print $rss / 1024}")" "$rc"
jq -r '"summary: \(.summary.switches) switches, \(.summary.cas) CAs, \(.summary.links) links, \(.summary.forwarding_tables) tables; verdict \(.verdict)",
	"findings: \(.findings | length) (\([.findings[] | .severity] | group_by(.) | map("\(.[0]) \(length)") | join(", ")))",
	(.findings[] | "  \(.severity) \(.id): \(.summary[0:160])"),
	"gaps: \(.gaps | length)"' "$tmp/check.json"
echo "text report: $(wc -l <"$tmp/check.txt") lines"
echo "machine: $(nproc) cores, $(date -u '+%F %H:%M UTC'), load after: $(load)"
