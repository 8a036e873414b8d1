package status

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/output/report"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	fabricsource "github.com/ibdoctor/ibdoctor/internal/source/fabric"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// savedPorts is where a bundle or a simulated root keeps a saved
// `ibnetdiscover -p` output.
const savedPorts = layout.IBNetDiscoverPorts

// peersFromFabric maps every CA port of a saved fabric collection to the
// port at the other end of its cable.
func peersFromFabric(path string) (map[string]report.PortPeer, error) {
	raw, err := fabricsource.ReadFrom(path)
	if err != nil {
		return nil, fmt.Errorf("--fabric-from: %w", err)
	}
	f := fabric.Build(raw)
	peers := map[string]report.PortPeer{}
	for _, l := range f.Links {
		for _, e := range [][2]fabric.End{{l.A, l.B}, {l.B, l.A}} {
			here, there := f.Node(e[0].Node), f.Node(e[1].Node)
			p := f.PortOf(e[0])
			if here.Type == ibdiags.Switch || p == nil || p.GUID == 0 {
				continue
			}
			lid := there.LID
			if tp := f.PortOf(e[1]); there.Type != ibdiags.Switch && tp != nil {
				lid = tp.LID
			}
			pp := report.PortPeer{Node: there.Name(), NodeGUID: report.PeerKey(there.GUID), Port: e[1].Port, Source: path}
			if lid > 0 {
				pp.LID = lid
			}
			peers[report.PeerKey(p.GUID)] = pp
		}
	}
	return peers, nil
}

// peersFromRoot reads the root's saved `ibnetdiscover -p` output, if it has
// one: nil without one, a gap when it cannot be read or parsed.
func peersFromRoot(root string) (map[string]report.PortPeer, *snapshot.Gap) {
	rt, err := rootfs.Open(root)
	if err != nil {
		return nil, nil // LoadSnapshot has already reported the root
	}
	defer rt.Close()
	b, err := rootfs.ReadLimited(rt.FS(), savedPorts, 64<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &snapshot.Gap{Path: savedPorts, Err: err.Error()}
	}
	lines, err := ibdiags.ParseNetDiscoverPorts(bytes.NewReader(b), savedPorts)
	if err != nil {
		return nil, &snapshot.Gap{Path: savedPorts, Err: err.Error()}
	}
	peers := map[string]report.PortPeer{}
	for _, l := range lines {
		// CA lines carry the port GUID: the key of a host port.
		if l.Type != ibdiags.CA || !l.Connected {
			continue
		}
		pp := report.PortPeer{Node: l.RemoteDesc, NodeGUID: report.PeerKey(l.RemoteGUID), Port: l.RemotePort,
			Source: fmt.Sprintf("%s line %d", savedPorts, l.Line)}
		if l.RemoteLID > 0 {
			pp.LID = l.RemoteLID
		}
		peers[report.PeerKey(l.GUID)] = pp
	}
	return peers, nil
}
