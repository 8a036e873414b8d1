package fabric_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	fabricrules "github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
	simfabric "github.com/ibdoctor/ibdoctor/internal/sim/fabric"
)

// judge runs the fabric checks `fabric check` runs on a generated
// collection and returns the findings as "id subject-node:port" lines.
func judge(t *testing.T, f *simfabric.Fabric, o simfabric.CollectionOptions) ([]string, *fabricrules.Fabric) {
	t.Helper()
	raw, err := f.Collection(o)
	if err != nil {
		t.Fatal(err)
	}
	m := fabricrules.Build(raw)
	if len(m.Gaps) > 0 {
		t.Errorf("gaps: %+v", m.Gaps)
	}
	fs := fabricrules.Check(m, fabricrules.Options{})
	rfs, _, err := fabricrules.CheckRouting(m, routing.Options{})
	if err != nil {
		t.Fatalf("routing: %v", err)
	}
	var got []string
	for _, x := range append(fs, rfs...) {
		got = append(got, fmt.Sprintf("%s %s:%d", x.ID, x.Subject.NodeDesc, x.Subject.Port))
	}
	slices.Sort(got)
	return got, m
}

// TestCollectionHealthy: a healthy fabric parses without gaps, every node
// and link is found, and nothing is wrong with it.
func TestCollectionHealthy(t *testing.T) {
	f, err := simfabric.Build(simfabric.Spec{Spines: 2, Leaves: 3, HostsPerLeaf: 2, Uplinks: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, m := judge(t, f, simfabric.CollectionOptions{Taken: time.Unix(1e9, 0), Speed: ib.SpeedNDR})
	if len(got) != 0 {
		t.Errorf("findings on a healthy fabric: %q", got)
	}
	if len(m.Links) == 0 || len(m.SMs) != 1 {
		t.Fatalf("no links or no SM")
	}
	if n := len(m.Nodes); n != 2+3+6 {
		t.Errorf("%d nodes, want 11", n)
	}
	// 6 host cables + 2 spines × 3 leaves × 2 uplinks.
	if n := len(m.Links); n != 6+12 {
		t.Errorf("%d links, want 18", n)
	}
}

// TestCollectionFaults: each injected fault is what the checks find, on
// the right port.
func TestCollectionFaults(t *testing.T) {
	var faults []simfabric.Fault
	for _, s := range []string{"narrow:leaf1[3]", "missing:leaf2[6]", "missing:leaf3[2]"} {
		ft, err := simfabric.ParseFault(s)
		if err != nil {
			t.Fatal(err)
		}
		faults = append(faults, ft)
	}
	f, err := simfabric.Build(simfabric.Spec{Spines: 2, Leaves: 3, HostsPerLeaf: 2, Uplinks: 2, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	got, m := judge(t, f, simfabric.CollectionOptions{Speed: ib.SpeedNDR, Counters: map[simfabric.PortName]map[string]uint64{
		{Node: "leaf3", Port: 5}: {"SymbolErrorCounter": 5000, "PortXmitData": 1 << 30},
	}})
	// leaf1[3] is cabled to spine1[1]: the finding names one end.
	want := []string{"fabric.link_degraded spine1:1", "fabric.link_errors leaf3:5"}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("no %q in %q", w, got)
		}
	}
	// h6 lost its only cable: it is not discovered at all.
	for _, n := range m.Nodes {
		if n.Name() == "h6" {
			t.Errorf("h6 discovered without a cable")
		}
	}
	for _, g := range got {
		if strings.Contains(g, "h6") {
			t.Errorf("finding about the undiscovered h6: %s", g)
		}
	}
}

// TestCollectionHosts: named multi-HCA hosts keep their GUIDs and LIDs,
// are cabled to their leaf, and HostLeaves says which.
func TestCollectionHosts(t *testing.T) {
	var hosts []simfabric.Host
	for i := range 4 {
		h := simfabric.Host{Name: fmt.Sprintf("gpu%02d", i+1)}
		for k := range 3 {
			h.HCAs = append(h.HCAs, simfabric.HCA{Desc: fmt.Sprintf("%s mlx5_%d", h.Name, k), GUID: uint64(0xa000 + i*16 + k), LID: 100 + i*8 + k})
		}
		hosts = append(hosts, h)
	}
	f, err := simfabric.Build(simfabric.Spec{Spines: 2, Leaves: 2, HostsPerLeaf: 2, Hosts: hosts})
	if err != nil {
		t.Fatal(err)
	}
	got, m := judge(t, f, simfabric.CollectionOptions{Speed: ib.SpeedNDR})
	if len(got) != 0 {
		t.Errorf("findings: %q", got)
	}
	found := 0
	for _, n := range m.Nodes {
		if n.Name() == "gpu03 mlx5_2" {
			found++
			if n.GUID != 0xa000+2*16+2 {
				t.Errorf("gpu03 mlx5_2: GUID %#x", n.GUID)
			}
		}
	}
	if found != 1 {
		t.Errorf("gpu03 mlx5_2 found %d times", found)
	}
	raw, _ := f.Collection(simfabric.CollectionOptions{Speed: ib.SpeedNDR})
	if nd := string(raw.Get("ibnetdiscover").Stdout); !strings.Contains(nd, `# "gpu03 mlx5_2" lid 118 4xNDR`) {
		t.Errorf("ibnetdiscover has no gpu03 mlx5_2 at LID 118:\n%s", nd)
	}
	if l := f.HostLeaves(); l["gpu01"] != "leaf1" || l["gpu03"] != "leaf2" || len(l) != 4 {
		t.Errorf("HostLeaves = %v", l)
	}
	if _, err := simfabric.Build(simfabric.Spec{Spines: 1, Leaves: 2, HostsPerLeaf: 2, Hosts: hosts[:3]}); err == nil {
		t.Error("3 hosts for 2 leaves of 2: no error")
	}
	g := f.Generate()
	if g.IgnoreDuplicates || !strings.Contains(string(g.Net), `"gpu02 mlx5_1"`) {
		t.Errorf("net file: duplicates %v, or no gpu02 mlx5_1", g.IgnoreDuplicates)
	}
}
