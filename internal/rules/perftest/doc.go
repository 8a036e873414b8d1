// Package perftest judges perftest results parsed by internal/parse/perftest
// (Check): bandwidth below the line rate, latency above the floor of the
// verb and link type, tests too small or misconfigured to judge, and MTU
// mismatches between the two ends of one test. It is pure: everything it
// knows comes from the parsed results and Options.
package perftest
