#!/usr/bin/env bash
# An emulated fabric that moves real bytes, to check `ibdoctor fabric job`'s
# predictions against traffic.
#
# 1. The fabric: a leaf-spine tree (SPINES × LEAVES × HOSTS per leaf,
#    default 2 × 4 × 2) written by `ibdoctor sim fabric`, simulated by
#    ibsim, routed once by OpenSM (ENGINE, default minhop) and collected by
#    `ibdoctor fabric collect`; without ibsim, or with --from DIR, a saved
#    collection (default bench/testdata/emulated-2x4x2, taken that way).
# 2. One network namespace per switch and per host; one veth pair per
#    cable, named by port (p1, p2, ...), each direction shaped by tc to RATE
#    Mbit/s times the link's rate over the fabric's (a 1X link in a 4X
#    fabric gets a quarter): htb with one class per sending host, so that the flows
#    sharing a link share it fairly, as a switch's round robin between its
#    input ports does. Every node has one address (hosts 10.77.0.N,
#    switches 10.77.1.N) that exists only inside the namespaces made here:
#    no namespace is linked to the machine's own network and none has a
#    default route, so nothing leaves them. All of it goes on exit.
# 3. Routes follow the forwarding tables OpenSM programmed: for every
#    switch and every host LID, dump_fts's output port becomes
#    `ip route add HOST/32 via PEER dev pPORT onlink` in the switch's
#    namespace. A packet therefore takes the hop-by-hop path the LFTs give
#    its destination LID, in both directions (ACKs too).
# 4. Traffic: two ibdoctor agents per host namespace (one receives, one
#    sends: an agent runs one test at a time) and the pairwise tcp backend
#    (the agents' /api/v1/perf/server and /client), one TCP stream per ring
#    flow, all started at once by one `curl --parallel`; each receiver
#    counts the bytes of a SECS window. The requests go from the first
#    host's namespace across the emulated fabric (a few hundred bytes
#    before and after each test).
# 5. Placements: (a) the first of a fixed series of host shuffles that
#    `fabric job` predicts congested, and (b) the order it proposes for the
#    same hosts. One flow alone gives the contention-free rate C; then
#    REPS repetitions of ring (a) and ring (b). Each flow's median over the
#    repetitions, over C, is compared with its predicted share (1 / the
#    most flows on a link of its route); the figures: the measured
#    fraction of the flows predicted slowest against the predicted
#    fraction, for (a) and (b), and the ratio (b)/(a).
#
# Usage: bench/emulated-fabric.sh [--from DIR] [--rate MBIT] [--seconds S]
#          [--reps N] [--out FILE.md] [--check] [--spines N --leaves N --hosts N]
#          [--fault FAULT]...   (faults of `ibdoctor sim fabric`, e.g. narrow:leaf2[3])
#   --check: exit 1 unless every measured figure is within TOL (0.15) of
#            its prediction.
# Exit 77 when it cannot run here (not root, no network namespaces).
# Needs: root, iproute2 (ip, tc), curl, awk; ibsim-utils and opensm for a
# live fabric; go to build ibdoctor unless IBDOCTOR names a binary.
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=50 SECS=2 REPS=3 FROM= OUT= CHECK=0 TOL=${TOL:-0.15}
SPINES=2 LEAVES=4 HOSTS=2 ENGINE=${ENGINE:-minhop} FAULTS=()
while [ $# -gt 0 ]; do
	case $1 in
	--from) FROM=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--check) CHECK=1; shift ;;
	--spines) SPINES=$2; shift 2 ;;
	--leaves) LEAVES=$2; shift 2 ;;
	--hosts) HOSTS=$2; shift 2 ;;
	--fault) FAULTS+=(--fault "$2"); shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "emulated-fabric: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
say() { echo "emulated-fabric: $*" >&2; }
if [ "$(id -u)" != 0 ]; then say "needs root (network namespaces, tc)"; exit 77; fi
for t in ip tc curl awk; do
	command -v $t >/dev/null || { say "$t missing"; exit 77; }
done
TAG=ibem$$
if ! ip netns add $TAG-probe 2>/dev/null; then say "cannot create network namespaces (ip netns add)"; exit 77; fi
ip netns del $TAG-probe

W=$(mktemp -d /tmp/emulated-fabric.XXXXXX)
PIDS=()
NSS=()
cleanup() {
	local p n
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	for n in "${NSS[@]}"; do ip netns del "$n" 2>/dev/null || true; done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${IBDOCTOR:-}" ]; then
	go build -o "$W/ibdoctor" ./cmd/ibdoctor
	IBDOCTOR=$W/ibdoctor
fi

# --- 1. the fabric and its forwarding tables --------------------------------
say "[${SECONDS}s] the fabric and its forwarding tables"
COLL=$FROM
ORIGIN=$FROM
if [ -z "$COLL" ] && command -v ibsim >/dev/null && command -v opensm >/dev/null && ls /usr/lib/*/umad2sim/libumad2sim.so >/dev/null 2>&1; then
	"$IBDOCTOR" sim fabric --spines "$SPINES" --leaves "$LEAVES" --hosts-per-leaf "$HOSTS" "${FAULTS[@]}" --out "$W/sim" >/dev/null
	mkfifo "$W/console"
	sock=$TAG
	(cd "$W" && exec env IBSIM_SOCKNAME=$sock ibsim -s sim/net <console >ibsim.log 2>&1) &
	PIDS+=($!)
	exec 9>"$W/console" # keeps the console open while ibsim runs
	for _ in $(seq 150); do grep -q "simulator ready" "$W/ibsim.log" 2>/dev/null && break; sleep 0.1; done
	grep -q "simulator ready" "$W/ibsim.log" || { say "ibsim did not start: $(cat "$W/ibsim.log")"; exit 1; }
	(cd "$W" && IBSIM_SOCKNAME=$sock SIM_HOST=h1 OSM_TMP_DIR=$W OSM_CACHE_DIR=$W \
		timeout 60 ibsim-run opensm -o -R "$ENGINE" -f "$W/osm.log" >/dev/null 2>&1) ||
		{ say "OpenSM failed: $(tail -5 "$W/osm.log")"; exit 1; }
	(cd "$W" && "$IBDOCTOR" fabric collect --ibsim "$sock" --out "$W/coll" >/dev/null 2>&1)
	COLL=$W/coll
	ORIGIN="ibsim $SPINES×$LEAVES×$HOSTS, OpenSM -R $ENGINE (live)"
fi
if [ -z "$COLL" ]; then
	COLL=bench/testdata/emulated-2x4x2
	ORIGIN="$COLL (saved ibsim + OpenSM minhop collection)"
fi
for f in ibnetdiscover.txt dump_fts.txt; do
	[ -s "$COLL/$f" ] || { say "$COLL/$f missing"; exit 1; }
done

# Topology from ibnetdiscover: nodes, cables (once each, from the switch
# side), host LIDs.
awk -v W="$W" '
BEGIN { split("SDR 2.5 DDR 5 QDR 10 FDR10 10 FDR 14 EDR 25 HDR 50 NDR 100 XDR 200", a, " "); for (i = 1; i < 20; i += 2) lane[a[i]] = a[i + 1] }
function quoted(s,   i, r) { i = index(s, "\""); r = substr(s, i + 1); return substr(r, 1, index(r, "\"") - 1) }
/^Switch/ { cur = quoted(substr($0, index($0, "#"))); print cur, "S" > (W "/nodes"); next }
/^(Ca|Rt)/ { cur = ""; next }
/^\[/ && cur != "" {
	p = substr($0, 2, index($0, "]") - 2)
	rest = substr($0, index($0, "]") + 1)
	id = quoted(rest)
	after = substr(rest, index(rest, "\"" id "\"") + length(id) + 2)
	pp = substr(after, 2, index(after, "]") - 2)
	c = substr(rest, index(rest, "#"))
	peer = quoted(c)
	# the rate of the link: "4xQDR" is 4 lanes of 10 Gb/s
	g = 0
	if (match(c, /[0-9]+x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)/)) {
		r = substr(c, RSTART, RLENGTH); w = substr(r, 1, index(r, "x") - 1); sp = substr(r, index(r, "x") + 1)
		g = w * lane[sp]
	}
	if (id ~ /^H-/) {
		print peer, "H" > (W "/nodes")
		if (match(c, /lid [0-9]+/)) print peer, substr(c, RSTART + 4, RLENGTH - 4) > (W "/lids")
		print cur, p, peer, pp, g > (W "/links")
	} else if (cur < peer || (cur == peer && p < pp)) {
		print cur, p, peer, pp, g > (W "/links")
	}
}' "$COLL/ibnetdiscover.txt"
# Forwarding tables: switch LID port.
awk '
function hex(s,   i, v, c) { s = tolower(substr(s, 3)); v = 0; for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c } return v }
/^Unicast lids/ { sw = $NF; sub(/^\(/, "", sw); sub(/\):$/, "", sw); next }
/^0x[0-9a-fA-F]+ [0-9]+/ { print sw, hex($1), $2 + 0 }' "$COLL/dump_fts.txt" >"$W/lft"
sort -u -o "$W/nodes" "$W/nodes"
nhosts=$(awk '$2 == "H"' "$W/nodes" | wc -l)
[ "$nhosts" -ge 4 ] || { say "fewer than 4 hosts in $COLL"; exit 1; }

# --- 2. namespaces, cables, shaping ------------------------------------------
say "[${SECONDS}s] namespaces, cables, shaping"
# Addresses: hosts 10.77.0.N, switches 10.77.1.N; every process spawn is
# slow on a loaded machine, so lookups are arrays and the commands batches.
declare -A ADDR NSN LEAF
HOSTLIST=()
while read -r node kind; do
	if [ "$kind" = H ]; then
		HOSTLIST+=("$node")
		ADDR[$node]=10.77.0.${#HOSTLIST[@]}
	else
		nsw=$((${nsw:-0} + 1))
		ADDR[$node]=10.77.1.$nsw
	fi
	NSN[$node]=$TAG-${node//[^A-Za-z0-9]/_}
	NSS+=("${NSN[$node]}")
	echo "netns add ${NSN[$node]}" >>"$W/ip.root"
done <"$W/nodes"
ip -batch "$W/ip.root"
for node in "${!NSN[@]}"; do
	n=${NSN[$node]}
	# IPv4 settings of a new namespace are copied from the machine's:
	# no reverse-path filter (routes are asymmetric), forwarding on
	# switches, no IPv6 chatter.
	echo "link set lo up" >>"$W/ip.$n"
	ip netns exec "$n" sh -c 'for f in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 > $f; done
		echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6; echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6
		echo $1 > /proc/sys/net/ipv4/ip_forward' _ "$([[ ${ADDR[$node]} == 10.77.1.* ]] && echo 1 || echo 0)"
done
# shape NS DEV: RATE out of DEV, shared fairly among the sending hosts: one
# htb class per host address (u32 on the source), all borrowing from the
# link's rate with equal quanta, each with a short queue of its own (this
# kernel has no fq_codel; htb's round robin between classes is the fair
# share, as a switch's arbitration between its input ports is).
shape() {
	local k c RATE=$3
	{
		echo "qdisc add dev $2 root handle 1: htb default 999"
		echo "class add dev $2 parent 1: classid 1:1 htb rate ${RATE}kbit ceil ${RATE}kbit quantum 3028"
		echo "class add dev $2 parent 1:1 classid 1:999 htb rate $((RATE / 100))kbit ceil ${RATE}kbit quantum 3028"
		for ((k = 1; k <= nhosts; k++)); do
			printf -v c %x $((0x100 + k))
			echo "class add dev $2 parent 1:1 classid 1:$c htb rate $((RATE / (nhosts + 1)))kbit ceil ${RATE}kbit quantum 3028"
			echo "qdisc add dev $2 parent 1:$c bfifo limit 200000"
			echo "filter add dev $2 parent 1: protocol ip prio 1 u32 match ip src 10.77.0.$k/32 flowid 1:$c"
		done
	} >>"$W/tc.$1"
}
declare -A PEER
# Each link runs at RATE × its rate over the fabric's (the most common).
NOMINAL=$(awk '$5 > 0 { n[$5]++ } END { for (r in n) if (n[r] > b || n[r] == b && r + 0 > m + 0) { b = n[r]; m = r } print (m == "") ? 1 : m }' "$W/links")
while read -r a pa b pb gb; do
	lrate=$(awk -v r="$RATE" -v g="${gb:-0}" -v n="$NOMINAL" 'BEGIN { printf "%d", r * 1000 * ((g > 0) ? g / n : 1) }')
	na=${NSN[$a]} nb=${NSN[$b]}
	PEER[$a:$pa]=$b PEER[$b:$pb]=$a
	[ "${ADDR[$b]#10.77.0.}" != "${ADDR[$b]}" ] && LEAF[$b]=$a
	echo "link add name p$pa netns $na type veth peer name p$pb netns $nb" >>"$W/ip.links"
	for e in "$na p$pa ${ADDR[$a]}" "$nb p$pb ${ADDR[$b]}"; do
		set -- $e
		echo "addr add $3/32 dev $2" >>"$W/ip.$1"
		echo "link set $2 up" >>"$W/ip.$1"
		shape "$1" "$2" "$lrate"
	done
done <"$W/links"
ip -batch "$W/ip.links"

# --- 3. routes from the forwarding tables ------------------------------------
say "[${SECONDS}s] routes from the forwarding tables"
declare -A HOSTOF
while read -r h l; do HOSTOF[$l]=$h; done <"$W/lids"
while read -r sw lid port; do
	h=${HOSTOF[$lid]:-}
	[ -n "$h" ] || continue # a switch's own LID
	peer=${PEER[$sw:$port]:-}
	[ -n "$peer" ] || { say "$sw has no route to $h: LFT port $port is not cabled"; exit 1; }
	echo "route add ${ADDR[$h]}/32 via ${ADDR[$peer]} dev p$port onlink" >>"$W/ip.${NSN[$sw]}"
done <"$W/lft"
for h in "${HOSTLIST[@]}"; do
	echo "route add 10.77.0.0/16 via ${ADDR[${LEAF[$h]}]} dev p1 onlink" >>"$W/ip.${NSN[$h]}"
done
for n in "${NSS[@]}"; do
	ip -n "$n" -batch "$W/ip.$n"
	tc -n "$n" -batch "$W/tc.$n"
done

# --- 4. agents -----------------------------------------------------------------
say "[${SECONDS}s] agents"
TOKEN=emulated-$$-$RANDOM
mkdir -p "$W/root/sys" "$W/root/proc" "$W/root/dev"
for h in "${HOSTLIST[@]}"; do
	for port in 9315 9316; do
		ip netns exec "${NSN[$h]}" "$IBDOCTOR" agent --listen "${ADDR[$h]}:$port" --token "$TOKEN" --interval 1h \
			--kernel-log none --root "$W/root" >"$W/agent-$h-$port.log" 2>&1 &
		PIDS+=($!)
	done
done
# Requests go from the first host's namespace, across the emulated
# fabric (a few hundred bytes before and after each test).
CTL=${NSN[${HOSTLIST[0]}]}
curlctl() { # curl from the control namespace, quiet unless it fails
	ip netns exec "$CTL" curl --no-progress-meter "$@" 2>"$W/curl.err" || { cat "$W/curl.err" >&2; return 1; }
}
: >"$W/info.curl"
for h in "${HOSTLIST[@]}"; do
	for port in 9315 9316; do
		printf 'next\nurl = "http://%s:%s/api/v1/perf/info"\nheader = "Authorization: Bearer %s"\nfail\noutput = "/dev/null"\n' \
			"${ADDR[$h]}" $port "$TOKEN" >>"$W/info.curl"
	done
done
for _ in $(seq 100); do
	curlctl -K "$W/info.curl" -m 2 --parallel 2>/dev/null && break
	sleep 0.2
done
curlctl -K "$W/info.curl" -m 5 --parallel || { say "agents did not answer: $(tail -n 3 "$W"/agent-*.log)"; exit 1; }

# flows SRC DST ...: runs the flows SRC→DST at once, one TCP stream each
# for SECS, and prints "SRC DST bits/s". The receivers' agents start the
# server sides one after another; one curl then asks all the senders'
# agents at once (--parallel), so the streams start within milliseconds.
TEST="{\"backend\":\"tcp\",\"kind\":\"bw\",\"duration_ms\":$((SECS * 1000))}"
# idle HOST...: waits until the receiving agents of the hosts are free (a
# server side ends a moment after its client has the count).
idle() {
	local h t
	for t in $(seq 50); do
		: >"$W/idle.curl"
		for h in "$@"; do
			printf 'next\nurl = "http://%s:9315/api/v1/perf/info"\nheader = "Authorization: Bearer %s"\noutput = "%s"\n' \
				"${ADDR[$h]}" "$TOKEN" "$W/idle.$h" >>"$W/idle.curl"
		done
		curlctl -K "$W/idle.curl" -m 5 --parallel || true
		if ! cat "$W"/idle.* 2>/dev/null | grep -q '"busy":true'; then return 0; fi
		sleep 0.1
	done
}
flows() {
	local try k n args=("$@") port key ok out bps resp started
	n=$((${#args[@]} / 2))
	for try in 1 2 3; do
		rm -f "$W"/srv.* "$W"/flow.* "$W"/idle.*
		local dsts=()
		for ((k = 0; k < n; k++)); do dsts+=("${args[2 * k + 1]}"); done
		idle "${dsts[@]}"
		: >"$W/srv.curl"
		for ((k = 0; k < n; k++)); do
			printf 'next\nurl = "http://%s:9315/api/v1/perf/server"\nheader = "Authorization: Bearer %s"\ndata = "%s"\noutput = "%s"\n' \
				"${ADDR[${args[2 * k + 1]}]}" "$TOKEN" "{\\\"test\\\":${TEST//\"/\\\"}}" "$W/srv.$k" >>"$W/srv.curl"
		done
		curlctl -K "$W/srv.curl" -m 20 || true
		: >"$W/cli.curl"
		: >"$W/del.curl"
		ok=1
		for ((k = 0; k < n; k++)); do
			resp=
			[ -e "$W/srv.$k" ] && read -r resp <"$W/srv.$k"
			if ! [[ $resp =~ \"port\":([0-9]+).*\"key\":\"([0-9a-f]+)\" ]]; then ok=0; say "try $try: server side on ${args[2 * k + 1]}: $resp"; continue; fi
			port=${BASH_REMATCH[1]} key=${BASH_REMATCH[2]}
			body="{\"test\":$TEST,\"peer\":\"${ADDR[${args[2 * k + 1]}]}\",\"port\":$port,\"key\":\"$key\"}"
			printf 'next\nurl = "http://%s:9316/api/v1/perf/client"\nheader = "Authorization: Bearer %s"\ndata = "%s"\noutput = "%s"\n' \
				"${ADDR[${args[2 * k]}]}" "$TOKEN" "${body//\"/\\\"}" "$W/flow.$k" >>"$W/cli.curl"
			printf 'next\nurl = "http://%s:9315/api/v1/perf/server/%s"\nrequest = "DELETE"\nheader = "Authorization: Bearer %s"\noutput = "/dev/null"\n' \
				"${ADDR[${args[2 * k + 1]}]}" "$port" "$TOKEN" >>"$W/del.curl"
		done
		if [ $ok = 0 ]; then
			curlctl -K "$W/del.curl" -m 5 --parallel || true # free the started ones
			sleep 1
			continue
		fi
		curlctl -K "$W/cli.curl" -m $((SECS + 30)) --parallel --parallel-immediate --parallel-max 64 || true
		out=""
		for ((k = 0; k < n; k++)); do
			resp= bps=
			[ -e "$W/flow.$k" ] && read -r resp <"$W/flow.$k"
			[[ $resp =~ \"bits_per_second\":([0-9.eE+]+) ]] && bps=${BASH_REMATCH[1]}
			if [ -z "$bps" ]; then ok=0; say "try $try: flow ${args[2 * k]} → ${args[2 * k + 1]}: $resp"; fi
			out+="${args[2 * k]} ${args[2 * k + 1]} ${bps:-0}"$'\n'
		done
		if [ $ok = 1 ]; then printf %s "$out"; return 0; fi
		sleep 1
	done
	say "flows failed three times"
	exit 1
}
ring() { # HOST...: the ring flows of the hosts in order
	local h=("$@") n=$# i a=()
	for ((i = 0; i < n; i++)); do a+=("${h[i]}" "${h[(i + 1) % n]}"); done
	flows "${a[@]}"
}

# --- 5. placements and predictions -----------------------------------------------
say "[${SECONDS}s] placements and predictions"
predict() { # ORDER(comma-separated) → "fraction mean_fraction proposed_fraction proposed_mean"
	"$IBDOCTOR" fabric job --from "$COLL" --hosts "$1" --format json --out-hostfile "$W/proposed" >"$W/job.json" 2>/dev/null || true
	awk '/^  "given"/ { s = "g" } /^  "proposed"/ { s = "p" }
		s != "" && /"fraction":/ && !(s in f) { v = $2; sub(/,$/, "", v); f[s] = v }
		s != "" && /"mean_fraction":/ && !(s "m" in f) { v = $2; sub(/,$/, "", v); f[s "m"] = v }
		END { print f["g"], f["gm"], f["p"], f["pm"] }' "$W/job.json"
}
# (a): the first of a fixed series of shuffles that fabric job predicts
# congested (below its 0.75 threshold).
best=
for seed in $(seq 1 40); do
	order=$(printf '%s\n' "${HOSTLIST[@]}" | awk -v s=$seed 'BEGIN { srand(s) } { print rand(), $0 }' | sort -k1,1g | cut -d' ' -f2 | paste -sd, -)
	read -r f _ _ _ <<<"$(predict "$order")"
	if awk -v f="$f" 'BEGIN { exit !(f < 0.75) }'; then best=$order; break; fi
done
[ -n "$best" ] || { say "no shuffle of the hosts is predicted congested on this fabric"; exit 1; }
read -r FA MFA FB MFB <<<"$(predict "$best")"
PROPOSED=$(paste -sd, "$W/proposed")
"$IBDOCTOR" fabric job --from "$COLL" --hosts "$best" --format csv >"$W/hot-a.csv" 2>/dev/null || true
"$IBDOCTOR" fabric job --from "$COLL" --hosts "$PROPOSED" --format csv >"$W/hot-b.csv" 2>/dev/null || true
say "fabric: $ORIGIN; links shaped to $RATE Mbit/s × their rate over the fabric's ($NOMINAL Gb/s)"
say "(a) $best: predicted $FA (mean over flows $MFA)"
say "(b) $PROPOSED: predicted $FB (mean over flows $MFB)"

# Predicted share of each ring flow: the least share of the links it
# crosses (the CSV lists the constrained links with the sending hosts of
# their flows and each flow's share there).
share() { # CSV SRC
	awk -F, -v s="$2" 'BEGIN { m = 1 } NR > 1 { v = ($5 != "") ? $5 : 1 / $3; n = split($4, h, " "); for (i = 1; i <= n; i++) if (h[i] == s && v < m) m = v } END { print m }' "$1"
}

# --- 6. measure ----------------------------------------------------------------------
say "[${SECONDS}s] measure"
IFS=, read -r -a A <<<"$best"
IFS=, read -r -a B <<<"$PROPOSED"
# C: one flow alone across the spines (the first host to the first host
# under another leaf), measured before the rings.
c_src=${A[0]} c_dst=
for h in "${HOSTLIST[@]}"; do
	[ "${LEAF[$h]}" != "${LEAF[$c_src]}" ] && { c_dst=$h; break; }
done
: >"$W/meas"
flows "$c_src" "$c_dst" | awk '{ print 0, "c", $1, $2, $3 }' >>"$W/meas"
for r in $(seq 1 "$REPS"); do
	ring "${A[@]}" | awk -v r=$r '{ print r, "a", $1, $2, $3 }' >>"$W/meas"
	ring "${B[@]}" | awk -v r=$r '{ print r, "b", $1, $2, $3 }' >>"$W/meas"
	say "[${SECONDS}s] repetition $r/$REPS: $(awk -v r=$r '$1 == r || $1 == 0 { s[$2] = s[$2] sprintf(" %.1f", $5 / 1e6) } END { printf "alone%s | a%s | b%s Mbit/s", s["c"], s["a"], s["b"] }' "$W/meas")"
done
if [ "$REPS" -ge 3 ]; then
	flows "$c_src" "$c_dst" | awk '{ print 0, "c", $1, $2, $3 }' >>"$W/meas"
fi

# --- 7. compare ------------------------------------------------------------------------
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
C=$(awk '$2 == "c" { print $5 }' "$W/meas" | median)
# Per flow: its median over the repetitions, over C, with its predicted share.
for pl in a b; do
	awk -v p=$pl '$2 == p { print $3, $4 }' "$W/meas" | sort -u | while read -r s d; do
		m=$(awk -v p=$pl -v s="$s" -v d="$d" '$2 == p && $3 == s && $4 == d { print $5 }' "$W/meas" | median)
		echo "$pl $s $d $(share "$W/hot-$pl.csv" "$s") $m"
	done
done >"$W/perflow"
# The figures: per placement, the measured fraction of the flows predicted
# slowest (their mean), the slowest flow, the mean of all flows.
fig() { # PLACEMENT COLUMN: 1 predicted-slowest mean, 2 slowest, 3 mean
	awk -v p="$1" -v c="$C" -v col="$2" '$1 == p { n++; v[n] = $5 / c; sh[n] = $4; if (n == 1 || $4 < ms) ms = $4 }
		END { lo = 9; for (i = 1; i <= n; i++) { all += v[i]; if (v[i] < lo) lo = v[i]; if (sh[i] == ms) { s += v[i]; k++ } }
			print (col == 1) ? s / k : (col == 2) ? lo : all / n }' "$W/perflow"
}
MA=$(fig a 1) MB=$(fig b 1) MR=$(awk -v a="$MA" -v b="$MB" 'BEGIN { print b / a }')
LA=$(fig a 2) LB=$(fig b 2) AA=$(fig a 3) AB=$(fig b 3)
PR=$(awk -v a="$FA" -v b="$FB" 'BEGIN { print b / a }')
WORST=$(awk -v c="$C" '{ d = $5 / c / $4 - 1; if (d < 0) d = -d; if (d > w) w = d } END { printf "%.2f", w }' "$W/perflow")

report() {
	echo "## Emulated fabric: \`fabric job\`'s prediction against moved bytes"
	echo
	echo "$(date -u '+%F %H:%M UTC'); $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r), load average $(cut -d' ' -f1 /proc/loadavg);"
	echo "fabric: $ORIGIN; $nhosts host and $(awk '$2 == "S"' "$W/nodes" | wc -l) switch namespaces, every link shaped to $RATE Mbit/s × its rate over the fabric's"
	echo "each way (htb, one class per sending host); one TCP stream per ring flow (the agents' pairwise tcp backend),"
	echo "${SECS} s windows, medians of $REPS repetitions. C = one flow alone across the spines: $(awk -v c="$C" 'BEGIN { printf "%.1f", c / 1e6 }') Mbit/s."
	echo
	echo "(a) a placement \`fabric job\` predicts congested: \`$best\`"
	echo "(b) the order it proposes for the same hosts: \`$PROPOSED\`"
	echo
	echo "| figure | predicted | measured | measured / predicted |"
	echo "|---|---:|---:|---:|"
	awk -v fa="$FA" -v ma="$MA" -v fb="$FB" -v mb="$MB" -v pr="$PR" -v mr="$MR" -v la="$LA" -v lb="$LB" \
		-v mfa="$MFA" -v aa="$AA" -v mfb="$MFB" -v ab="$AB" 'BEGIN {
		printf "| (a) per-flow fraction of the flows predicted slowest (÷ C) | %.3f | %.3f | %.2f |\n", fa, ma, ma / fa
		printf "| (b) per-flow fraction of the flows predicted slowest (÷ C) | %.3f | %.3f | %.2f |\n", fb, mb, mb / fb
		printf "| ratio (b)/(a) | %.2f | %.2f | %.2f |\n", pr, mr, mr / pr
		printf "| (a) slowest measured flow ÷ C | %.3f | %.3f | %.2f |\n", fa, la, la / fa
		printf "| (b) slowest measured flow ÷ C | %.3f | %.3f | %.2f |\n", fb, lb, lb / fb
		printf "| (a) mean flow ÷ C (aggregate) | %.3f | %.3f | %.2f |\n", mfa, aa, aa / mfa
		printf "| (b) mean flow ÷ C (aggregate) | %.3f | %.3f | %.2f |\n", mfb, ab, ab / mfb
	}'
	echo
	echo "Per flow (median of the repetitions; predicted share = the least, over the links of its route, of the link's rate over its flows):"
	echo
	echo "| placement | flow | predicted share | measured Mbit/s | measured ÷ C |"
	echo "|---|---|---:|---:|---:|"
	awk -v c="$C" '{ printf "| (%s) | %s → %s | %.2f | %.1f | %.2f |\n", $1, $2, $3, $4, $5 / 1e6, $5 / c }' "$W/perflow"
	echo
	echo "Largest per-flow difference from the predicted share: $WORST."
}
report | tee "$W/report.md"
if [ -n "$OUT" ]; then cp "$W/report.md" "$OUT"; fi
echo "RESULT predicted_a=$FA measured_a=$MA predicted_b=$FB measured_b=$MB predicted_ratio=$PR measured_ratio=$MR worst_flow=$WORST seconds=$SECONDS"
if [ $CHECK = 1 ]; then
	awk -v t="$TOL" -v fa="$FA" -v ma="$MA" -v fb="$FB" -v mb="$MB" -v pr="$PR" -v mr="$MR" 'function off(m, p) { d = m / p - 1; return d < -t || d > t }
		BEGIN { exit off(ma, fa) + off(mb, fb) + off(mr, pr) + (fa >= fb) > 0 }' ||
		{ say "measured and predicted differ by more than $TOL"; exit 1; }
	say "measured within $TOL of the prediction"
fi
