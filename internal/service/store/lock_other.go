//go:build !unix

package store

import "time"

// lockFile is a no-op where bbolt does not lock with flock; bbolt's own
// lock still guards the open database.
func lockFile(string, time.Duration) (func(), error) { return func() {}, nil }
