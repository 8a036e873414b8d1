package routing

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// The product parsers of these formats live in internal/ibtools (and the
// Subnet is built from them in internal/fabric); loadCapture is a minimal
// test-only reader so that this package's tests can analyse real OpenSM
// tables and compare its writers with the real tools' output.
var (
	reSwitch   = regexp.MustCompile(`^Switch\t(\d+) "S-([0-9a-f]{16})"\t\t# "(.*)" (?:base|enhanced) port 0 lid (\d+) lmc (\d+)$`)
	reCA       = regexp.MustCompile(`^Ca\t(\d+) "H-([0-9a-f]{16})"\t\t# "(.*)"$`)
	reSwPort   = regexp.MustCompile(`^\[(\d+)\]\t"([SH])-([0-9a-f]{16})"\[(\d+)\](?:\(([0-9a-f]+)\) )?\t\t# "(.*)" lid (\d+) (\S+)$`)
	reCAPort   = regexp.MustCompile(`^\[(\d+)\]\(([0-9a-f]+)\) \t"([SH])-([0-9a-f]{16})"\[(\d+)\](?: \(([0-9a-f]+)\) )?\t\t# lid (\d+) lmc (\d+) "(.*)" lid (\d+) (\S+)$`)
	reFTSHead  = regexp.MustCompile(`^Unicast lids \[0x([0-9a-f]+)-0x([0-9a-f]+)\] of switch (DR path slid \d+; dlid \d+; [0-9,]+|Lid \d+) guid 0x([0-9a-f]{16}) \((.*)\):$`)
	reFTSEntry = regexp.MustCompile(`^0x([0-9a-f]{4}) (\d{3}) (: \((?:Channel Adapter|Switch|Router) portguid 0x[0-9a-f]{16}: '.*'\)|: \(path #\d+ out of \d+(?:: portguid 0x[0-9a-f]{16})?\)|: \(node info not available fabric scan\))?$`)
	reFTSTail  = regexp.MustCompile(`^\d+ valid lids dumped $`)
)

func loadCapture(t testing.TB, topo, fts []byte) *Subnet {
	t.Helper()
	f := &Subnet{}
	byGUID := map[uint64]int{}
	hex := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 16, 64)
		if err != nil {
			t.Fatalf("bad hex %q", s)
		}
		return v
	}
	num := func(s string) int { v, _ := strconv.Atoi(s); return v }
	type pending struct {
		a, pa int
		guid  uint64
		pb    int
	}
	var links []pending
	cur := -1
	sc := bufio.NewScanner(bytes.NewReader(topo))
	for sc.Scan() {
		line := sc.Text()
		if m := reSwitch.FindStringSubmatch(line); m != nil {
			cur = f.AddSwitch(hex(m[2]), m[3], num(m[1]), uint16(num(m[4])))
			f.Nodes[cur].Ports[0].LMC = uint8(num(m[5]))
			byGUID[hex(m[2])] = cur
		} else if m := reCA.FindStringSubmatch(line); m != nil {
			cur = f.AddCA(hex(m[2]), m[3], num(m[1]))
			byGUID[hex(m[2])] = cur
		} else if m := reSwPort.FindStringSubmatch(line); m != nil {
			links = append(links, pending{cur, num(m[1]), hex(m[3]), num(m[4])})
		} else if m := reCAPort.FindStringSubmatch(line); m != nil {
			p := num(m[1])
			f.Nodes[cur].Ports[p] = Port{GUID: hex(m[2]), LID: uint16(num(m[7])), LMC: uint8(num(m[8]))}
			links = append(links, pending{cur, p, hex(m[4]), num(m[5])})
		}
	}
	seen := map[PortRef]bool{}
	for _, l := range links {
		b, ok := byGUID[l.guid]
		if !ok {
			t.Fatalf("link to unknown node %x", l.guid)
		}
		a, bp := PortRef{l.a, l.pa}, PortRef{b, l.pb}
		if seen[a] || seen[bp] {
			continue
		}
		seen[a], seen[bp] = true, true
		f.Connect(l.a, l.pa, b, l.pb)
	}
	sc = bufio.NewScanner(bytes.NewReader(fts))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := reFTSHead.FindStringSubmatch(line); m != nil {
			var ok bool
			if cur, ok = byGUID[hex(m[4])]; !ok {
				t.Fatalf("dump_fts names unknown switch %s", m[4])
			}
			f.Nodes[cur].LFT = []uint8{}
		} else if m := reFTSEntry.FindStringSubmatch(line); m != nil {
			f.SetRoute(cur, uint16(hex(m[1])), uint8(num(m[2])))
		}
	}
	return f
}

// lineShape reduces a line of tool output to its shape: digits and hex
// digits collapse, quoted names go.
func lineShapes(data []byte, res ...*regexp.Regexp) map[int]int {
	out := map[int]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		k := -1
		for i, re := range res {
			if re.MatchString(line) {
				k = i
				break
			}
		}
		out[k]++
	}
	return out
}

func readCapture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ibsim-2x4x4", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRealOpenSMTables analyses the tables OpenSM (minhop) computed for the
// ibsim fabric in testdata: every route arrives, none is longer than the
// minimum, no credit loop, the tree is symmetric.
func TestRealOpenSMTables(t *testing.T) {
	f := loadCapture(t, readCapture(t, "ibnetdiscover.txt"), readCapture(t, "dump_fts.txt"))
	if len(f.Nodes) != 22 || len(f.Links) != 24 {
		t.Fatalf("%d nodes, %d links", len(f.Nodes), len(f.Links))
	}
	r := analyze(t, f)
	if r.LIDs != 22 || r.Pairs != 16*15 || r.RoutedPairs != r.Pairs || r.NonMinimalRoutes != 0 || len(r.CreditLoops) != 0 {
		t.Errorf("LIDs %d pairs %d routed %d nonminimal %d credit loops %d", r.LIDs, r.Pairs, r.RoutedPairs, r.NonMinimalRoutes, len(r.CreditLoops))
	}
	if !r.Tree.FatTree || len(r.Tree.Asymmetric) != 0 {
		t.Errorf("tree %+v", r.Tree)
	}
	if fs := r.Findings(); len(fs) != 0 {
		t.Errorf("findings %v: %s", ids(fs), fs[0].Summary)
	}
	// The traced route matches ibtracert's output byte for byte.
	g, _ := New(f)
	route, err := g.Path(1, 22)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := route.Format(f), string(readCapture(t, "ibtracert-1-22.txt")); got != want {
		t.Errorf("Path(1, 22):\n%s\nibtracert:\n%s", got, want)
	}
	// Break one entry of the real tables: h1 (lid 1) → h16 (lid 22) goes
	// leaf1 → spine2 → leaf4; without spine2's entry the pair is lost.
	spine2 := node(t, f, "spine2")
	f.Nodes[spine2].LFT[22] = NoRoute
	r = analyze(t, f)
	if len(r.Breaks) != 1 || r.Breaks[0].Node != spine2 || r.Breaks[0].Examples[0] != 22 || r.Breaks[0].ExampleSource < 0 {
		t.Errorf("breaks %+v", r.Breaks)
	}
}

// TestWritersMatchRealShapes checks that every line the writers produce has
// a shape the real tools print, and that the writers produce every shape of
// the real captures.
func TestWritersMatchRealShapes(t *testing.T) {
	f := small2L(t)
	var topo, fts bytes.Buffer
	if err := WriteIBNetDiscover(&topo, f, TopologyOptions{Generated: time.Date(2026, 11, 29, 16, 14, 3, 0, time.UTC), Rate: "4xSDR"}); err != nil {
		t.Fatal(err)
	}
	if err := WriteDumpFTS(&fts, f, DumpOptions{}); err != nil {
		t.Fatal(err)
	}
	topoShapes := []*regexp.Regexp{
		regexp.MustCompile(`^#$`), regexp.MustCompile(`^# Topology file: generated on \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$`),
		regexp.MustCompile(`^# Initiated from node [0-9a-f]{16} port [0-9a-f]{16}$`), regexp.MustCompile(`^$`),
		regexp.MustCompile(`^vendid=0x[0-9a-f]+$`), regexp.MustCompile(`^devid=0x[0-9a-f]+$`), regexp.MustCompile(`^sysimgguid=0x[0-9a-f]+$`),
		regexp.MustCompile(`^switchguid=0x[0-9a-f]+\([0-9a-f]+\)$`), regexp.MustCompile(`^caguid=0x[0-9a-f]+$`),
		reSwitch, reCA, reSwPort, reCAPort,
	}
	ftsShapes := []*regexp.Regexp{reFTSHead, regexp.MustCompile(`^  Lid  Out   Destination$`), regexp.MustCompile(`^       Port     Info $`), reFTSEntry, reFTSTail}
	for _, tc := range []struct {
		name       string
		real, ours []byte
		shapes     []*regexp.Regexp
	}{
		{"ibnetdiscover", readCapture(t, "ibnetdiscover.txt"), topo.Bytes(), topoShapes},
		{"dump_fts", readCapture(t, "dump_fts.txt"), fts.Bytes(), ftsShapes},
	} {
		real, ours := lineShapes(tc.real, tc.shapes...), lineShapes(tc.ours, tc.shapes...)
		if real[-1] != 0 || ours[-1] != 0 {
			t.Errorf("%s: %d real and %d generated lines of unknown shape", tc.name, real[-1], ours[-1])
		}
		for k := range real {
			if ours[k] == 0 {
				t.Errorf("%s: the writer never prints shape %v", tc.name, tc.shapes[k])
			}
		}
	}
	// And the writers' output reads back into the same routing.
	back := loadCapture(t, topo.Bytes(), fts.Bytes())
	r1, r2 := analyze(t, f), analyze(t, back)
	if r1.Pairs != r2.Pairs || r2.RoutedPairs != r2.Pairs || len(r1.Loads) != len(r2.Loads) {
		t.Errorf("round trip: %d/%d vs %d/%d pairs", r1.RoutedPairs, r1.Pairs, r2.RoutedPairs, r2.Pairs)
	}
	for i := range r1.Loads {
		if r1.Loads[i].Routes != r2.Loads[i].Routes {
			t.Errorf("load %d: %d vs %d", i, r1.Loads[i].Routes, r2.Loads[i].Routes)
		}
	}
}

// TestLMC: a port with LMC 1 owns two LIDs; both are routed and dumped,
// the second as dump_fts prints extra paths of one port.
func TestLMC(t *testing.T) {
	f := &Subnet{}
	sw := f.AddSwitch(0x10, "sw", 2, 1)
	a := f.AddCA(0x20, "a", 1)
	b := f.AddCA(0x30, "b", 1)
	f.Nodes[a].Ports[1] = Port{GUID: 0x21, LID: 2, LMC: 1}
	f.Nodes[b].Ports[1] = Port{GUID: 0x31, LID: 4, LMC: 1}
	f.Connect(sw, 1, a, 1)
	f.Connect(sw, 2, b, 1)
	for lid, port := range map[uint16]uint8{1: 0, 2: 1, 3: 1, 4: 2, 5: 2} {
		f.SetRoute(sw, lid, port)
	}
	r := analyze(t, f)
	// Each CA reaches both LIDs of the other: 4 pairs.
	if r.LIDs != 5 || r.Pairs != 4 || r.RoutedPairs != 4 {
		t.Errorf("LIDs %d pairs %d routed %d", r.LIDs, r.Pairs, r.RoutedPairs)
	}
	var out bytes.Buffer
	if err := WriteDumpFTS(&out, f, DumpOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `Unicast lids [0x0-0x5] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000000010 (sw):
  Lid  Out   Destination
       Port     Info 
0x0001 000 : (Switch portguid 0x0000000000000010: 'sw')
0x0002 001 : (Channel Adapter portguid 0x0000000000000021: 'a')
0x0003 001 : (path #2 out of 2: portguid 0x0000000000000021)
0x0004 002 : (Channel Adapter portguid 0x0000000000000031: 'b')
0x0005 002 : (path #2 out of 2: portguid 0x0000000000000031)
5 valid lids dumped 
`
	if out.String() != want {
		t.Errorf("dump_fts:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := WriteDumpFTS(&out, f, DumpOptions{Brief: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte("\n0x0003 001 \n")) {
		t.Errorf("brief dump_fts:\n%s", out.String())
	}
}
