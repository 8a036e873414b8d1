package fabric

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
	simfabric "github.com/ibdoctor/ibdoctor/internal/sim/fabric"
	sourcefabric "github.com/ibdoctor/ibdoctor/internal/source/fabric"
	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

// simStack is a running ibsim with OpenSM and infiniband-diags attached
// (testenv.IBSim), and the fabric collection on top.
type simStack struct{ *testenv.IBSim }

func startIbsim(t *testing.T, g simfabric.Generated) *simStack {
	t.Helper()
	return &simStack{testenv.StartIBSim(t, g.Net, g.IgnoreDuplicates)}
}

func (s *simStack) collect(t *testing.T) *Fabric {
	t.Helper()
	return s.collectWith(t, false)
}

// collectWith is collect, with the QoS tables when qos is set.
func (s *simStack) collectWith(t *testing.T, qos bool) *Fabric {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	raw, err := sourcefabric.Collect(ctx, sourcefabric.CollectOptions{Env: s.Env, Timeout: 20 * time.Second, Dir: s.Dir, QoS: qos})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range raw.Outputs {
		if o.Err != "" {
			t.Logf("%s: %s", o.Name, o.Err)
		}
	}
	return Build(raw)
}

func generate(t *testing.T, spec simfabric.Spec, faults ...string) (simfabric.Generated, *Plan) {
	t.Helper()
	for _, f := range faults {
		ft, err := simfabric.ParseFault(f)
		if err != nil {
			t.Fatal(err)
		}
		spec.Faults = append(spec.Faults, ft)
	}
	fab, err := simfabric.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	g := fab.Generate()
	plan, err := ParsePlan(bytes.NewReader(g.Plan), "plan")
	if err != nil {
		t.Fatal(err)
	}
	return g, plan
}

// notInfo drops info findings (switch-to-switch route notes).
func notInfo(fs []finding.Finding) []finding.Finding {
	return slices.DeleteFunc(fs, func(f finding.Finding) bool { return f.Severity == finding.Info })
}

// TestLiveIbsimFaults runs the real stack — ibsim, OpenSM (updn), the
// infiniband-diags tools through libumad2sim — on a leaf-spine fabric with
// a narrow link, a slow host and two swapped cables in the net file, then
// unplugs a cable and sets error counters on the console, and checks that
// exactly those faults are found.
func TestLiveIbsimFaults(t *testing.T) {
	g, plan := generate(t, simfabric.Spec{Spines: 2, Leaves: 4, HostsPerLeaf: 2},
		"narrow:leaf3[4]", "slow:h8", "swap:leaf2[1],leaf2[2]")
	s := startIbsim(t, g)
	s.StartSM("updn")
	before := s.collect(t)
	if got := notInfo(Check(before, Options{Plan: plan})); len(got) != 2 {
		t.Errorf("before the console faults: %v", brief(got))
	}

	s.Do(`Unlink "h1"[1]`, "sim>")
	s.Do(`PerformanceSet "leaf4"[3] PortCounters.SymbolErrorCounter=500`, "SymbolErrorCounter has been set to 500")
	s.Do(`PerformanceSet "leaf1"[3] PortCounters.LinkDownedCounter=2`, "LinkDownedCounter has been set to 2")
	s.Do(`PerformanceSet "spine2"[1] PortCounters.PortXmitWait=50000`, "PortXmitWait has been set to 50000")
	time.Sleep(500 * time.Millisecond)
	after := s.collect(t)

	fs := notInfo(Check(after, Options{Plan: plan}))
	rfs, _, err := CheckRouting(after, routing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs = append(fs, notInfo(rfs)...)
	want := []string{
		"fabric.congestion spine2[1] peer leaf1[4]",
		"fabric.link_degraded leaf3[4] peer spine2[3]",
		"fabric.link_degraded leaf4[2] peer h8[1]",
		"fabric.link_down leaf1[1]",
		"fabric.link_errors leaf1[3] peer spine1[1]",
		"fabric.link_errors leaf4[3] peer spine1[4]",
	}
	if d := cmp.Diff(want, brief(fs)); d != "" {
		for _, f := range fs {
			t.Logf("%s %s: %s", f.ID, f.Severity, f.Summary)
		}
		t.Errorf("check --plan (-want +got):\n%s", d)
	}
	wantDiff := []string{
		"fabric.cable_missing leaf1[1] peer h1[1]",
		"fabric.cable_miswired leaf2[1] peer h4[1]",
	}
	if d := cmp.Diff(wantDiff, brief(Diff(after, plan))); d != "" {
		t.Errorf("diff (-want +got):\n%s", d)
	}
	// Counter growth against the collection before the console faults.
	var growth []string
	for _, f := range Check(after, Options{Baseline: before}) {
		if f.ID == "fabric.link_errors" {
			growth = append(growth, f.Subject.NodeDesc+" "+string(f.Severity))
		}
	}
	slices.Sort(growth)
	if d := cmp.Diff([]string{"leaf1 critical", "leaf4 critical"}, growth); d != "" {
		t.Errorf("growth (-want +got):\n%s", d)
	}
	// The real tool outputs of this run, for the record and for parser
	// tests: saved only on request.
	if dir := os.Getenv("IBDOCTOR_SAVE_CAPTURE"); dir != "" {
		raw, err := sourcefabric.Collect(context.Background(), sourcefabric.CollectOptions{Env: s.Env, Dir: s.Dir})
		if err == nil {
			_ = sourcefabric.WriteDir(raw, dir)
		}
	}
}

// TestLiveIbsimDuplicateGUID: two hosts with one GUID (ibsim -I), no SM
// (OpenSM does not converge on such a fabric).
func TestLiveIbsimDuplicateGUID(t *testing.T) {
	g, _ := generate(t, simfabric.Spec{Spines: 1, Leaves: 2, HostsPerLeaf: 2}, "dupguid:h3,h4")
	s := startIbsim(t, g)
	f := s.collect(t)
	want := []string{"fabric.duplicate_guid h3[1]", "fabric.no_lid", "fabric.sm_missing"}
	got := brief(Check(f, Options{}))
	for i := range got {
		got[i] = strings.TrimSpace(got[i])
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestLiveIbsimDuplicateLID: one OpenSM sweep (opensm -o) assigns LIDs and
// exits; then the console gives h2 the LID of h1. No SM answers any more.
func TestLiveIbsimDuplicateLID(t *testing.T) {
	g, plan := generate(t, simfabric.Spec{Spines: 1, Leaves: 2, HostsPerLeaf: 2})
	s := startIbsim(t, g)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := s.Tool(ctx, "opensm", "-o", "-R", "minhop", "-f", filepath.Join(s.Dir, "opensm.log")); err != nil {
		t.Fatalf("opensm -o: %v\n%s", err, out)
	}
	f := s.collect(t)
	lid := -1
	for _, n := range f.Nodes {
		if n.Desc == "h1" {
			lid = n.Ports[0].LID
		}
	}
	if lid <= 0 {
		t.Fatalf("h1 has no LID after opensm -o")
	}
	s.Do(fmt.Sprintf(`Baselid "h2"[1] %d`, lid), "sim>")
	time.Sleep(200 * time.Millisecond)
	f = s.collect(t)
	got := brief(append(Check(f, Options{Plan: plan}), Diff(f, plan)...))
	for i := range got {
		got[i] = strings.TrimSpace(got[i])
	}
	want := []string{"fabric.duplicate_lid h2[1]", "fabric.sm_missing"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestLiveIbsimCleanFatTrees: clean fabrics routed by OpenSM's real
// engines give no finding above info, and every CA pair is routed.
func TestLiveIbsimCleanFatTrees(t *testing.T) {
	for _, tc := range []struct {
		engine string
		spec   simfabric.Spec
	}{
		{"ftree", simfabric.Spec{Spines: 2, Leaves: 4, HostsPerLeaf: 2, Levels: 3}},
		{"minhop", simfabric.Spec{Spines: 2, Leaves: 3, HostsPerLeaf: 2}},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			g, plan := generate(t, tc.spec)
			s := startIbsim(t, g)
			s.StartSM(tc.engine)
			f := s.collect(t)
			fs := notInfo(append(Check(f, Options{Plan: plan}), Diff(f, plan)...))
			rfs, res, err := CheckRouting(f, routing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			fs = append(fs, notInfo(rfs)...)
			if len(fs) != 0 || res.Pairs == 0 || res.RoutedPairs != res.Pairs {
				for _, x := range fs {
					t.Logf("%s %s: %s", x.ID, x.Severity, x.Summary)
				}
				t.Errorf("%d findings; %d of %d CA pairs routed", len(fs), res.RoutedPairs, res.Pairs)
			}
		})
	}
}

// TestLiveIbsimMissingUplink: a leaf-spine cable missing from the net
// file: the planned link is down at both ends (one finding), the tree is
// asymmetric, the cable is missing in the diff.
func TestLiveIbsimMissingUplink(t *testing.T) {
	g, plan := generate(t, simfabric.Spec{Spines: 2, Leaves: 4, HostsPerLeaf: 2}, "missing:leaf1[3]")
	s := startIbsim(t, g)
	s.StartSM("updn")
	f := s.collect(t)
	rfs, _, err := CheckRouting(f, routing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs := notInfo(append(append(Check(f, Options{Plan: plan}), rfs...), Diff(f, plan)...))
	want := []string{
		"fabric.cable_missing leaf1[3] peer spine1[1]",
		"fabric.link_down leaf1[3] peer spine1[1]",
		"fabric.tree_asymmetric leaf1",
	}
	if d := cmp.Diff(want, brief(fs)); d != "" {
		for _, x := range fs {
			t.Logf("%s %s: %s", x.ID, x.Severity, x.Summary)
		}
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestLiveIbsimPerfQueryFallback: without ibqueryerrors, the counters come
// from one perfquery per linked port.
func TestLiveIbsimPerfQueryFallback(t *testing.T) {
	g, _ := generate(t, simfabric.Spec{Spines: 1, Leaves: 2, HostsPerLeaf: 2})
	s := startIbsim(t, g)
	s.StartSM("minhop")
	s.Do(`PerformanceSet "leaf2"[1] PortCounters.SymbolErrorCounter=77`, "SymbolErrorCounter has been set to 77")
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	raw, err := sourcefabric.Collect(ctx, sourcefabric.CollectOptions{Env: s.Env, Timeout: 20 * time.Second, Dir: s.Dir, LookPath: func(name string) (string, error) {
		if name == "ibqueryerrors" {
			return "", exec.ErrNotFound
		}
		return exec.LookPath(name)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if raw.Get("perfquery") == nil {
		t.Fatal("no perfquery fallback")
	}
	f := Build(raw)
	var got []finding.Finding
	for _, x := range Check(f, Options{}) {
		if x.ID == "fabric.link_errors" {
			got = append(got, x)
		}
	}
	if d := cmp.Diff([]string{"fabric.link_errors leaf2[1] peer h3[1]"}, brief(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestLiveIbsim128PortSpines: spines with 128 ports (one per leaf), routed
// by OpenSM's ftree. dump_fts (infiniband-diags 44) calls port 128 illegal;
// collected with -a, every spine's entries to leaf128 are kept and no
// route is missing. Then OpenSM's file routing engine loads the same
// tables with one entry left out, the spine's entry (port 128) for a
// host behind leaf128 that h1's leaf sends there: exactly that break is
// reported, as one finding, confirmed by ibtracert. (ibsim's console
// cannot set a forwarding entry; the file engine, opensm -R file -U,
// programs the tables from a dump instead.)
func TestLiveIbsim128PortSpines(t *testing.T) {
	g, _ := generate(t, simfabric.Spec{Spines: 2, Leaves: 128, HostsPerLeaf: 2})
	s := startIbsim(t, g)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if out, err := s.Tool(ctx, "opensm", "-o", "-R", "ftree", "-f", filepath.Join(s.Dir, "opensm.log")); err != nil {
		t.Fatalf("opensm -o -R ftree: %v\n%s", err, out)
	}
	collect := func() (*Fabric, []byte) {
		raw, err := sourcefabric.Collect(ctx, sourcefabric.CollectOptions{Env: s.Env, Timeout: 60 * time.Second, Dir: s.Dir})
		if err != nil {
			t.Fatal(err)
		}
		return Build(raw), raw.Get("dump_fts").Stdout
	}
	var traced []string
	opts := routing.Options{Confirm: func(sm routing.Sample) routing.Confirmation {
		tr := sourcefabric.TraceRoute(ctx, sourcefabric.CollectOptions{Env: s.Env, Dir: s.Dir}, int(sm.SrcLID), int(sm.DstLID))
		traced = append(traced, fmt.Sprintf("%d->%d broken=%v %s%s", sm.SrcLID, sm.DstLID, tr.Broken, tr.Line, tr.Err))
		if tr.Broken {
			return routing.Confirmation{Confirmed: true, Note: "confirmed by ibtracert", Evidence: tr.Line}
		}
		return routing.Confirmation{Note: "not confirmed: " + tr.Err + tr.Line}
	}}
	// judged keeps the routing findings above info, but for the
	// management routes (switch-to-switch, left out by ftree).
	judged := func(f *Fabric) []finding.Finding {
		fs, _, err := CheckRouting(f, opts)
		if err != nil {
			t.Fatal(err)
		}
		return slices.DeleteFunc(fs, func(x finding.Finding) bool {
			return x.Severity == finding.Info || x.Subject.NodeDesc == routing.ManagementSubject
		})
	}

	f, fts := collect()
	var spine1 *ibdiags.LFT
	for i := range f.LFTs {
		if f.LFTs[i].SwitchDesc == "spine1" {
			spine1 = &f.LFTs[i]
		}
	}
	if spine1 == nil || !spine1.All || !slices.ContainsFunc(spine1.Entries, func(e ibdiags.LFTEntry) bool { return e.Port == 128 }) {
		t.Fatalf("spine1's table lacks the entries to port 128 that dump_fts leaves out without -a")
	}
	if fs := judged(f); len(fs) != 0 {
		for _, x := range fs {
			t.Logf("%s %s: %s", x.ID, x.Severity, x.Summary)
		}
		t.Fatalf("healthy fabric: %d routing findings", len(fs))
	}

	// The host behind leaf128, the spine leaf1 sends it to, and that
	// spine's entry for it (port 128).
	rf, err := RoutingInput(f)
	if err != nil {
		t.Fatal(err)
	}
	rg, err := routing.New(rf)
	if err != nil {
		t.Fatal(err)
	}
	var dst uint16
	for _, n := range f.Nodes {
		if n.Desc == "h256" { // behind leaf128
			dst = uint16(n.Ports[0].LID)
		}
	}
	var src uint16
	for _, n := range f.Nodes {
		if n.Desc == "h1" {
			src = uint16(n.Ports[0].LID)
		}
	}
	route, err := rg.Path(src, dst)
	if err != nil || len(route.Hops) != 5 {
		t.Fatalf("h1 -> h256 before the break: %v %v", route, err)
	}
	spine := rf.Nodes[route.Hops[2].Node]
	if route.Hops[2].OutPort != 128 {
		t.Fatalf("%s sends h256 out of port %d, want 128", spine.Name(), route.Hops[2].OutPort)
	}
	// The file engine takes the dump's valid entries; 255 ("no route")
	// it refuses, and those are what it leaves unset anyway.
	var in bytes.Buffer
	cur := ""
	drop := fmt.Sprintf("0x%04x ", dst)
	for _, line := range strings.SplitAfter(string(fts), "\n") {
		if strings.HasPrefix(line, "Unicast lids") {
			cur = line
		}
		if f := strings.Fields(line); len(f) >= 2 && strings.HasPrefix(f[0], "0x") && f[1] == "255" ||
			strings.HasPrefix(line, drop) && strings.Contains(cur, "("+spine.Name()+")") {
			continue
		}
		in.WriteString(line)
	}
	lfts := filepath.Join(s.Dir, "broken.lfts")
	if err := os.WriteFile(lfts, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := s.Tool(ctx, "opensm", "-o", "-R", "file", "-U", lfts, "-f", filepath.Join(s.Dir, "opensm-file.log")); err != nil {
		t.Fatalf("opensm -o -R file: %v\n%s", err, out)
	}
	// The file engine falls back to its default routing when it cannot
	// load the file: that would hide the break.
	if log, _ := os.ReadFile(filepath.Join(s.Dir, "opensm-file.log")); !bytes.Contains(log, []byte("file tables configured on all switches")) {
		t.Fatalf("OpenSM did not load %s:\n%s", lfts, log)
	}
	f, _ = collect()
	fs := judged(f)
	want := []string{"fabric.route_missing " + spine.Name()}
	if d := cmp.Diff(want, brief(fs)); d != "" {
		for _, x := range fs {
			t.Logf("%s %s: %s", x.ID, x.Severity, x.Summary)
		}
		t.Fatalf("after the break (-want +got):\n%s", d)
	}
	sum := fs[0].Summary
	if fs[0].Severity != finding.Critical || !strings.Contains(sum, fmt.Sprintf("(h256 (lid %d))", dst)) || !strings.HasSuffix(sum, " — confirmed by ibtracert") {
		t.Errorf("finding: %s %s (traced %q)", fs[0].Severity, sum, traced)
	}
}

// TestLiveIbsimQoS: OpenSM with qos TRUE programs every port with one
// SL-to-VL template and VL arbitration weights; the collection reads them
// back with smpquery. The plan that matches is clean; a plan that puts
// storage on another VL, and one that uses the unweighted VL 3, give
// exactly one fabric.qos_mismatch each.
func TestLiveIbsimQoS(t *testing.T) {
	g, _ := generate(t, simfabric.Spec{Spines: 2, Leaves: 2, HostsPerLeaf: 2})
	s := startIbsim(t, g)
	s.StartSMConf("updn", "qos TRUE\nqos_max_vls 4\nqos_high_limit 4\nqos_vlarb_high 0:4,1:0\n"+
		"qos_vlarb_low 0:0,1:64,2:128,3:0\nqos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,15\n")
	f := s.collectWith(t, true)
	if len(f.SL2VL) == 0 || len(f.VLArb) == 0 {
		t.Fatalf("no QoS tables collected; gaps %+v", f.Gaps)
	}
	for _, tc := range []struct {
		plan string
		want []string
	}{
		{"", nil},
		{"training 0 0\nstorage 1 1\nmanagement 2 2\n", nil},
		{"training 0 0\nstorage 1 2\n", []string{"maps storage (SL 1) to VL 1 on 8 nodes; the QoS plan says VL 2"}},
		{"training 0\nbulk 7\n", []string{"maps bulk (SL 7) to VL 3 on"}},
	} {
		var p *QoSPlan
		if tc.plan != "" {
			var err error
			if p, err = ParseQoSPlan(strings.NewReader(tc.plan), "qos.plan"); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for _, x := range Check(f, Options{QoS: p}) {
			if x.ID == "fabric.qos_mismatch" {
				got = append(got, x.Summary)
			}
		}
		ok := len(got) == len(tc.want)
		for i := range got {
			ok = ok && strings.Contains(got[i], tc.want[i])
		}
		if !ok {
			t.Errorf("plan %q: findings %q, want %q", tc.plan, got, tc.want)
		}
	}
}

// TestLiveIbsimLashVLs: on a ring, OpenSM's LASH engine leaves a cycle in
// the forwarding tables and breaks it with VLs, assigning the SL per path.
// The collection has the SL-to-VL tables but not the paths' SLs, so the
// one-VL credit loop is reported with that said, not cleared by a guess.
func TestLiveIbsimLashVLs(t *testing.T) {
	net, err := os.ReadFile(filepath.Join("testdata", "ring4.net"))
	if err != nil {
		t.Fatal(err)
	}
	s := startIbsim(t, simfabric.Generated{Net: net})
	s.StartSMConf("lash", "qos TRUE\n")
	f := s.collectWith(t, true)
	if vls := f.dataVLs(); len(vls) < 2 {
		t.Fatalf("LASH set %v data VLs, want several; gaps %+v", vls, f.Gaps)
	}
	fs, _, err := CheckRouting(f, routing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range fs {
		if x.ID == "fabric.credit_loop" {
			n++
			if !strings.Contains(x.Summary, "the SL of each route (LASH and DFSSSP set it per path) is not collected") {
				t.Errorf("no VL note: %s", x.Summary)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d credit loops, want 1: %+v", n, fs)
	}
}

// TestLiveIbsimPathSLs: the same ring with the paths' SLs collected
// (fabric collect --path-sl). The one-VL check finds the cycle in the
// tables; judged per VL with the SL the SA gives each CA-to-CA path, the
// engine's VL assignment breaks it and no credit loop is left.
func TestLiveIbsimPathSLs(t *testing.T) {
	for _, tc := range []struct{ engine, net string }{{"lash", "ring4.net"}, {"dfsssp", "ring5.net"}} {
		engine := tc.engine
		t.Run(engine, func(t *testing.T) {
			net, err := os.ReadFile(filepath.Join("testdata", tc.net))
			if err != nil {
				t.Fatal(err)
			}
			s := startIbsim(t, simfabric.Generated{Net: net})
			s.StartSMConf(engine, "qos TRUE\n")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			raw, err := sourcefabric.Collect(ctx, sourcefabric.CollectOptions{Env: s.Env, Timeout: 20 * time.Second, Dir: s.Dir, QoS: true, PathSL: true})
			if err != nil {
				t.Fatal(err)
			}
			f := Build(raw)
			if n := len(f.PathSLs); (n != 12 && n != 20) || len(f.SL2VL) == 0 {
				t.Fatalf("%d path SLs, %d SL2VL rows; gaps %+v", len(f.PathSLs), len(f.SL2VL), f.Gaps)
			}
			sls := map[int]bool{}
			for _, p := range f.PathSLs {
				sls[p.SL] = true
			}
			if len(sls) < 2 {
				t.Errorf("%s gave every path one SL: %+v", engine, f.PathSLs)
			}
			fs, res, err := CheckRouting(f, routing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.CreditLoops) == 0 {
				t.Errorf("the one-VL check finds no cycle in %s's tables", engine)
			}
			for _, x := range fs {
				if x.ID == "fabric.credit_loop" {
					t.Errorf("credit loop judged per VL: %s", x.Summary)
				}
			}
		})
	}
}

// TestLiveIbsimMTU: collect --mtu reads smpquery portinfo of both ends of
// every CA link from the real stack; ibsim runs every port at 2048 (and
// cannot run one lower), so every link is read and none is judged below
// the fabric's MTU. The mismatches themselves are TestCheckMTU's edits of
// such a capture.
func TestLiveIbsimMTU(t *testing.T) {
	g, _ := generate(t, simfabric.Spec{Spines: 1, Leaves: 2, HostsPerLeaf: 2})
	s := startIbsim(t, g)
	s.StartSM("minhop")
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	raw, err := sourcefabric.Collect(ctx, sourcefabric.CollectOptions{Env: s.Env, Timeout: 20 * time.Second, Dir: s.Dir, MTU: true})
	if err != nil {
		t.Fatal(err)
	}
	o := raw.Get("smpquery-portinfo")
	if o == nil || o.Err != "" {
		t.Fatalf("smpquery-portinfo: %+v", o)
	}
	f := Build(raw)
	if len(f.PortInfos) != 8 {
		t.Fatalf("%d portinfo answers, want both ends of 4 CA links; gaps %+v", len(f.PortInfos), f.Gaps)
	}
	for _, p := range f.PortInfos {
		if p.NeighborMTU != 2048 || p.MTUCap != 2048 || p.LinkState != "Active" {
			t.Errorf("%+v", p)
		}
	}
	for _, x := range Check(f, Options{}) {
		if x.ID == "fabric.mtu_below_fabric" {
			t.Errorf("%s", x.Summary)
		}
	}
}
