package catalog

import "github.com/ibdoctor/ibdoctor/internal/finding"

// ncclMetas are the catalogue entries of the nccl area.
var ncclMetas = []finding.Meta{}
