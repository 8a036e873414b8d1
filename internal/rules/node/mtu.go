package node

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// checkIBMTU judges the IB MTU of ACTIVE InfiniBand ports where the input
// has it (ibv_devinfo active_mtu and max_mtu; sysfs has no such
// attribute). A port below its own max_mtu is port.ib_mtu_reduced; among
// the ports that run their maximum, those whose active_mtu differs from the
// majority are
// port.ib_mtu_mismatch (every port named when there is no majority). A
// reduced port is not also reported as a mismatch: one cause, one finding.
// RoCE ports are not judged here: their active_mtu follows the netdev's
// MTU (roce.mtu_mismatch).
func checkIBMTU(in *Input) []finding.Finding {
	s := in.Snap
	var ports []*snapshot.Port
	count := map[int]int{}
	for i := range s.Devices {
		for j := range s.Devices[i].Ports {
			p := &s.Devices[i].Ports[j]
			if p.LinkLayer != ib.LinkLayerInfiniBand || !p.IsActive() || p.ActiveMTU == nil {
				continue
			}
			ports = append(ports, p)
		}
	}
	ev := func(p *snapshot.Port) finding.Evidence {
		v := fmt.Sprintf("active_mtu %d", *p.ActiveMTU)
		if p.MaxMTU != nil {
			v += fmt.Sprintf(", max_mtu %d", *p.MaxMTU)
		}
		return finding.Evidence{Source: portPath(p, "active_mtu"), Value: v}
	}
	var out []finding.Finding
	var rest []*snapshot.Port
	for _, p := range ports {
		if p.MaxMTU != nil && *p.ActiveMTU < *p.MaxMTU {
			out = append(out, catalog.New("port.ib_mtu_reduced", portSubject(s, p),
				fmt.Sprintf("%s port %d runs an IB MTU of %d although it supports %d", p.Device, p.Number, *p.ActiveMTU, *p.MaxMTU), ev(p)))
			continue
		}
		rest = append(rest, p)
		count[*p.ActiveMTU]++
	}
	if len(count) < 2 {
		return out
	}
	mtus := make([]int, 0, len(count))
	for m := range count {
		mtus = append(mtus, m)
	}
	// The most common MTU, the larger on a tie.
	slices.SortFunc(mtus, func(a, b int) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return b - a
	})
	major := mtus[0]
	hasMajority := count[major]*2 > len(rest)
	var dist []string
	for _, m := range mtus {
		dist = append(dist, fmt.Sprintf("%d on %d", m, count[m]))
	}
	for _, p := range rest {
		if hasMajority && *p.ActiveMTU == major {
			continue
		}
		sum := fmt.Sprintf("%s port %d runs an IB MTU of %d while %d of the node's %d other active IB ports run %d", p.Device, p.Number, *p.ActiveMTU, count[major], len(rest)-1, major)
		if !hasMajority {
			sum = fmt.Sprintf("%s port %d runs an IB MTU of %d; the node's active IB ports disagree (%s)", p.Device, p.Number, *p.ActiveMTU, strings.Join(dist, ", "))
		}
		out = append(out, catalog.New("port.ib_mtu_mismatch", portSubject(s, p), sum, ev(p)))
	}
	return out
}
