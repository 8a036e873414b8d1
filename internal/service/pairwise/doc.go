// Package pairwise runs bandwidth and latency tests between pairs of nodes
// through the ibdoctor agents and finds the culprit when some are slow.
//
// The pieces, in pipeline order:
//
//   - ParseHosts reads the hosts file (one agent `address:port` per line)
//     and ParseTopology the optional host → leaf/rail/spine map.
//   - RoundRobin (the circle method) and the topology-aware patterns
//     (SameLeaf, CrossLeaf, PerRail) build a Schedule: rounds of disjoint
//     pairs that run at the same time.
//   - Runner drives each pair through the agents' HTTP API: it asks the
//     agent of B to start the server side of a test, then the agent of A to
//     run the client side against it, and collects a Matrix. Preflight
//     first asks every agent for its info, so a wrong token or a missing
//     backend stops the run before it starts.
//   - NewServer is the agent-side http.Handler that serves that API, with
//     two backends: "tcp" (a built-in Go bandwidth and ping-pong latency
//     test) and "perftest" (ib_write_bw/ib_write_lat run with validated
//     arguments, never through a shell).
//   - Matrix.Input hands a Matrix (and the topology) to the culprit rules
//     in internal/rules/pairwise, whose Check turns it into findings.
//   - WriteText (heat map, per-node table, round timings, findings),
//     WriteJSON and WriteCSV render a Report.
//
// Security: the agent runs tests only for callers with the shared token;
// the client side connects to the peer address the runner names (so the
// token is as strong as access to every agent's network), and every test
// is bounded in duration, size and count, one at a time per agent.
package pairwise
