package fabric

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
	sourcefabric "github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

func load(t testing.TB, dir string) *Fabric {
	t.Helper()
	raw, err := sourcefabric.ReadFrom(filepath.Join("testdata", dir))
	if err != nil {
		t.Fatal(err)
	}
	return Build(raw)
}

func loadPlan(t testing.TB, name string) *Plan {
	t.Helper()
	fh, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	p, err := ParsePlan(fh, name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func planText(t testing.TB, text string) *Plan {
	t.Helper()
	p, err := ParsePlan(strings.NewReader(text), "plan.txt")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// brief renders findings as "id subject" lines for comparison.
func brief(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		s := f.ID + " " + f.Subject.NodeDesc
		if f.Subject.Port != 0 {
			s += fmt.Sprintf("[%d]", f.Subject.Port)
		}
		if f.Subject.Peer != nil {
			s += fmt.Sprintf(" peer %s[%d]", f.Subject.Peer.NodeDesc, f.Subject.Peer.Port)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// withOutput returns a copy of the spineleaf collection with one output's
// stdout (and stderr) replaced.
func withOutput(t testing.TB, dir, name string, edit func(string) string) *fabricmodel.Raw {
	t.Helper()
	raw, err := sourcefabric.ReadFrom(filepath.Join("testdata", dir))
	if err != nil {
		t.Fatal(err)
	}
	o := raw.Get(name)
	if o == nil {
		o = &fabricmodel.Output{Name: name}
		raw.Outputs = append(raw.Outputs, o)
	}
	o.Stdout = []byte(edit(string(o.Stdout)))
	return raw
}

func TestCheckIbsimCapture(t *testing.T) {
	f := load(t, "spineleaf")
	if len(f.Nodes) != 8 || len(f.Links) != 8 {
		t.Fatalf("%d nodes, %d links", len(f.Nodes), len(f.Links))
	}
	// spine2 is unreachable by LID in this capture: its 8 ports are gaps.
	if len(f.Gaps) != 8 || !strings.Contains(f.Gaps[0].Reason, "spine2 LID 3 port 1") {
		t.Errorf("gaps: %+v", f.Gaps)
	}
	fs := Check(f, Options{})
	for _, x := range fs {
		if x.ID == "fabric.link_degraded" && !slices.ContainsFunc(x.Evidence, func(e finding.Evidence) bool { return strings.Contains(e.Value, "could be 12X QDR") }) {
			t.Errorf("degraded link without iblinkinfo's hint: %+v", x.Evidence)
		}
	}
	// A width-only hint (ibsim's narrow links print "Could be 12X" alone)
	// names the width and no lane speed.
	for _, l := range f.Links {
		for _, e := range []End{l.A, l.B} {
			if p := f.PortOf(e); p != nil {
				p.CouldBeSpeed = 0
			}
		}
	}
	for _, x := range Check(f, Options{}) {
		for _, e := range x.Evidence {
			if e.Source == "iblinkinfo" && (!strings.Contains(e.Value, "could be 12X (the best") || strings.Contains(e.Value, "speed(")) {
				t.Errorf("width-only hint rendered as %q", e.Value)
			}
		}
	}
	got := brief(fs)
	want := []string{
		"fabric.congestion h1[1] peer leaf1[1]",
		"fabric.link_degraded leaf2[5] peer spine1[2]",
		"fabric.link_errors leaf1[5] peer spine1[1]",
		"fabric.link_errors leaf2[5] peer spine1[2]",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}

func TestCheckCounters(t *testing.T) {
	f := load(t, "spineleaf")
	high := Thresholds{SymbolErrors: 100, LinkErrorRecovery: 100, LinkDowned: 100, RcvErrors: 100, XmitDiscards: 100, XmitWait: 1 << 30}
	low := DefaultThresholds()
	low.RcvErrors = 4
	bumped := withOutput(t, "spineleaf", "ibqueryerrors", func(s string) string {
		s = strings.Replace(s, "[PortRcvErrors == 4]", "[PortRcvErrors == 4] [SymbolErrorCounter == 500]", 1)
		return strings.Replace(s, "[LinkDownedCounter == 3] [PortXmitData == 42192", "[LinkDownedCounter == 4] [PortXmitData == 42192", 1)
	})
	tests := []struct {
		name string
		f    *Fabric
		opts Options
		want []string
		sev  map[string]finding.Severity
	}{
		{"thresholds not reached", f, Options{Thresholds: high}, nil, nil},
		{"lower rcv threshold", f, Options{Thresholds: low}, []string{
			"fabric.congestion h1[1] peer leaf1[1]", "fabric.link_errors h2[1] peer leaf1[2]",
			"fabric.link_errors leaf1[5] peer spine1[1]", "fabric.link_errors leaf2[5] peer spine1[2]"}, nil},
		{"no growth against itself", f, Options{Baseline: f}, nil, nil},
		{"growth against baseline", Build(bumped), Options{Baseline: f}, []string{
			"fabric.link_errors h2[1] peer leaf1[2]", "fabric.link_errors leaf1[5] peer spine1[1]"},
			map[string]finding.Severity{"h2": finding.Critical, "leaf1": finding.Critical}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fs []finding.Finding
			for _, x := range Check(tt.f, tt.opts) {
				if x.ID == "fabric.link_errors" || x.ID == "fabric.congestion" {
					fs = append(fs, x)
				}
			}
			if d := cmp.Diff(tt.want, brief(fs)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			for _, x := range fs {
				if s, ok := tt.sev[x.Subject.NodeDesc]; ok && x.Severity != s {
					t.Errorf("%s: severity %s, want %s (%s)", x.Subject.NodeDesc, x.Severity, s, x.Summary)
				}
			}
		})
	}
}

const netPlanText = `# hand-written plan of the spineleaf capture
spine1 1 leaf1 5
spine1 2 leaf2 5 1xSDR
spine2 1 leaf1 6
spine2 2 leaf2 6
leaf1 1 h1 1
leaf1 2 h2 1
leaf2 1 h3 1
leaf2 2 h4 1 4xDDR
`

func TestDiff(t *testing.T) {
	f := load(t, "spineleaf")
	tests := []struct {
		name string
		plan *Plan
		want []string
	}{
		{"ibsim net file as plan", loadPlan(t, "spineleaf.net"), nil},
		{"line plan", planText(t, netPlanText), nil},
		{"two cables swapped", planText(t, strings.NewReplacer("leaf1 1 h1 1", "leaf1 1 h2 1", "leaf1 2 h2 1", "leaf1 2 h1 1").Replace(netPlanText)),
			[]string{"fabric.cable_miswired leaf1[1] peer h1[1]"}},
		{"uplinks swapped between spines", planText(t, strings.NewReplacer("spine1 1 leaf1 5", "spine1 1 leaf1 6", "spine2 1 leaf1 6", "spine2 1 leaf1 5").Replace(netPlanText)),
			[]string{"fabric.cable_miswired spine2[1] peer leaf1[6]"}},
		{"unplanned cable", planText(t, strings.Replace(netPlanText, "leaf2 1 h3 1\n", "", 1)),
			[]string{"fabric.cable_unexpected leaf2[1] peer h3[1]"}},
		{"planned cable absent", planText(t, netPlanText+"leaf1 3 spine1 3\n"),
			[]string{"fabric.cable_missing leaf1[3] peer spine1[3]"}},
		{"planned node absent", planText(t, netPlanText+"leaf1 7 \"h9 mlx5_0\" 1\n"),
			[]string{"fabric.cable_missing leaf1[7] peer h9 mlx5_0[1]"}},
		{"by GUID", planText(t, strings.Replace(netPlanText, "leaf1 1 h1 1", "0x200002 1 H-0000000000100000 1", 1)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, brief(Diff(f, tt.plan))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestCheckWithPlan(t *testing.T) {
	f := load(t, "spineleaf")
	tests := []struct {
		name string
		plan string
		want []string
	}{
		// The plan says leaf2-spine1 is 1X: not degraded; h4 should be QDR.
		{"plan rates", strings.Replace(netPlanText, "4xDDR", "4xQDR", 1), []string{"fabric.link_degraded leaf2[2] peer h4[1]"}},
		{"planned port down", netPlanText + "leaf1 3 spine1 3\n", []string{"fabric.link_down leaf1[3] peer spine1[3]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []finding.Finding
			for _, x := range Check(f, Options{Plan: planText(t, tt.plan)}) {
				if strings.HasPrefix(x.ID, "fabric.link_d") {
					got = append(got, x)
				}
			}
			if d := cmp.Diff(tt.want, brief(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestCheckBaselineLinkGone(t *testing.T) {
	before := load(t, "spineleaf")
	// The h3 cable unplugged: ibnetdiscover no longer lists it and
	// iblinkinfo shows leaf2[1] Down/Polling.
	raw := withOutput(t, "spineleaf", "ibnetdiscover", func(s string) string {
		s = strings.Replace(s, "[1]\t\"H-0000000000100004\"[1](100005) \t\t# \"h3\" lid 7 4xSDR\n", "", 1)
		blocks := strings.Split(s, "\n\n")
		blocks = slices.DeleteFunc(blocks, func(b string) bool { return strings.Contains(b, "Ca\t1 \"H-0000000000100004\"") })
		return strings.Join(blocks, "\n\n")
	})
	li := raw.Get("iblinkinfo")
	li.Stdout = []byte(strings.Replace(string(li.Stdout),
		"           6    1[  ] ==( 4X           2.5 Gbps Active/  LinkUp)==>       7    1[  ] \"h3\" (Could be 12X Could be 10.0 Gbps)",
		"           6    1[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )", 1))
	after := Build(raw)
	var got []finding.Finding
	for _, x := range Check(after, Options{Baseline: before}) {
		if x.ID == "fabric.link_down" {
			got = append(got, x)
		}
	}
	if d := cmp.Diff([]string{"fabric.link_down leaf2[1]"}, brief(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got := Check(before, Options{Baseline: before}); slices.ContainsFunc(got, func(x finding.Finding) bool { return x.ID == "fabric.link_down" }) {
		t.Error("link_down against an identical baseline")
	}
}

func TestCheckIdentity(t *testing.T) {
	tests := []struct {
		name string
		raw  *fabricmodel.Raw
		want []string
	}{
		{"duplicate guid under ibsim, no SM", mustRead(t, "dupguid"), []string{"fabric.duplicate_guid h1[1]", "fabric.no_lid ", "fabric.sm_missing "}},
		{"duplicate lid", withOutput(t, "spineleaf", "ibnetdiscover", func(s string) string {
			return strings.ReplaceAll(s, "lid 7", "lid 8")
		}), []string{"fabric.duplicate_lid h4[1]"}},
		{"one port without lid", withOutput(t, "spineleaf", "ibnetdiscover", func(s string) string {
			return strings.ReplaceAll(s, "lid 7", "lid 0")
		}), []string{"fabric.no_lid h3[1]"}},
		{"two masters", withOutput(t, "spineleaf", "sminfo", func(s string) string {
			return s + "sminfo: sm lid 3 sm guid 0x200001, activity count 7 priority 0 state 3 SMINFO_MASTER\n"
		}), []string{"fabric.sm_multiple_masters spine1"}},
		{"two masters from the SA's SM list", withOutput(t, "spineleaf", "sminfo-sms", func(string) string {
			return "sminfo: sm lid 1 sm guid 0x200000, activity count 130 priority 0 state 3 SMINFO_MASTER\n" +
				"sminfo: sm lid 6 sm guid 0x200003, activity count 9 priority 0 state 3 SMINFO_MASTER\n"
		}), []string{"fabric.sm_multiple_masters spine1"}},
		{"master and standby from the SA's SM list", withOutput(t, "spineleaf", "sminfo-sms", func(string) string {
			return "sminfo: sm lid 6 sm guid 0x200003, activity count 9 priority 0 state 2 SMINFO_STANDBY\n"
		}), nil},
		{"SM ports name different masters", withOutput(t, "spineleaf", "saquery-sm", func(string) string {
			rec := "PortInfoRecord dump:\n\t\tEndPortLid..............%d\n\t\tPortNum.................0\n\t\tbase_lid................%d\n\t\tmaster_sm_base_lid......%d\n\t\tcapability_mask.........0xC04A\n"
			return "IsSM ports\n" + fmt.Sprintf(rec, 1, 1, 1) + fmt.Sprintf(rec, 6, 6, 6) + "\nIsSMdisabled ports\n"
		}), []string{"fabric.sm_multiple_masters "}},
		{"standby only", withOutput(t, "spineleaf", "sminfo", func(s string) string {
			return strings.Replace(s, "state 3 SMINFO_MASTER", "state 2 SMINFO_STANDBY", 1)
		}), []string{"fabric.sm_missing "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []finding.Finding
			for _, x := range Check(Build(tt.raw), Options{}) {
				switch x.ID {
				case "fabric.duplicate_guid", "fabric.duplicate_lid", "fabric.no_lid", "fabric.sm_missing", "fabric.sm_multiple_masters":
					got = append(got, x)
				}
			}
			b := brief(got)
			for i := range b {
				b[i] = strings.TrimSuffix(b[i], " peer [0]")
			}
			if d := cmp.Diff(tt.want, b); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func mustRead(t testing.TB, dir string) *fabricmodel.Raw {
	raw, err := sourcefabric.ReadFrom(filepath.Join("testdata", dir))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestSMInfoMissingIsGapNotFinding(t *testing.T) {
	raw := mustRead(t, "spineleaf")
	raw.Outputs = slices.DeleteFunc(raw.Outputs, func(o *fabricmodel.Output) bool { return o.Name == "sminfo" })
	f := Build(raw)
	if f.SMQueried || !slices.ContainsFunc(f.Gaps, func(g Gap) bool { return g.Source == "sminfo" }) {
		t.Errorf("sminfo absent: queried=%v gaps=%+v", f.SMQueried, f.Gaps)
	}
	for _, x := range Check(f, Options{}) {
		if x.ID == "fabric.sm_missing" {
			t.Error("sm_missing without an sminfo answer")
		}
	}
}

func TestCollectMissingTools(t *testing.T) {
	o := sourcefabric.CollectOptions{
		LookPath: func(string) (string, error) { return "", errors.New("executable file not found in $PATH") },
		Now:      func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
	}
	raw, err := sourcefabric.Collect(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	f := Build(raw)
	if len(f.Nodes) != 0 || len(f.Gaps) != 5 || !strings.Contains(f.Gaps[0].Reason, "ibnetdiscover not found (install infiniband-diags)") {
		t.Errorf("gaps: %+v", f.Gaps)
	}
	if fs := Check(f, Options{}); len(fs) != 0 {
		t.Errorf("findings without data: %v", brief(fs))
	}
}

func TestParsePlanErrors(t *testing.T) {
	for _, in := range []string{"a 1 b\n", "a x b 1\n", "a 1 b 1 4xFAST\n", "a 1 b 1\na 1 c 2\n", "\"a 1 b 1\n", "# nothing\n"} {
		_, err := ParsePlan(strings.NewReader(in), "plan.txt")
		if err == nil || !strings.Contains(err.Error(), "plan.txt") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func BenchmarkBuildAndCheck(b *testing.B) {
	raw := mustRead(b, "spineleaf")
	for b.Loop() {
		f := Build(raw)
		_ = Check(f, Options{})
	}
}

func TestCheckRouting(t *testing.T) {
	f := load(t, "spineleaf")
	fs, res, err := CheckRouting(f, routing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// OpenSM's ftree left no entry for the other spine on either spine
	// (the real capture): the only breaks, one finding about management
	// routes. Only switch-to-switch routes break, but the collection ran
	// from spine1 and lost spine2's counters for it: a warning.
	want := []string{"fabric.route_missing " + routing.ManagementSubject}
	if d := cmp.Diff(want, brief(fs)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, x := range fs {
		if x.Severity != finding.Warning || !strings.Contains(x.Summary, "on 2 switches") {
			t.Errorf("%s: severity %s, want warning (switch-to-switch routes on both spines, which cost counters)", x.Summary, x.Severity)
		}
	}
	if res.Switches != 4 || res.RoutedPairs != res.Pairs {
		t.Errorf("switches %d, CA pairs %d/%d routed", res.Switches, res.RoutedPairs, res.Pairs)
	}
	raw := mustRead(t, "spineleaf")
	raw.Outputs = slices.DeleteFunc(raw.Outputs, func(o *fabricmodel.Output) bool { return o.Name == "dump_fts" })
	if _, _, err := CheckRouting(Build(raw), routing.Options{}); err == nil {
		t.Error("no error without forwarding tables")
	}
}

// TestCaptureIbsimFaults replays the outputs TestLiveIbsimFaults collected
// (saved with IBDOCTOR_SAVE_CAPTURE), so the whole chain is checked on real
// tool output even where ibsim is not installed.
func TestCaptureIbsimFaults(t *testing.T) {
	f := load(t, "ibsim-faults")
	plan := loadPlan(t, "ibsim-faults.plan")
	var got []finding.Finding
	for _, x := range Check(f, Options{Plan: plan}) {
		if x.Severity != finding.Info {
			got = append(got, x)
		}
	}
	got = append(got, Diff(f, plan)...)
	want := []string{
		"fabric.cable_missing leaf1[1] peer h1[1]",
		"fabric.cable_miswired leaf2[1] peer h4[1]",
		"fabric.congestion spine2[1] peer leaf1[4]",
		"fabric.link_degraded leaf3[4] peer spine2[3]",
		"fabric.link_degraded leaf4[2] peer h8[1]",
		"fabric.link_down leaf1[1]",
		"fabric.link_errors leaf1[3] peer spine1[1]",
		"fabric.link_errors leaf4[3] peer spine1[4]",
	}
	if d := cmp.Diff(want, brief(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if len(f.Gaps) != 0 {
		t.Errorf("gaps: %+v", f.Gaps)
	}
}

func TestLinkInfoAlone(t *testing.T) {
	raw := mustRead(t, "spineleaf")
	raw.Outputs = slices.DeleteFunc(raw.Outputs, func(o *fabricmodel.Output) bool { return o.Name != "iblinkinfo" })
	f := Build(raw)
	if len(f.Nodes) != 8 || len(f.Links) != 8 {
		t.Fatalf("%d nodes, %d links from iblinkinfo alone", len(f.Nodes), len(f.Links))
	}
	got := brief(Check(f, Options{}))
	if d := cmp.Diff([]string{"fabric.link_degraded leaf2[5] peer spine1[2]"}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// Against the plan, from iblinkinfo alone.
	if fs := Diff(f, loadPlan(t, "spineleaf.net")); len(fs) != 0 {
		t.Errorf("diff: %v", brief(fs))
	}
}

// TestDumpFTsLastPort: dump_fts calls the last port of a switch illegal.
// Without -a it leaves the entry to h2 (port 2 of a 2-port switch) out and
// the route looks missing, which Build reports as a gap; with -a the entry
// is printed as "(illegal port)", kept, and judged valid from the
// topology's port count.
func TestDumpFTsLastPort(t *testing.T) {
	topo := "switchguid=0x200000(200000)\n" +
		"Switch\t2 \"S-0000000000200000\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n" +
		"[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"h1\" lid 2 4xQDR\n" +
		"[2]\t\"H-0000000000100002\"[1](100003) \t\t# \"h2\" lid 3 4xQDR\n\n" +
		"caguid=0x100000\nCa\t1 \"H-0000000000100000\"\t\t# \"h1\"\n" +
		"[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 2 lmc 0 \"sw\" lid 1 4xQDR\n\n" +
		"caguid=0x100002\nCa\t1 \"H-0000000000100002\"\t\t# \"h2\"\n" +
		"[1](100003) \t\"S-0000000000200000\"[2]\t\t# lid 3 lmc 0 \"sw\" lid 1 4xQDR\n"
	hdr := "Unicast lids [0x0-0x3] of switch DR path slid 0; dlid 0; 0 guid 0x0000000000200000 (sw):\n"
	tests := []struct {
		name    string
		fts     string
		gap     bool
		missing int
	}{
		{"without -a", hdr + "0x0001 000 : (Switch portguid 0x0000000000200000: 'sw')\n" +
			"0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'h1')\n2 valid lids dumped \n", true, 1},
		{"with -a", hdr + "0x0000 255 : (path #0 - illegal port)\n0x0001 000 : (Switch portguid 0x0000000000200000: 'sw')\n" +
			"0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'h1')\n0x0003 002 : (illegal port)\n4 lids dumped \n", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := &fabricmodel.Raw{Outputs: []*fabricmodel.Output{
				{Name: "ibnetdiscover", Stdout: []byte(topo)},
				{Name: "dump_fts", Stdout: []byte(tt.fts)},
			}}
			f := Build(raw)
			gap := slices.ContainsFunc(f.Gaps, func(g Gap) bool { return g.Source == "dump_fts" && strings.Contains(g.Reason, "without -a") })
			if gap != tt.gap {
				t.Errorf("without -a gap: %v, want %v (%v)", gap, tt.gap, f.Gaps)
			}
			fs, _, err := CheckRouting(f, routing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, x := range fs {
				if x.ID == "fabric.route_missing" && x.Severity == finding.Critical {
					n++
				}
			}
			if n != tt.missing {
				t.Errorf("%d critical route_missing, want %d: %v", n, tt.missing, brief(fs))
			}
		})
	}
}

// TestPMAGapsExplainedByManagementRoutes: in the spineleaf capture the
// collection ran from spine1 (ibsim attaches there), whose table has no
// route to spine2's LID 3 (updn leaves switch-to-switch routes out): the
// eight counter gaps of spine2 get that cause, and the management-routes
// finding, which now cost counters, is a warning saying so.
func TestPMAGapsExplainedByManagementRoutes(t *testing.T) {
	f := load(t, "spineleaf")
	if f.OriginLID != 1 {
		t.Fatalf("origin LID %d, want spine1's 1", f.OriginLID)
	}
	fs, _, err := CheckRouting(f, routing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	explained := 0
	for _, g := range f.Gaps {
		if g.Kind == "pma_query_failed" {
			if g.Cause != NoRouteCause || g.NodeType != "Switch" || g.LID != 3 {
				t.Errorf("gap %+v", g)
			}
			explained++
		}
	}
	if explained != 8 {
		t.Errorf("%d counter gaps, want 8", explained)
	}
	var mgmt []finding.Finding
	for _, x := range fs {
		if x.Subject.NodeDesc == routing.ManagementSubject {
			mgmt = append(mgmt, x)
		}
	}
	if len(mgmt) != 1 || mgmt[0].Severity != finding.Warning || !strings.Contains(mgmt[0].Summary, "could not read the counters of 8 ports on 1 switch") {
		t.Errorf("management findings %+v", mgmt)
	}
}

// TestCheckQueryErrors judges ibqueryerrors/ibcheckerrors pasted without
// the topology, port by port.
func TestCheckQueryErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
		has  string
	}{
		{"saturated symbol errors", "Errors for 0x0002c90300a1b2c3 \"leaf07\"\n   GUID 0x0002c90300a1b2c3 port 7: [SymbolErrorCounter == 65535]\n",
			[]string{"fabric.link_errors/critical"}, `"leaf07" (GUID 0x0002c90300a1b2c3) port 7: SymbolErrorCounter 65535 (saturated`},
		{"discards with human units", "Errors for \"node1 HCA-1\"\n   GUID 0x0002c90300a1b2c4 port 1: [PortXmitDiscards == 2846 (2.779K)]\n",
			[]string{"fabric.link_errors/warning"}, "PortXmitDiscards 2846"},
		{"symbol errors and link downed on one port", "#warn: counter SymbolErrors = 36905     (threshold 10) lid 193 port 14\n#warn: counter LinkDowned = 23  (threshold 10) lid 193 port 14\nError check on lid 193 (ISR9288/ISR9096 Voltaire sLB-24) port 14:  FAILED\n",
			[]string{"fabric.link_errors/critical"}, `"ISR9288/ISR9096 Voltaire sLB-24" (lid 193) port 14`},
		{"switch relay errors alone", "#warn: counter RcvSwRelayErrors = 179   (threshold 100)\nError check on lid 2 (MT47396 Infiniscale-III Mellanox Technologies) port\n7:  FAILED\n",
			[]string{"fabric.link_errors/info"}, "not a cable fault"},
		{"below thresholds", "Errors for \"n\"\n   GUID 0x1 port 1: [SymbolErrorCounter == 3]\n", nil, ""},
		// guilbaults/infiniband-exporter#20: a grep of ibqueryerrors,
		// symbol errors under the threshold and a long credit wait:
		// congestion, judged as it is with the topology.
		{"xmit wait beside few symbol errors", "GUID 0xc42a10300dd0bea port 1: [SymbolErrorCounter == 4] [PortXmitWait == 224462059]\n",
			[]string{"fabric.congestion/warning"}, "0x0c42a10300dd0bea port 1 waited 224462059 ticks for credits"},
		{"xmit wait under the threshold", "GUID 0x1 port 1: [PortXmitWait == 2]\n", nil, ""},
		// linux-rdma (ceph, OpenSM): a saturated 32-bit PortXmitWait.
		{"xmit wait saturated", "Errors for \"server mlx4_0\"\n   GUID 0x2c9030042dff1 port 1: [PortXmitWait == 4294967295]\n",
			[]string{"fabric.congestion/warning"}, "PortXmitWait 4294967295 is saturated"},
		// A "port ALL" aggregate pasted without its header or its
		// node's port lines (openucx/ucx#9590) is all there is to judge.
		{"aggregate alone", " GUID 0x1070fd0300370ea2 port ALL: [LinkDownedCounter == 25 (25.000)] [PortRcvErrors == 26 (26.000)] [PortXmitDiscards == 2846 (2.779K)]\n",
			[]string{"fabric.link_errors/critical"}, "0x1070fd0300370ea2 (all ports): LinkDownedCounter 25"},
		// Beside the node's own port lines the aggregate repeats them.
		{"aggregate with its ports", "Errors for 0x2 \"leaf\"\n   GUID 0x2 port ALL: [PortRcvErrors == 40]\n   GUID 0x2 port 3: [PortRcvErrors == 40]\n",
			[]string{"fabric.link_errors/warning"}, `"leaf" (GUID 0x0000000000000002) port 3`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := ibdiags.ParseQueryErrors(strings.NewReader(tc.in), "q.txt")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckQueryErrors(q, "q.txt", Thresholds{})
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			if tc.has != "" && !strings.Contains(fs[0].Summary, tc.has) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tc.has)
			}
		})
	}
}

// TestDegradedMixedGenerations: lane speeds are judged against what both
// ends' kinds of node reach, not the fabric's majority. Real layouts:
// NVIDIA/nccl-tests#71 (EDR V100 HCAs and a SHARP aggregation node on an
// HDR switch) and the Open MPI users list 2010 (identical blades at DDR
// beside others at QDR on one switch; a second, SDR-only switch).
func TestDegradedMixedGenerations(t *testing.T) {
	row := func(lid, port int, rate string, rlid int, peer string) string {
		return fmt.Sprintf("           %d   %2d[  ] ==( 4X %s Gbps Active/  LinkUp)==>       %d    1[  ] %q ( )\n", lid, port, rate, rlid, peer)
	}
	edrOnHDR := "Switch: 0x0c42a10300b95bfa MF0;ibswitch254:MQM8700/U1:\n" +
		row(3, 1, "25.78125", 1, "gpu-v100-0 HCA-1") + row(3, 2, "25.78125", 2, "gpu-v100-1 HCA-1") +
		row(3, 3, "25.78125", 6, "gpu-v100-3 HCA-1") + row(3, 4, "25.78125", 5, "gpu-v100-2 HCA-1") +
		row(3, 41, "53.125", 4, "Mellanox Technologies Aggregation Node")
	hssm := "Switch 0x0008f10500380136 IBM HSSM:\n" +
		row(4, 1, "5.0", 1, "faui36a HCA-1") + row(4, 2, "2.5", 9, "MT25204 InfiniHostLx Mellanox Technologies") +
		row(4, 17, "10.0", 6, "faui36b HCA-1") + row(4, 18, "10.0", 8, "faui36c HCA-1") + row(4, 19, "5.0", 3, "faui36d HCA-1")
	topspin := "Switch 0x0005ad0000080ba2 Topspin Switch:\n" +
		row(10, 1, "2.5", 13, "faui36b HCA-1") + row(10, 2, "2.5", 15, "faui36c HCA-1") + row(10, 3, "2.5", 12, "faui36d HCA-1")
	oneFaster := "Switch: 0x0000000000000011 MF0;sw:SX6036/U1:\n" +
		row(7, 1, "14.0625", 1, "n1 HCA-1") + row(7, 2, "10.0", 2, "n2 HCA-1") + row(7, 3, "10.0", 3, "n3 HCA-1")
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"EDR HCAs and an HDR aggregation node on an HDR switch", edrOnHDR, nil},
		{"DDR blades beside QDR blades on one switch; SDR switch alone", hssm + topspin,
			[]string{"fabric.link_degraded/critical IBM HSSM[19]", "fabric.link_degraded/critical IBM HSSM[1]"}},
		{"one faster peer of the same kind: a warning", oneFaster,
			[]string{"fabric.link_degraded/warning MF0;sw:SX6036/U1[2]", "fabric.link_degraded/warning MF0;sw:SX6036/U1[3]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Build(&fabricmodel.Raw{Source: "x", Outputs: []*fabricmodel.Output{{Name: "iblinkinfo", Stdout: []byte(tc.in)}}})
			var got []string
			for _, fd := range Check(f, Options{}) {
				if fd.ID == "fabric.link_degraded" {
					got = append(got, fmt.Sprintf("%s/%s %s[%d]", fd.ID, fd.Severity, fd.Subject.NodeDesc, fd.Subject.Port))
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnassignedLID: ibnetdiscover prints lid 65535 for ports the SM never
// configured (a UFM director capture): no LID, never a duplicate; many
// such ports are one finding naming the hosts.
func TestUnassignedLID(t *testing.T) {
	topo := func(n, unassigned int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "switchguid=0x100\nSwitch\t%d \"S-0000000000000100\"\t# \"MF0;leaf:MQM8700/U1\" enhanced port 0 lid 3 lmc 0\n", n)
		for i := 1; i <= n; i++ {
			lid := 10 + i
			if i <= unassigned {
				lid = 65535
			}
			fmt.Fprintf(&b, "[%d]\t\"H-%016x\"[1](%x)\t\t# \"host%02d mlx5_0\" lid %d 4xHDR\n", i, 0x1000+i, 0x1000+i, i, lid)
		}
		for i := 1; i <= n; i++ {
			lid := 10 + i
			if i <= unassigned {
				lid = 65535
			}
			fmt.Fprintf(&b, "\ncaguid=0x%x\nCa\t1 \"H-%016x\"\t\t# \"host%02d mlx5_0\"\n[1](%x)\t\"S-0000000000000100\"[%d]\t\t# lid %d lmc 0 \"MF0;leaf:MQM8700/U1\" lid 3 4xHDR\n", 0x1000+i, 0x1000+i, i, 0x1000+i, i, lid)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name       string
		n, un      int
		want       []string
		summaryHas string
	}{
		{"two ports", 4, 2, []string{"fabric.no_lid", "fabric.no_lid"}, "has no LID while 3 other ports have one"},
		{"many ports: one finding", 12, 10, []string{"fabric.no_lid"}, "10 ports on 10 hosts and switches have no LID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Build(&fabricmodel.Raw{Source: "x", Outputs: []*fabricmodel.Output{{Name: "ibnetdiscover", Stdout: []byte(topo(tc.n, tc.un))}}})
			var got []string
			var sum string
			for _, fd := range Check(f, Options{}) {
				got = append(got, fd.ID)
				sum += fd.Summary + "\n"
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s\n%s", diff, sum)
			}
			if !strings.Contains(sum, tc.summaryHas) {
				t.Errorf("summaries lack %q:\n%s", tc.summaryHas, sum)
			}
		})
	}
}
