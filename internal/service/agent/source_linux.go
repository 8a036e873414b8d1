//go:build linux

package agent

import (
	"context"

	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
)

func liveEthtool(_ context.Context, netdev string) (map[string]uint64, error) {
	st, err := ethtool.ReadLive(netdev)
	if err != nil {
		return nil, err
	}
	return statsMap(st), nil
}

var _ = errNoLive
