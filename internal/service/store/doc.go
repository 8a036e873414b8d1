// Package store keeps the agent's state across restarts in one embedded
// bbolt database under --state-dir: the last samples, the active findings
// with the time each was first seen, the flap history and the best rate
// seen per port. Every interval is written in one bbolt read-write
// transaction, which commits atomically (copy-on-write pages, fsync of the
// meta page last), so a kill -9 at any moment loses at most that interval
// and never leaves a half-written state.
package store
