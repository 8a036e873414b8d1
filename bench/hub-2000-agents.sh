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
# With REPLAY=1 the agents are replayed instead (the hub alone, measured):
# one child process serves N loopback listeners with the /api/v1/health
# and /api/v1/ports answers captured from three real agents (healthy, a
# port in Polling, a narrow link) after two samples 15 s apart, so every
# counter has a rate (178 KB per ports answer, indented as the agent
# writes it); each ports answer is the next of 16 versions with other
# rates; asked for ?readings=0 (as the hub does) it leaves the readings
# out as the agent does (87 KB), REPLAY=full answers as agents before that
# (readings always). Real agents cost the shared cores as much as the hub
# did.
# Also reported: the history's growth per cycle (pages in use, WAL
# included) and, from it, per node-day at the default retention.
#
# Measured with REPLAY=1 CYCLES=8 on the 2-core VM, 2026-12-01:
#   before (encoding/json, JSON rates), 16:15, load 33-38: hub CPU 5.70 s
#     per cycle, cycle median 13.96 s (max 18.8), RSS 489 MiB, history
#     964 bytes per node and step (48 KiB per node-day, 1.3 GB for 2,000
#     nodes over the default 14 d)
#   after (decodePorts, packed rates), 16:19, load 21-33: hub CPU 1.13 s
#     per cycle, cycle median 2.69 s (max 3.7), RSS 175 MiB, history
#     194 bytes per node and step (10 KiB per node-day, 267 MiB);
#     again at 16:35, load 31-38: 1.22 s, 4.30 s (max 5.8), 169 MiB,
#     183 bytes (9 KiB, 252 MiB). Benchmarks (cpu-ns/op): decodePorts
#     0.23-0.5 ms per 178 KB answer (encoding/json 3.0 ms), recording a
#     cycle of 2,000 nodes 123 ms.
#   the agents leaving the readings out (?readings=0, 87 KB), 16:47, load
#     25-28: 1.03 s, 3.02 s (max 4.5), 148 MiB, 189 bytes (10 KiB, 260 MiB)
#
# Usage: bench/hub-2000-agents.sh [N]   (default N=2000)
#        INTERVAL=15s CYCLES=8 RETENTION=3h REPLAY=1 bench/hub-2000-agents.sh 2000
# Needs: go.
set -euo pipefail
N=${1:-2000}
cd "$(dirname "$0")/.."
IBDOCTOR_HUB_SCALE=$N IBDOCTOR_HUB_REPLAY=${REPLAY:-} IBDOCTOR_HUB_INTERVAL=${INTERVAL:-15s} IBDOCTOR_HUB_CYCLES=${CYCLES:-8} \
	IBDOCTOR_HUB_RETENTION=${RETENTION:-3h} \
	go test -count=1 -run '^TestHubAtScale$' -v -timeout 60m ./internal/service/hub |
	grep -E 'scale_test|RESULT|FAIL|ok'
go test -count=1 -run '^$' -bench '^(BenchmarkFleet2000|BenchmarkDecodePorts|BenchmarkPollDecode|BenchmarkRecordCycle2000)$' \
	-benchtime 50x ./internal/service/hub | grep -E 'Benchmark|ok'
