//go:build !linux

package gather

import "context"

// NewLive has no live sources off Linux: the doctor reads saved outputs.
func NewLive(context.Context) Live { return nil }
