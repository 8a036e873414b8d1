//go:build !linux

package doctor

import "context"

// newLive has no live sources off Linux: the doctor reads saved outputs.
func newLive(context.Context) liveSources { return nil }
