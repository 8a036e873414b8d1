#!/usr/bin/env bash
# Runs govulncheck (pinned below, fetched through the Go module proxy) over
# the module when its vulnerability database is reachable; says so and
# succeeds when it is not (an offline build machine), so `make test` works
# offline and checks whenever it can. Known vulnerabilities in code the
# module calls fail the step (govulncheck exits 3).
#
#   GOVULNCHECK_DB   database URL (default https://vuln.go.dev)
#   GOVULNCHECK_SKIP set to 1 to skip the step
set -euo pipefail
version=v1.9.0
db=${GOVULNCHECK_DB:-https://vuln.go.dev}

if [[ "${GOVULNCHECK_SKIP:-}" == 1 ]]; then
	echo "govulncheck: skipped (GOVULNCHECK_SKIP=1)"
	exit 0
fi
# The database's index, as govulncheck fetches it first.
reachable() {
	case "$db" in
	file://*) [[ -r "${db#file://}/index/db.json" ]] ;;
	*)
		if command -v curl >/dev/null; then
			curl -fsS -o /dev/null --max-time 10 "$db/index/db.json" 2>/dev/null
		elif command -v wget >/dev/null; then
			wget -q -O /dev/null --timeout=10 "$db/index/db.json"
		else
			return 1
		fi
		;;
	esac
}
if ! reachable; then
	echo "govulncheck: database not reachable, skipped ($db)"
	exit 0
fi
echo "govulncheck $version against $db"
exec go run "golang.org/x/vuln/cmd/govulncheck@$version" -db "$db" ./...
