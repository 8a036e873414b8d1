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
for p in ib pcie finding snapshot catalog; do
	check "$mod/internal/$p" internal/sysfs internal/rootfs internal/cli internal/sim internal/bundle internal/rules internal/report
done
check "$mod/internal/rules" internal/sysfs internal/rootfs internal/cli internal/sim internal/bundle internal/report
check "$mod/internal/report" internal/sysfs internal/rootfs internal/rules internal/sim
exit $fail
