package fabric

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
)

func faults(t *testing.T, specs ...string) []Fault {
	t.Helper()
	var out []Fault
	for _, s := range specs {
		f, err := ParseFault(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// parse checks the output is valid ibnetdiscover/ibsim grammar and returns
// its links as "a[p]-b[q] w s" strings, each once.
func parse(t *testing.T, b []byte) map[string]string {
	t.Helper()
	top, err := ibdiags.ParseNetDiscover(bytes.NewReader(b), "net")
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{}
	for _, n := range top.Nodes {
		for _, p := range n.Ports {
			k := n.ID + "[" + itoa(p.Port) + "] " + p.RemoteID + "[" + itoa(p.RemotePort) + "]"
			links[k] = "w" + itoa(p.NetWidth) + " s" + itoa(p.NetSpeed)
		}
	}
	// Every port line has its mirror on the peer.
	for k := range links {
		a, b, _ := strings.Cut(k, " ")
		if _, ok := links[b+" "+a]; !ok {
			t.Errorf("%s has no mirror line", k)
		}
	}
	return links
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestBuildClean(t *testing.T) {
	for _, s := range []Spec{{Spines: 2, Leaves: 4, HostsPerLeaf: 3}, {Spines: 2, Leaves: 4, HostsPerLeaf: 2, Levels: 3}} {
		f, err := Build(s)
		if err != nil {
			t.Fatal(err)
		}
		g := f.Generate()
		net, plan := parse(t, g.Net), parse(t, g.Plan)
		want := 2 * (s.Leaves*s.HostsPerLeaf + s.Leaves*s.Spines)
		if s.Levels == 3 {
			pods := s.Leaves / 2
			want = 2 * (s.Leaves*s.HostsPerLeaf + pods*s.Spines*2 + pods*s.Spines*s.Spines)
		}
		if len(net) != want || len(plan) != want || g.IgnoreDuplicates {
			t.Errorf("%+v: %d net / %d plan port lines, want %d", s, len(net), len(plan), want)
		}
	}
}

func TestFaults(t *testing.T) {
	f, err := Build(Spec{Spines: 2, Leaves: 4, HostsPerLeaf: 2, Faults: faults(t,
		"missing:leaf1[1]", "swap:leaf2[1],leaf2[2]", "narrow:leaf3[4]", "slow:h8", "dupguid:h5,h6")})
	if err != nil {
		t.Fatal(err)
	}
	g := f.Generate()
	net, plan := parse(t, g.Net), parse(t, g.Plan)
	checks := []struct {
		name      string
		key       string
		inNet     bool
		inPlan    bool
		netAttrs  string
		planAttrs string
	}{
		{"missing cable", "leaf1[1] h1[1]", false, true, "", "w0 s4"},
		{"swapped: planned", "leaf2[1] h3[1]", false, true, "", "w0 s4"},
		{"swapped: actual", "leaf2[1] h4[1]", true, false, "w0 s4", ""},
		{"narrow", "leaf3[4] spine2[3]", true, true, "w1 s4", "w0 s4"},
		{"slow host", "h8[1] leaf4[2]", true, true, "w0 s2", "w0 s4"},
	}
	for _, c := range checks {
		na, inNet := net[c.key]
		pa, inPlan := plan[c.key]
		if inNet != c.inNet || inPlan != c.inPlan || (inNet && na != c.netAttrs) || (inPlan && pa != c.planAttrs) {
			t.Errorf("%s: net %v %q, plan %v %q", c.name, inNet, na, inPlan, pa)
		}
	}
	if !g.IgnoreDuplicates || bytes.Count(g.Net, []byte("caguid=")) != 2 || bytes.Contains(g.Plan, []byte("caguid=")) {
		t.Errorf("dupguid: ignore=%v\n%s", g.IgnoreDuplicates, g.Net)
	}
}

func TestParseFaultErrors(t *testing.T) {
	for _, s := range []string{"missing", "missing:leaf1", "swap:leaf1[1]", "slow:", "dupguid:h1,h1", "melt:h1", "narrow:leaf1[0]"} {
		if _, err := ParseFault(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	for _, fs := range []string{"missing:leaf9[1]", "slow:leaf1", "swap:leaf1[1],leaf1[1]"} {
		if _, err := Build(Spec{Spines: 1, Leaves: 2, HostsPerLeaf: 1, Faults: faults(t, fs)}); err == nil {
			t.Errorf("%q applied to a fabric without that port", fs)
		}
	}
	if _, err := Build(Spec{Spines: 0, Leaves: 1, HostsPerLeaf: 1}); err == nil {
		t.Error("0 spines accepted")
	}
}
