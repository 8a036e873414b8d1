#!/usr/bin/env bash
# Routing coverage of `ibdoctor fabric check` versus ibtracert, the
# per-pair tool an operator would script, on the same simulated fabric.
#
# ibsim runs a leaf-spine fabric from `ibdoctor sim fabric` (default 4
# spines, 8 leaves, 8 hosts per leaf = 64 HCAs), routed once by OpenSM
# (opensm -o, minhop). Then:
#   - ibtracert: S random CA-LID pairs, timed; the all-pairs time is the
#     per-pair time × HCAs × (HCAs-1);
#   - ibdoctor fabric check --ibsim: collection (ibnetdiscover, iblinkinfo,
#     ibqueryerrors, dump_fts, sminfo, saquery) plus every check and the
#     full routing analysis (all switches × all LIDs), timed N times.
# Printed: both times and their ratio, and the extrapolation of the
# ibtracert way to the 16,384-HCA fabric of BenchmarkEndToEnd (whose own
# figure comes from `go test -bench EndToEnd ./internal/fabric`).
#
# Usage: bench/fabric-vs-ibtracert.sh [SPINES LEAVES HOSTS [S N]]
# Needs: go, ibsim-utils, opensm, infiniband-diags (scripts/install-deps.sh).
set -euo pipefail
SP=${1:-4} LV=${2:-8} HO=${3:-8} S=${4:-200} N=${5:-5}
cd "$(dirname "$0")/.."
for t in ibsim opensm ibtracert; do
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
export IBSIM_SOCKNAME="ibdbench$$"
cd "$tmp" # libumad2sim.so may leave sys-<pid> trees in the working directory
mkfifo "$tmp/console"
setsid ibsim -s "$tmp/fab/net" <"$tmp/console" >"$tmp/ibsim.log" 2>&1 &
pids+=($!)
exec 3>"$tmp/console" # keep the console open
for _ in $(seq 100); do grep -q "simulator ready" "$tmp/ibsim.log" && break; sleep 0.1; done
LD_PRELOAD=$lib OSM_CACHE_DIR=$tmp timeout 120 opensm -o -R minhop -f "$tmp/opensm.log" >/dev/null 2>&1

# CA LIDs from the topology.
mapfile -t lids < <(LD_PRELOAD=$lib ibnetdiscover 2>/dev/null | sed -n 's/^\[[0-9]*\]([0-9a-f]*) .*# lid \([0-9]*\) lmc.*/\1/p')
H=${#lids[@]}
[ "$H" -gt 1 ] || { echo "no CA LIDs found" >&2; exit 1; }

start=$(date +%s.%N)
for i in $(seq "$S"); do
	a=${lids[RANDOM % H]} b=${lids[RANDOM % H]}
	[ "$a" = "$b" ] && b=${lids[(RANDOM + 1) % H]}
	LD_PRELOAD=$lib ibtracert "$a" "$b" >/dev/null 2>&1 || true
done
end=$(date +%s.%N)
per=$(awk "BEGIN{print ($end - $start) / $S}")

start=$(date +%s.%N)
for i in $(seq "$N"); do
	"$tmp/ibdoctor" fabric check --ibsim "$IBSIM_SOCKNAME" --format json >/dev/null || true
done
end=$(date +%s.%N)
ours=$(awk "BEGIN{print ($end - $start) / $N}")

pairs=$((H * (H - 1)))
allpairs=$(awk "BEGIN{print $per * $pairs}")
big=$(awk "BEGIN{print $per * 16384 * 16383 / 3600}")
printf 'fabric: %d spines, %d leaves, %d HCAs (%d CA pairs); machine: %s, %s\n' "$SP" "$LV" "$H" "$pairs" "$(nproc) cores" "$(date -u +%F)"
printf 'ibtracert: %.1f ms per pair -> all pairs %.1f s\n' "$(awk "BEGIN{print $per * 1000}")" "$allpairs"
printf 'ibdoctor fabric check (collect + all checks + routing, all pairs): %.2f s\n' "$ours"
printf 'ratio: %.0fx\n' "$(awk "BEGIN{print $allpairs / $ours}")"
printf 'at 16,384 HCAs the ibtracert way would take %.0f hours\n' "$big"
