#!/usr/bin/env bash
# Enforces the one-way architecture (SPEC): sources → snapshot → rules →
# findings → outputs. Rules never do I/O-side imports; domain packages never
# import sources or the CLI.
set -euo pipefail
mod=$(go list -m)
fail=0
check() { # package, forbidden import prefix...
	local pkg=$1; shift
	[ -d "${pkg#"$mod"/}" ] || return 0
	local deps
	deps=$(go list -deps "$pkg" 2>/dev/null)
	for bad in "$@"; do
		if grep -q "^$mod/$bad" <<<"$deps"; then
			echo "layering: $pkg must not import $mod/$bad" >&2
			fail=1
		fi
	done
}
sources="internal/sysfs internal/rootfs internal/bundle internal/sim internal/agent internal/store"
outputs="internal/report internal/metrics internal/cli"
# Domain types: import nothing that does I/O, judges or renders.
for p in ib pcie finding snapshot catalog expect; do
	check "$mod/internal/$p" $sources $outputs internal/rules internal/triage internal/trend internal/routing
done
# Rules are pure functions over snapshots and parsed inputs: no sources,
# no outputs.
for p in rules triage trend routing; do
	check "$mod/internal/$p" $sources $outputs
done
# Parsers of tool outputs: no sources, no outputs, no CLI.
for p in kmsg topo ethtool ncclenv ibtools hcatext nccl perftest rates; do
	check "$mod/internal/$p" $sources $outputs
done
# Outputs render findings and snapshots; they never judge or read.
for p in report metrics; do
	check "$mod/internal/$p" internal/sysfs internal/rootfs internal/bundle internal/sim internal/rules internal/triage internal/cli
done
exit $fail
