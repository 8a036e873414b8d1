#!/usr/bin/env bash
# Enforces the one-way pipeline: source → snapshot → rules → findings →
# outputs, as the folders under internal/ name it:
#
#   model     shared domain types; imports no other stage
#   parse     one package per tool format; parsing only (model, parse)
#   source    reads roots, bundles, live hosts and fabrics (model, parse, source)
#   rules     pure judgement (model, parse types, rules); no I/O packages
#   diagnose  runbooks and dispatchers over sources and rules
#   output    renders findings and snapshots; never judges
#   service   long-running processes (agent, pairwise tests, state store)
#   sim       simulated nodes and fabrics (model only, and source/layout:
#             the node-root paths the simulator writes and the sources read)
#   cli       the commands; may use everything
set -euo pipefail
mod=$(go list -m)
fail=0

# deps PKG: the module's packages PKG imports, directly or not, as paths
# relative to internal/.
deps() { go list -deps "$1" | sed -n "s|^$mod/internal/||p"; }

# forbid STAGE ALLOWED...: every package under internal/STAGE may import
# module packages only from the ALLOWED stage prefixes.
forbid() {
	local stage=$1; shift
	local pkg d ok a
	for pkg in $(go list "$mod/internal/$stage/..." 2>/dev/null); do
		for d in $(deps "$pkg"); do
			ok=0
			for a in "$@"; do
				case "$d" in "$a"|"$a"/*) ok=1 ;; esac
			done
			if [ $ok = 0 ]; then
				echo "layering: ${pkg#"$mod"/} must not import internal/$d" >&2
				fail=1
			fi
		done
	done
}

forbid model model
forbid parse model parse
forbid source model parse source
forbid rules model parse rules
forbid diagnose model parse source rules diagnose
forbid output model output rules/catalog rules/limits rules/trend
forbid sim model sim source/layout source/tarball

# Rules do no I/O: no file system, process or network packages directly.
for pkg in $(go list "$mod/internal/rules/..."); do
	for imp in $(go list -f '{{join .Imports "\n"}}' "$pkg"); do
		case "$imp" in
		os | os/exec | net | net/http | io/ioutil | syscall)
			echo "layering: ${pkg#"$mod"/} does I/O: imports $imp" >&2
			fail=1
			;;
		esac
	done
done
exit $fail
