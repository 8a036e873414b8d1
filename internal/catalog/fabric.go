package catalog

import "github.com/ibdoctor/ibdoctor/internal/finding"

// fabricMetas are the catalogue entries of the fabric area.
var fabricMetas = []finding.Meta{}
