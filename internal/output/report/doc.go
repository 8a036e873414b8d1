// Package report renders findings and node snapshots for people (text,
// colored only on a terminal) and for programs (stable JSON). It never
// evaluates rules: it only formats what it is given.
package report
