// Package hubstore keeps the hub's history in one embedded SQLite database
// (modernc.org/sqlite, pure Go, write-ahead log): node health and port
// data/error rates over time (packed: a node's list of ports once in
// port_sets, then per step a few bytes per port), the findings timeline with each finding's
// opening and closing times and evidence, fabric check results and
// pairwise runs. The schema carries its version in a table and migrates
// forward on open; rows older than the retention are pruned. Every write
// is one transaction that is on disk when it returns (synchronous=FULL),
// so a kill -9 loses nothing already acknowledged. A file that is not a
// usable database is moved aside to <file>.corrupt-<UTC time> and a fresh
// one is started.
package hubstore
