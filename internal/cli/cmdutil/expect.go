package cmdutil

import (
	"os"

	"github.com/ibdoctor/ibdoctor/internal/parse/expect"
)

// LoadExpectation reads an expectation file; "" means none.
func LoadExpectation(path string) (*expect.Expectation, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return expect.Parse(f, path)
}
