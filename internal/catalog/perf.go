package catalog

import "github.com/ibdoctor/ibdoctor/internal/finding"

// perfMetas are the catalogue entries of the perf area.
var perfMetas = []finding.Meta{}
