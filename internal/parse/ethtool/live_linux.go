//go:build linux

package ethtool

import (
	"fmt"

	"github.com/safchain/ethtool"
)

// ReadLive reads an interface's driver statistics through the SIOCETHTOOL
// ioctl (ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS), as
// `ethtool -S` does. It needs no privilege but fails for interfaces in
// other network namespaces.
func ReadLive(netdev string) (*Stats, error) {
	e, err := ethtool.NewEthtool()
	if err != nil {
		return nil, fmt.Errorf("ethtool socket: %w", err)
	}
	defer e.Close()
	kv, err := e.Stats(netdev)
	if err != nil {
		return nil, fmt.Errorf("ethtool -S %s: %w", netdev, err)
	}
	if len(kv) == 0 {
		return nil, fmt.Errorf("ethtool -S %s: %w", netdev, ErrNoData)
	}
	return New(netdev, "SIOCETHTOOL", kv), nil
}
