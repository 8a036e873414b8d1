#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given time each.
set -euo pipefail
t=${1:-10s}
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for fz in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
		echo "== $pkg $fz"
		go test -run '^$' -fuzz "^$fz\$" -fuzztime "$t" "$pkg"
	done
done
