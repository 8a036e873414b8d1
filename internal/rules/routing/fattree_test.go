package routing

import (
	"errors"
	"fmt"
)

// FatTree describes a synthetic 2- or 3-level fat-tree. Two levels (Pods 1,
// CoresPerGroup 0): every leaf connects to every spine. Three levels: Pods
// pods of leaves and pod spines (aggregation switches), each leaf to every
// spine of its pod; spine j of every pod connects to each of the
// CoresPerGroup core switches of core group j. Routes spread by
// destination LID modulo the number of uplinks, so the tree is balanced (no
// fabric.route_imbalance) when HostsPerLeaf is a multiple of SpinesPerPod ×
// LinksPerUplink.
type FatTree struct {
	Pods          int
	LeavesPerPod  int
	SpinesPerPod  int
	CoresPerGroup int
	HostsPerLeaf  int
	// LinksPerUplink is the number of parallel cables from a leaf to each
	// of its spines (default 1).
	LinksPerUplink int
}

// HCAs is the number of channel adapters.
func (t FatTree) HCAs() int { return t.Pods * t.LeavesPerPod * t.HostsPerLeaf }

func (t FatTree) validate() error {
	switch {
	case t.Pods < 1 || t.LeavesPerPod < 1 || t.SpinesPerPod < 1 || t.HostsPerLeaf < 0 || t.CoresPerGroup < 0 || t.LinksPerUplink < 0:
		return errors.New("fat-tree: pods, leaves and spines per pod must be at least 1")
	case t.Pods > 1 && t.CoresPerGroup < 1:
		return errors.New("fat-tree: more than one pod needs core switches (CoresPerGroup)")
	case t.HostsPerLeaf+t.SpinesPerPod*max(t.LinksPerUplink, 1) > 254,
		t.LeavesPerPod+t.CoresPerGroup > 254, t.Pods > 254:
		return errors.New("fat-tree: a switch would need more than 254 ports")
	}
	sw := t.Pods*(t.LeavesPerPod+t.SpinesPerPod) + t.SpinesPerPod*t.CoresPerGroup
	if t.HCAs()+sw > MaxUnicastLID {
		return fmt.Errorf("fat-tree: %d nodes exceed the %d unicast LIDs", t.HCAs()+sw, MaxUnicastLID)
	}
	return nil
}

// Node GUID bases of generated fabrics: switches and HCAs get consecutive
// GUIDs (HCAs step 2: node GUID, then port GUID = node GUID + 1, as ibsim
// numbers them).
const (
	genSwitchGUID = 0x7cfe900300a00000
	genCAGUID     = 0x0c42a10300b00000
)

// Generate builds the fat-tree with LIDs (HCAs 1…N in leaf order, then
// leaves, pod spines, cores) and min-hop up/down forwarding tables that
// spread destinations over parallel uplinks by destination LID modulo the
// number of choices (d-mod-k, with a per-tier stride so consecutive tiers
// choose independently), as OpenSM's ftree engine does.
func (t FatTree) Generate() (*Subnet, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	links := max(t.LinksPerUplink, 1)
	f := &Subnet{}
	nh := t.HCAs()
	nLeaves := t.Pods * t.LeavesPerPod
	lid := uint16(nh + 1)
	swGUID := uint64(genSwitchGUID)
	addSw := func(desc string, ports int) int {
		i := f.AddSwitch(swGUID, desc, ports, lid)
		swGUID++
		lid++
		return i
	}
	leaves := make([]int, nLeaves)
	for i := range leaves {
		leaves[i] = addSw(fmt.Sprintf("leaf%d", i+1), t.HostsPerLeaf+t.SpinesPerPod*links)
	}
	spineDown := t.LeavesPerPod * links
	spines := make([]int, t.Pods*t.SpinesPerPod)
	for i := range spines {
		spines[i] = addSw(fmt.Sprintf("spine%d", i+1), spineDown+t.CoresPerGroup)
	}
	cores := make([]int, t.SpinesPerPod*t.CoresPerGroup)
	for i := range cores {
		cores[i] = addSw(fmt.Sprintf("core%d", i+1), t.Pods)
	}
	caGUID := uint64(genCAGUID)
	for l, leaf := range leaves {
		for h := range t.HostsPerLeaf {
			n := l*t.HostsPerLeaf + h + 1
			ca := f.AddCA(caGUID, fmt.Sprintf("node%05d mlx5_0", n), 1)
			f.Nodes[ca].Ports[1] = Port{GUID: caGUID + 1, LID: uint16(n)}
			caGUID += 2
			f.Connect(leaf, h+1, ca, 1)
		}
	}
	for p := range t.Pods {
		for l := range t.LeavesPerPod {
			leaf := leaves[p*t.LeavesPerPod+l]
			for s := range t.SpinesPerPod {
				for k := range links {
					f.Connect(leaf, t.HostsPerLeaf+s*links+k+1, spines[p*t.SpinesPerPod+s], l*links+k+1)
				}
			}
		}
		for s := range t.SpinesPerPod {
			for c := range t.CoresPerGroup {
				f.Connect(spines[p*t.SpinesPerPod+s], spineDown+c+1, cores[s*t.CoresPerGroup+c], p+1)
			}
		}
	}
	if err := f.routeMinHop(map[int]int{1: 1, 2: t.SpinesPerPod * links}); err != nil {
		return nil, err
	}
	return f, nil
}

// routeMinHop fills every switch's LFT with min-hop routes: for each
// destination, the candidate ports of a switch are those whose neighbour is
// one hop closer; the entry is candidate (lid / stride[tier]) mod count.
// Tiers come from Tree; stride defaults to 1.
func (f *Subnet) routeMinHop(stride map[int]int) error {
	g, err := New(f)
	if err != nil {
		return err
	}
	tiers := g.Tree().Tiers
	S := len(g.swNode)
	dist := g.switchDistances()
	maxLID := g.maxLID
	for _, n := range g.swNode {
		f.Nodes[n].LFT = make([]uint8, maxLID+1)
		for i := range f.Nodes[n].LFT {
			f.Nodes[n].LFT[i] = NoRoute
		}
	}
	// Destinations grouped by the switch they hang off (or are).
	byAttach := make([][]uint16, S)
	for lid := 1; lid <= maxLID; lid++ {
		o := g.owner[lid]
		if o.node < 0 {
			continue
		}
		if s := g.sw[o.node]; s >= 0 {
			byAttach[s] = append(byAttach[s], uint16(lid))
			continue
		}
		if q := g.peer[g.base[o.node]+o.port]; q >= 0 {
			if s := g.sw[g.portNode[q]]; s >= 0 {
				byAttach[s] = append(byAttach[s], uint16(lid))
			}
		}
	}
	cands := make([]uint8, 0, 256)
	for t := range int32(S) {
		if len(byAttach[t]) == 0 {
			continue
		}
		for s := range int32(S) {
			node := g.swNode[s]
			lft := f.Nodes[node].LFT
			if s == t {
				for _, lid := range byAttach[t] {
					o := g.owner[lid]
					if o.node == node {
						lft[lid] = 0
						continue
					}
					// The port cabled to the destination CA port.
					lft[lid] = uint8(g.peer[g.base[o.node]+o.port] - g.base[node])
				}
				continue
			}
			d := dist[int(s)*S+int(t)]
			if d == 0xFF {
				continue
			}
			cands = cands[:0]
			for p := g.base[node] + 1; p < g.base[node+1]; p++ {
				q := g.peer[p]
				if q < 0 {
					continue
				}
				if v := g.sw[g.portNode[q]]; v >= 0 && dist[int(v)*S+int(t)] == d-1 {
					cands = append(cands, uint8(p-g.base[node]))
				}
			}
			// Up: the tier's stride, so that consecutive tiers pick
			// independently; down (parallel cables to one lower switch):
			// stride 1, so that a leaf's consecutive LIDs spread over them.
			st := 1
			if v := g.portNode[g.peer[g.base[node]+int32(cands[0])]]; tiers[v] > tiers[node] {
				st = max(stride[tiers[node]], 1)
			}
			for _, lid := range byAttach[t] {
				lft[lid] = cands[(int(lid)/st)%len(cands)]
			}
		}
	}
	return nil
}
