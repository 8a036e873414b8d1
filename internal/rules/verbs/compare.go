package verbs

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibvload"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckCompares judges a verbs test's data compares (the
// ibv_generate_infiniband_test_load program's "rx_buffer compare :
// PASS"): each that did not pass is a critical verbs.data_mismatch on its
// device; it returns those and how many passed.
func CheckCompares(file string, cs []ibvload.Compare) (pass int, fs []finding.Finding) {
	for _, c := range cs {
		if c.Pass {
			pass++
			continue
		}
		fs = append(fs, catalog.New("verbs.data_mismatch", finding.Subject{File: file, Device: c.Device},
			fmt.Sprintf("%s: the test's receive buffer compare reports %s: data arrived different from what was sent", c.Device, c.Result),
			finding.Evidence{Source: fmt.Sprintf("%s:%d", file, c.Line), Value: c.Device + " rx_buffer compare : " + c.Result}))
	}
	return pass, fs
}
