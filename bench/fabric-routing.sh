#!/usr/bin/env bash
# Routing analysis from the forwarding tables versus tracing every pair
# with ibtracert.
#
# 1. Go benchmarks (median of COUNT runs) of internal/rules/routing's full
#    analysis from the in-memory model — every destination LID from every
#    switch, per-link loads, non-minimal check, credit-loop search, tree
#    shape — on generated 3-level fat-trees of 1k, 4k and 16k HCAs, with
#    the peak RSS of the 16k run; and, when internal/rules/fabric is present, its
#    BenchmarkEndToEnd (parse ibnetdiscover + dump_fts text, every fabric
#    check, the same routing analysis).
# 2. ibtracert for EVERY CA pair of a small ibsim fabric (SPINES × LEAVES ×
#    HOSTS, routed once by OpenSM minhop), median of 3 rounds; then how long
#    the same all-pairs coverage would take that way on the 16k fabric, and
#    the ratio to the analysis.
#
# Usage: bench/fabric-routing.sh [SPINES LEAVES HOSTS [COUNT]]   (default 2 4 4 5)
# Needs: go, ibsim-utils, opensm, infiniband-diags (scripts/install-deps.sh).
set -euo pipefail
SP=${1:-2} LV=${2:-4} HO=${3:-4} COUNT=${4:-5}
cd "$(dirname "$0")/.."
for t in go ibsim opensm ibtracert ibnetdiscover; do
	command -v "$t" >/dev/null || { echo "$t missing (scripts/install-deps.sh)" >&2; exit 1; }
done
lib=$(ls /usr/lib/*/umad2sim/libumad2sim.so | head -1)
tmp=$(mktemp -d)
simpid=
cleanup() {
	[ -n "$simpid" ] && kill "$simpid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

median() { sort -g | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "== machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u '+%F %H:%M UTC'); $(go version | cut -d' ' -f3)"

echo "== routing analysis from the model (go test -bench Analyze, median of $COUNT)"
go test -c -o "$tmp/routing.test" ./internal/routing
"$tmp/routing.test" -test.run '^$' -test.bench '^BenchmarkAnalyze$' -test.benchmem -test.count "$COUNT" >"$tmp/analyze.txt"
declare -A ns
for sz in 1k 4k 16k; do
	ns[$sz]=$(awk -v n="BenchmarkAnalyze/$sz-" 'index($1, n) == 1 {print $3}' "$tmp/analyze.txt" | median)
	mem=$(awk -v n="BenchmarkAnalyze/$sz-" 'index($1, n) == 1 {print $5}' "$tmp/analyze.txt" | median)
	allocs=$(awk -v n="BenchmarkAnalyze/$sz-" 'index($1, n) == 1 {print $7}' "$tmp/analyze.txt" | median)
	printf '  %-4s %8.3f s  %7.1f MiB allocated  %6d allocs\n' "$sz" "$(awk "BEGIN{print ${ns[$sz]}/1e9}")" "$(awk "BEGIN{print $mem/1048576}")" "$allocs"
done
# Switches of the benchmark tree with P pods: 32P leaves, 16P pod spines,
# 256 cores; LIDs: 1024P HCAs + switches.
work() { awk -v p="$1" 'BEGIN{s = 48*p + 256; print s * (1024*p + s)}'; }
printf '  scaling 1k -> 16k: %.1fx the time for 16x the HCAs and %.0fx the switch x LID walks\n' \
	"$(awk "BEGIN{print ${ns[16k]}/${ns[1k]}}")" "$(awk "BEGIN{print $(work 16)/$(work 1)}")"
rss=$(/usr/bin/time -f '%M' "$tmp/routing.test" -test.run '^$' -test.bench '^BenchmarkAnalyze$/16k' -test.benchtime 1x 2>&1 >/dev/null | tail -1)
printf '  peak RSS of the 16k run (generation included): %.0f MiB\n' "$(awk "BEGIN{print $rss/1024}")"

if [ -d internal/rules/fabric ] && grep -q BenchmarkEndToEnd internal/rules/fabric/*_test.go 2>/dev/null; then
	echo "== parse + all fabric checks + routing (internal/rules/fabric BenchmarkEndToEnd, median of 3)"
	go test -c -o "$tmp/fabric.test" ./internal/fabric
	"$tmp/fabric.test" -test.run '^$' -test.bench '^BenchmarkEndToEnd$' -test.benchmem -test.count 3 >"$tmp/e2e.txt" || true
	for sz in 1k 4k 16k; do
		v=$(awk -v n="BenchmarkEndToEnd/$sz-" 'index($1, n) == 1 {print $3}' "$tmp/e2e.txt" | median)
		[ -n "$v" ] && printf '  %-4s %8.3f s\n' "$sz" "$(awk "BEGIN{print $v/1e9}")"
	done
	e2e16=$(awk -v n="BenchmarkEndToEnd/16k-" 'index($1, n) == 1 {print $3}' "$tmp/e2e.txt" | median)
	rss=$(/usr/bin/time -f '%M' "$tmp/fabric.test" -test.run '^$' -test.bench '^BenchmarkEndToEnd$/16k' -test.benchtime 1x 2>&1 >/dev/null | tail -1)
	printf '  peak RSS of the 16k run (text generation included): %.0f MiB\n' "$(awk "BEGIN{print $rss/1024}")"
fi

echo "== ibtracert, every CA pair of a ${SP}x${LV}x${HO} ibsim fabric routed by OpenSM minhop"
{
	for s in $(seq "$SP"); do
		printf 'Switch\t%d "spine%d"\n' "$LV" "$s"
		for l in $(seq "$LV"); do printf '[%d]\t"leaf%d"[%d]\n' "$l" "$l" $((HO + s)); done
		echo
	done
	for l in $(seq "$LV"); do
		printf 'Switch\t%d "leaf%d"\n' $((HO + SP)) "$l"
		for h in $(seq "$HO"); do printf '[%d]\t"h%d"[1]\n' "$h" $(((l - 1) * HO + h)); done
		for s in $(seq "$SP"); do printf '[%d]\t"spine%d"[%d]\n' $((HO + s)) "$s" "$l"; done
		echo
	done
	for h in $(seq $((LV * HO))); do
		l=$(((h - 1) / HO + 1)) p=$(((h - 1) % HO + 1))
		printf 'Hca\t1 "h%d"\n[1]\t"leaf%d"[%d]\n\n' "$h" "$l" "$p"
	done
} >"$tmp/net"
export IBSIM_SOCKNAME="ibdroute$$" SIM_HOST=h1 OSM_TMP_DIR=$tmp OSM_CACHE_DIR=$tmp
mkfifo "$tmp/console"
ibsim -s "$tmp/net" <"$tmp/console" >"$tmp/ibsim.log" 2>&1 &
simpid=$!
exec 3>"$tmp/console" # keep the console open
for _ in $(seq 100); do grep -q "simulator ready" "$tmp/ibsim.log" && break; sleep 0.1; done
LD_PRELOAD=$lib timeout 120 opensm -o -f "$tmp/opensm.log" >/dev/null 2>&1
mapfile -t lids < <(LD_PRELOAD=$lib timeout 60 ibnetdiscover 2>/dev/null | sed -n 's/^\[[0-9]*\]([0-9a-f]*) .*# lid \([0-9]*\) lmc.*/\1/p')
H=${#lids[@]}
[ "$H" -gt 1 ] || { echo "no CA LIDs found" >&2; exit 1; }
pairs=$((H * (H - 1)))
rounds=()
for r in 1 2 3; do
	start=$(date +%s.%N)
	fail=0
	for a in "${lids[@]}"; do
		for b in "${lids[@]}"; do
			[ "$a" = "$b" ] && continue
			LD_PRELOAD=$lib timeout 10 ibtracert "$a" "$b" >/dev/null 2>&1 || fail=$((fail + 1))
		done
	done
	end=$(date +%s.%N)
	rounds+=("$(awk "BEGIN{print ($end - $start)}")")
	[ "$fail" -eq 0 ] || echo "  round $r: $fail of $pairs traces failed" >&2
done
all=$(printf '%s\n' "${rounds[@]}" | median)
per=$(awk "BEGIN{print $all / $pairs}")
printf '  %d HCAs, %d pairs: %.2f s all pairs (median of 3) = %.2f ms per pair\n' "$H" "$pairs" "$all" "$(awk "BEGIN{print $per*1000}")"
big=$(awk "BEGIN{print $per * 16384 * 16383}")
printf '  the same coverage at 16,384 HCAs (268,419,072 pairs): %.0f s = %.1f days\n' "$big" "$(awk "BEGIN{print $big/86400}")"
printf '  ratio to the routing analysis at 16k: %.0fx\n' "$(awk "BEGIN{print $big/(${ns[16k]}/1e9)}")"
if [ -n "${e2e16:-}" ]; then
	printf '  ratio to parse + checks + routing at 16k: %.0fx\n' "$(awk "BEGIN{print $big/($e2e16/1e9)}")"
fi
