// Package showgids judges a pasted show_gids table (parsed by
// internal/parse/showgids): a RoCE port without a RoCE v2 GID cannot carry
// routable RoCE (NCCL, UCX and perftest -x pick a v2 GID).
package showgids

import (
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/showgids"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// Check judges every port of tb; file names the paste. It returns the
// findings and the number of ports.
func Check(tb *showgids.Table, file string) ([]finding.Finding, int) {
	type key struct {
		dev  string
		port int
	}
	var order []key
	rows := map[key][]showgids.GID{}
	for _, g := range tb.GIDs {
		k := key{g.Device, g.Port}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
		}
		rows[k] = append(rows[k], g)
	}
	var out []finding.Finding
	for _, k := range order {
		v2 := false
		for _, g := range rows[k] {
			v2 = v2 || g.Ver == "v2"
		}
		if v2 {
			continue
		}
		first := rows[k][0]
		out = append(out, catalog.New("roce.gid_missing_v2",
			finding.Subject{Device: k.dev, Port: k.port, NetDev: first.NetDev, File: file, LinkLayer: "Ethernet"},
			fmt.Sprintf("%s port %d: %d GIDs, none RoCE v2: routable RoCE (NCCL, UCX, perftest -x) has no GID to use", k.dev, k.port, len(rows[k])),
			finding.Evidence{Source: fmt.Sprintf("%s:%d", file, first.Line), Value: fmt.Sprintf("GID %d %s %s", first.Index, first.GID, first.Ver)}))
	}
	catalog.Sort(out)
	return out, len(order)
}
