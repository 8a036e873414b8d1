// Package cmdutil holds what every ibdoctor command shares: the Factory of
// streams and environment, the --format and --root flags, and the typed exit
// codes (0 healthy, 1 warnings, 2 critical, 3 could not run).
package cmdutil
