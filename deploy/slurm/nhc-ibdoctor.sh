#!/bin/bash
# NHC check for ibdoctor: `ibdoctor check` exit codes are 0 healthy,
# 1 warnings only, 2 at least one critical finding, 3 could not run.
# Also usable directly as a Slurm HealthCheckProgram wrapper: it exits 0 or 1.
#
# Environment: IBDOCTOR (binary, default /usr/bin/ibdoctor), IBDOCTOR_EXPECT
# (expectation file, default /etc/ibdoctor/expect.yaml when present).

check_ibdoctor() {
	local bin=${IBDOCTOR:-/usr/bin/ibdoctor}
	local args=(check --quiet)
	local expect=${IBDOCTOR_EXPECT:-/etc/ibdoctor/expect.yaml}
	[[ -r $expect ]] && args+=(--expect "$expect")
	local out rc
	out=$(timeout 60 "$bin" "${args[@]}" 2>&1)
	rc=$?
	case $rc in
	0) return 0 ;;
	1)
		log "ibdoctor: warnings: ${out//$'\n'/; }"
		return 0
		;;
	2)
		die 1 "ibdoctor: critical RDMA finding: ${out%%$'\n'*}"
		return 1
		;;
	*)
		die 1 "ibdoctor: could not run (exit $rc): ${out%%$'\n'*}"
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
