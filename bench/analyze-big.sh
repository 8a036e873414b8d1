#!/usr/bin/env bash
# `ibdoctor analyze` of a big NCCL debug log, a big kernel log and a big
# job log (1 GB each by default), streamed: throughput and peak memory
# against `grep -c` over the same file. The logs are generated
# deterministically (bench/genlog) from the real lines of the analyze
# corpus with varying hosts, ranks and times, so their faults recur
# through the whole file; the job log starts with other tools' output
# (an mpirun banner, ibstat and nvidia-smi topo -m of a node: about 230
# lines, judged as a paste of them is) and goes on with the NCCL log.
# Not part of `make test`: it writes SIZE bytes three times and reads
# them 6 × RUNS times.
#
# Printed per log: the median of RUNS runs of the wall time, its MB/s
# (10^6 bytes) and CPU time (user + system), the largest maximum RSS of
# the runs (/usr/bin/time -v), grep's median wall time and MB/s, and
# analyze's time as a multiple of grep's; then the machine, its load and
# the date. On a loaded machine wall times stretch: the CPU time is
# printed beside them.
#
# Usage: [SIZE=BYTES] [RUNS=N] bench/analyze-big.sh
# Needs: go, /usr/bin/time, GNU grep, df.
set -euo pipefail
SIZE=${SIZE:-1000000000} RUNS=${RUNS:-3}
cd "$(dirname "$0")/.."
for t in go /usr/bin/time grep df; do
	command -v $t >/dev/null || { echo "$t missing" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

need=$((3 * SIZE + (256 << 20)))
avail=$(($(df -Pk "$tmp" | awk 'NR==2 {print $4}') * 1024))
if ((avail < need)); then
	echo "$tmp: $((avail >> 20)) MiB free, $((need >> 20)) MiB needed" >&2
	exit 1
fi

go build -o "$tmp/ibdoctor" ./cmd/ibdoctor
go build -o "$tmp/genlog" ./bench/genlog
corpus=internal/diagnose/analyze/testdata/realworld
"$tmp/genlog" nccl "$SIZE" "$corpus" >"$tmp/nccl.log"
"$tmp/genlog" kernel "$SIZE" "$corpus" >"$tmp/kernel.log"
"$tmp/genlog" mixed "$SIZE" "$corpus" >"$tmp/job.log"

# median reads numbers, one a line, and prints their median.
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# measure LOG WORD: RUNS runs of analyze and of grep -c WORD on LOG.
measure() {
	local log=$1 word=$2 i rc bytes
	bytes=$(stat -c %s "$log")
	: >"$tmp/a.wall"; : >"$tmp/a.cpu"; : >"$tmp/a.rss"; : >"$tmp/g.wall"
	for ((i = 0; i < RUNS; i++)); do
		rc=0
		/usr/bin/time -v -o "$tmp/time" "$tmp/ibdoctor" analyze "$log" >"$tmp/report" || rc=$?
		if ((rc > 2)); then
			echo "analyze $log: exit $rc" >&2
			head -20 "$tmp/report" >&2
			exit 1
		fi
		awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (j = 1; j <= n; j++) s = s * 60 + p[j]; print s}' "$tmp/time" >>"$tmp/a.wall"
		awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$tmp/time" >>"$tmp/a.cpu"
		awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time" >>"$tmp/a.rss"
		# Not to /dev/null: GNU grep then stops at the first match.
		/usr/bin/time -f %e -o "$tmp/gtime" grep -c "$word" "$log" >"$tmp/count" || true
		cat "$tmp/gtime" >>"$tmp/g.wall"
	done
	local aw ac rss gw
	aw=$(median <"$tmp/a.wall") ac=$(median <"$tmp/a.cpu") gw=$(median <"$tmp/g.wall")
	rss=$(sort -g "$tmp/a.rss" | tail -1)
	awk -v name="$(basename "$log")" -v b="$bytes" -v aw="$aw" -v ac="$ac" -v rss="$rss" -v gw="$gw" -v w="$word" 'BEGIN {
		mb = b / 1e6
		printf "%-11s %6.0f MB  analyze %6.2f s wall %7.1f MB/s, %6.2f s CPU %7.1f MB/s, max RSS %4.0f MiB | grep -c %s %5.2f s %7.1f MB/s | analyze/grep %5.1fx\n",
			name, mb, aw, mb / aw, ac, mb / ac, rss / 1024, w, gw, mb / (gw > 0 ? gw : 0.01), aw / (gw > 0 ? gw : 0.01)
	}'
	sed -n 1p "$tmp/report" | sed 's/^/            report: /'
}

echo "median of $RUNS runs"
measure "$tmp/nccl.log" NCCL
measure "$tmp/kernel.log" mlx5
measure "$tmp/job.log" NCCL
echo "machine: $(nproc) CPUs, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
