// Package catalog is the one catalogue of finding IDs: every ID with its
// default severity, meaning, thresholds, likely causes and remedies. Rules
// create findings through Default.New, and `ibdoctor rules` prints it.
// Each area keeps its entries in its own file; IDs are never renamed or
// reused.
package catalog
