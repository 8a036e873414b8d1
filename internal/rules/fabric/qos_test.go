package fabric

import (
	"errors"
	"fmt"
	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	sourcefabric "github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

// loadQoS reads the qos-ibsim capture with edit applied to its
// smpquery-sl2vl and smpquery-vlarb outputs.
func loadQoS(t *testing.T, editSL, editVA func(string) string) *Fabric {
	t.Helper()
	raw, err := sourcefabric.ReadFrom(filepath.Join("testdata", "qos-ibsim"))
	if err != nil {
		t.Fatal(err)
	}
	if editSL != nil {
		o := raw.Get("smpquery-sl2vl")
		o.Stdout = []byte(editSL(string(o.Stdout)))
	}
	if editVA != nil {
		o := raw.Get("smpquery-vlarb")
		o.Stdout = []byte(editVA(string(o.Stdout)))
	}
	return Build(raw)
}

func mustQoSPlan(t *testing.T, s string) *QoSPlan {
	t.Helper()
	p, err := ParseQoSPlan(strings.NewReader(s), "qos.plan")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const okRow = "| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2|15|"

// editRow changes the row "ports: in I, out O" of LID lid's table.
func editRow(lid, header, row string) func(string) string {
	return func(s string) string {
		blocks := strings.Split(s, "# SL2VL table: Lid ")
		for i, b := range blocks {
			if strings.HasPrefix(b, lid+"\n") && strings.Contains(b, header) {
				lines := strings.Split(b, "\n")
				for j, l := range lines {
					if strings.HasPrefix(l, header) {
						lines[j] = header + " " + row
					}
				}
				blocks[i] = strings.Join(lines, "\n")
			}
		}
		return strings.Join(blocks, "# SL2VL table: Lid ")
	}
}

func TestCheckQoS(t *testing.T) {
	const plan = "training 0 0\nstorage 1 1\nmanagement 2 # any VL\n"
	tests := []struct {
		name   string
		plan   string
		editSL func(string) string
		editVA func(string) string
		want   []string // summaries, in order
		ev     string   // some evidence value
	}{
		{name: "captured, no plan", want: nil},
		{name: "captured, plan kept", plan: plan, want: nil},
		{name: "plan says another VL", plan: "training 0 0\nstorage 1 2\n",
			want: []string{"h1 (and 6 more) maps storage (SL 1) to VL 1 on 7 nodes; the QoS plan says VL 2"}, ev: "storage 1 2"},
		{name: "planned SL on an unweighted VL", plan: "bulk 3\n",
			want: []string{"h1 (and 6 more) maps bulk (SL 3) to VL 3 on 14 ports, and VL 3 has no arbitration weight there (0 in the high and the low table): its packets are never sent"},
			ev:   "VL 3 weight 0 in the high and the low table"},
		{name: "unweighted VL outside the plan is not judged", plan: plan, editVA: nil, want: nil},
		{name: "one HCA disagrees, no plan", editSL: editRow("7", "ports: in  0, out  0:", "| 0| 1| 2| 3| 0| 2| 2| 3| 0| 1| 2| 3| 0| 1| 2|15|"),
			want: []string{"h3 maps SL 5 to VL 2 on 1 node; the rest of the fabric maps it to VL 1"}, ev: "lid 7 in 0 out 0: SL 5 -> VL 2"},
		{name: "one leaf row drops a planned SL", plan: "storage 1\n", editSL: editRow("4", "ports: in  1, out  5:", "| 0|15| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2|15|"),
			want: []string{
				"leaf1 maps storage (SL 1) to VL 1/15 on 1 node; the rest of the fabric maps it to VL 1",
				"leaf1 maps storage (SL 1) to VL 15 on 1 node: its packets are dropped",
			}, ev: "lid 4 in 1 out 5: SL 1 -> VL 15"},
		{name: "weight restored", plan: "bulk 3\n", editVA: func(s string) string {
			return strings.ReplaceAll(s, "WEIGHT: |0x0 |0x40|0x80|0x0 |", "WEIGHT: |0x0 |0x40|0x80|0x10|")
		}, want: nil},
		{name: "row of a down port ignored", editSL: func(s string) string {
			return editRow("4", "ports: in  3, out  5:", "| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7|")(s)
		}, want: nil},
		{name: "port 0 rows ignored", editSL: func(s string) string {
			return editRow("4", "ports: in  0, out  5:", "| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7| 7|")(s)
		}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := loadQoS(t, tt.editSL, tt.editVA)
			if len(f.SL2VL) == 0 || len(f.VLArb) == 0 {
				t.Fatalf("no QoS tables; gaps %+v", f.Gaps)
			}
			var p *QoSPlan
			if tt.plan != "" {
				p = mustQoSPlan(t, tt.plan)
			}
			fs := CheckQoS(f, p)
			var got []string
			for _, x := range fs {
				if x.ID != "fabric.qos_mismatch" || x.Severity != finding.Warning {
					t.Errorf("finding %s %s", x.ID, x.Severity)
				}
				got = append(got, x.Summary)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if tt.ev != "" {
				found := false
				for _, x := range fs {
					for _, e := range x.Evidence {
						found = found || strings.Contains(e.Value, tt.ev)
					}
				}
				if !found {
					t.Errorf("no evidence %q in %+v", tt.ev, fs)
				}
			}
		})
	}
}

// TestCheckRunsQoS: Check judges the QoS tables with Options.QoS.
func TestCheckRunsQoS(t *testing.T) {
	f := loadQoS(t, nil, nil)
	fs := Check(f, Options{QoS: mustQoSPlan(t, "storage 1 3\n")})
	n := 0
	for _, x := range fs {
		if x.ID == "fabric.qos_mismatch" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d qos findings, want 1: %+v", n, fs)
	}
}

func TestQoSGaps(t *testing.T) {
	f := loadQoS(t, func(string) string { return "garbage\n" }, nil)
	found := false
	for _, g := range f.Gaps {
		found = found || g.Source == "smpquery-sl2vl" && strings.Contains(g.Reason, "smpquery-sl2vl.txt line 1")
	}
	if !found || f.SL2VL != nil {
		t.Errorf("gaps %+v, rows %d", f.Gaps, len(f.SL2VL))
	}
	// The capture's failed runs (spine2) are a gap too.
	f = loadQoS(t, nil, nil)
	found = false
	for _, g := range f.Gaps {
		found = found || g.Source == "smpquery-vlarb" && g.Reason == "2 of 16 smpquery runs failed"
	}
	if !found {
		t.Errorf("gaps %+v", f.Gaps)
	}
}

func TestParseQoSPlanErrors(t *testing.T) {
	tests := []struct {
		in, want string
		line     int
	}{
		{"storage\n", "want `class SL [VL]`", 1},
		{"a 0\nb 15\n", "SL \"15\": want 0-14", 2},
		{"a 0 15\n", "VL \"15\": want 0-14", 1},
		{"a 0\na 1\n", "class a already planned on line 1", 2},
		{"a 0\n\nb 0\n", "SL 0 already used on line 1", 3},
		{"# nothing\n", "no classes", 0},
	}
	for _, tt := range tests {
		_, err := ParseQoSPlan(strings.NewReader(tt.in), "q.plan")
		var pe *ibdiags.ParseError
		if !errors.As(err, &pe) || pe.Line != tt.line || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "q.plan") {
			t.Errorf("%q: err %v, want line %d %q", tt.in, err, tt.line, tt.want)
		}
	}
	p := mustQoSPlan(t, "training 0 0 # GPUs\nmanagement 2\n")
	if len(p.Classes) != 2 || p.Classes[0] != (QoSClass{"training", 0, 0, 1}) || p.Classes[1] != (QoSClass{"management", 2, -1, 2}) {
		t.Errorf("plan %+v", p.Classes)
	}
}

func FuzzParseQoSPlan(f *testing.F) {
	f.Add("training 0 0\nstorage 1 1\nmanagement 2\n")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ParseQoSPlan(strings.NewReader(in), "fuzz")
		var pe *ibdiags.ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("not a ParseError: %v", err)
		}
		if err == nil {
			for _, c := range p.Classes {
				if c.SL < 0 || c.SL > 14 || c.VL < -1 || c.VL > 14 {
					t.Fatalf("bad class %+v", c)
				}
			}
		}
	})
}

// TestCreditLoopVLNote: the crafted ring's credit loop is qualified when
// the SL-to-VL tables spread SLs over two VLs, and left as it is when they
// map every SL to one VL or were not collected.
func TestCreditLoopVLNote(t *testing.T) {
	dir := filepath.Join("..", "routing", "testdata", "crafted", "credit-loop")
	table := func(row string) string {
		var b strings.Builder
		for lid := 5; lid <= 8; lid++ {
			fmt.Fprintf(&b, "# SL2VL table: Lid %d\n", lid)
			for in := 1; in <= 3; in++ {
				for out := 1; out <= 3; out++ {
					if in != out {
						fmt.Fprintf(&b, "ports: in %2d, out %2d: %s\n", in, out, row)
					}
				}
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, sl2vl string
		note        bool
	}{
		{"not collected", "", false},
		{"one VL", table("| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0|15|"), false},
		{"two VLs", table("| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0|15|"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := sourcefabric.ReadFrom(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tc.sl2vl != "" {
				raw.Outputs = append(raw.Outputs, &fabricmodel.Output{Name: "smpquery-sl2vl", Stdout: []byte(tc.sl2vl)})
			}
			f := Build(raw)
			fs, _, err := CheckRouting(f, routing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, x := range fs {
				if x.ID != "fabric.credit_loop" {
					continue
				}
				n++
				if got := strings.Contains(x.Summary, "map SLs to 2 VLs and the SL of each route"); got != tc.note {
					t.Errorf("note %v, want %v: %s", got, tc.note, x.Summary)
				}
			}
			if n != 1 {
				t.Errorf("%d credit loops, want 1", n)
			}
		})
	}
}

// TestCreditLoopPerVL: with the SL of every CA-to-CA path collected, the
// crafted ring is judged per VL. All two-hop routes go clockwise; putting
// host0→host2 on an SL the tables send on its own VL breaks the cycle, and
// tables that map that SL back onto VL 0 close it again.
func TestCreditLoopPerVL(t *testing.T) {
	dir := filepath.Join("..", "routing", "testdata", "crafted", "credit-loop")
	table := func(row string) string {
		var b strings.Builder
		for lid := 1; lid <= 4; lid++ {
			fmt.Fprintf(&b, "# SL2VL table: Lid %d\nports: in  0, out  0: %s\n", lid, row)
		}
		for lid := 5; lid <= 8; lid++ {
			fmt.Fprintf(&b, "# SL2VL table: Lid %d\n", lid)
			for in := 1; in <= 3; in++ {
				for out := 1; out <= 3; out++ {
					if in != out {
						fmt.Fprintf(&b, "ports: in %2d, out %2d: %s\n", in, out, row)
					}
				}
			}
		}
		return b.String()
	}
	paths := func(sl1 bool) string {
		var b strings.Builder
		for s := 1; s <= 4; s++ {
			for d := 1; d <= 4; d++ {
				if s == d {
					continue
				}
				sl := 0
				if sl1 && s == 1 && d == 3 {
					sl = 1
				}
				fmt.Fprintf(&b, "PathRecord dump:\n\t\tdlid....................%d\n\t\tslid....................%d\n\t\tsl......................0x%x\n", d, s, sl)
			}
		}
		return b.String()
	}
	twoVLs := table("| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0|15|")
	oneVL := table("| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0|15|")
	for _, tc := range []struct {
		name, sl2vl, paths string
		loops              int
		want               string
	}{
		{"every path on SL 0", twoVLs, paths(false), 1, "credit loop on VL 0"},
		{"host0→host2 on VL 1", twoVLs, paths(true), 0, ""},
		{"SL 1 mapped back to VL 0", oneVL, paths(true), 1, "over VLs [0]"},
		{"no tables for the switches: hops keep the SL as VL", "# SL2VL table: Lid 1\nports: in  0, out  0: | 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0|15|\n", paths(true), 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := sourcefabric.ReadFrom(dir)
			if err != nil {
				t.Fatal(err)
			}
			raw.Outputs = append(raw.Outputs,
				&fabricmodel.Output{Name: "smpquery-sl2vl", Stdout: []byte(tc.sl2vl)},
				&fabricmodel.Output{Name: "saquery-path-sl", Stdout: []byte(tc.paths)})
			f := Build(raw)
			if len(f.PathSLs) != 12 {
				t.Fatalf("%d path SLs, gaps %+v", len(f.PathSLs), f.Gaps)
			}
			fs, _, err := CheckRouting(f, routing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, x := range fs {
				if x.ID != "fabric.credit_loop" {
					continue
				}
				n++
				if !strings.Contains(x.Summary, tc.want) || !strings.Contains(x.Summary, "judged per VL: 12 CA-to-CA paths") || strings.Contains(x.Summary, "is not collected") {
					t.Errorf("summary %s", x.Summary)
				}
			}
			if n != tc.loops {
				t.Errorf("%d credit loops, want %d: %+v", n, tc.loops, fs)
			}
		})
	}
}
