package nccllog

import (
	"errors"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoData means the input holds no NCCL log line and no watchdog report;
// matched with errors.Is.
var ErrNoData = errors.New("no data of the expected format")

// ParseError names the source and line of an unreadable input.
type ParseError = parse.Error

// maxLine bounds one input line; a longer line is an error naming it.
const maxLine = 1 << 20
