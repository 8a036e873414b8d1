#!/usr/bin/env bash
# Cost of `ibdoctor hub` polling a large fleet: N real agents (the simulated
# h100-ndr node, 8 NDR InfiniBand HCAs + 2 RoCE ports, 2% with a port in
# Polling and 2% with a narrow link) each on its own loopback HTTP server,
# in a child process, and the hub polling every one of them every INTERVAL
# in the test process (so the figures are the hub's alone).
#
# Reported after a warm-up cycle, over CYCLES cycles: the hub's CPU share
# (process CPU time / wall time), RSS and peak Go heap, the median poll
# cycle, the median time to build the fleet page's data (Fleet(); the page
# render is the web package's benchmark), the history database's size.
# RETENTION 3h makes the history step equal to the interval: a row per node
# and poll, the most the history ever writes.
#
# Usage: bench/hub-2000-agents.sh [N]   (default N=2000)
#        INTERVAL=15s CYCLES=8 RETENTION=3h bench/hub-2000-agents.sh 2000
# Needs: go.
set -euo pipefail
N=${1:-2000}
cd "$(dirname "$0")/.."
IBDOCTOR_HUB_SCALE=$N IBDOCTOR_HUB_REPLAY=${REPLAY:-} IBDOCTOR_HUB_INTERVAL=${INTERVAL:-15s} IBDOCTOR_HUB_CYCLES=${CYCLES:-8} \
	IBDOCTOR_HUB_RETENTION=${RETENTION:-3h} \
	go test -count=1 -run '^TestHubAtScale$' -v -timeout 60m ./internal/service/hub |
	grep -E 'scale_test|RESULT|FAIL|ok'
go test -count=1 -run '^$' -bench '^BenchmarkFleet2000$' -benchtime 50x ./internal/service/hub | grep -E 'Benchmark|ok'
