package ib

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every parse error of this package.
var ErrMalformed = errors.New("malformed value")

// malformed returns an error that names what was expected and wraps ErrMalformed.
func malformed(what, input string) error {
	return fmt.Errorf("%w: %s: %q", ErrMalformed, what, input)
}
