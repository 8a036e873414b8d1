#!/bin/bash
# NHC check for ibdoctor: `ibdoctor check` exit codes are 0 healthy,
# 1 warnings only, 2 at least one critical finding, 3 could not run.
# Also usable directly as a Slurm HealthCheckProgram wrapper: it exits 0 or 1.
#
# `ibdoctor check --format drain-reason` prints nothing when healthy, else a
# short first line naming the worst finding and where it is, which becomes
# the drain reason (sinfo -R cuts long reasons), then one line per finding,
# which go to the log.
#
# Environment: IBDOCTOR (binary, default /usr/bin/ibdoctor), IBDOCTOR_EXPECT
# (expectation file, default /etc/ibdoctor/expect.yaml when present),
# IBDOCTOR_ROOT (node root or bundle to judge, default /).

check_ibdoctor() {
	local bin=${IBDOCTOR:-/usr/bin/ibdoctor}
	local args=(check --format drain-reason)
	local expect=${IBDOCTOR_EXPECT:-/etc/ibdoctor/expect.yaml}
	[[ -r $expect ]] && args+=(--expect "$expect")
	[[ -n ${IBDOCTOR_ROOT:-} ]] && args+=(--root "$IBDOCTOR_ROOT")
	local out rc line
	out=$(timeout 60 "$bin" "${args[@]}" 2>&1)
	rc=$?
	local reason=${out%%$'\n'*}
	local rest=
	[[ $out == *$'\n'* ]] && rest=${out#*$'\n'}
	case $rc in
	0) return 0 ;;
	1)
		while IFS= read -r line; do
			[[ -n $line ]] && log "$line"
		done <<<"$rest"
		return 0
		;;
	2)
		while IFS= read -r line; do
			[[ -n $line ]] && log "$line"
		done <<<"$rest"
		die 1 "$reason"
		return 1
		;;
	*)
		# The error (a missing root, a bad expectation file) goes to the
		# log; the reason stays short.
		while IFS= read -r line; do
			[[ -n $line ]] && log "$line"
		done <<<"$out"
		die 1 "ibdoctor: could not run (exit $rc)"
		return 1
		;;
	esac
}

# Run standalone (not sourced by NHC): provide NHC's log/die and exit.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	log() { echo "$*" >&2; }
	die() {
		shift
		echo "$*" >&2
	}
	check_ibdoctor
	exit $?
fi
