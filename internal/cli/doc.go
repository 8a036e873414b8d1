// Package cli assembles ibdoctor's cobra command tree from the command
// packages below it, in one explicit list, and maps errors to exit codes.
package cli
