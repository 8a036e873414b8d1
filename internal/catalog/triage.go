package catalog

import "github.com/ibdoctor/ibdoctor/internal/finding"

// triageMetas are the catalogue entries of the triage area.
var triageMetas = []finding.Meta{}
