//go:build !linux

package agent

import "context"

func liveEthtool(context.Context, string) (map[string]uint64, error) { return nil, errNoLive }
