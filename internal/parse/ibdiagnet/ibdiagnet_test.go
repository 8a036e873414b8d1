package ibdiagnet

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) *Report {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Parse(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func levels(r *Report) (i, w, e int) {
	for _, m := range r.Messages {
		switch m.Level {
		case Info:
			i++
		case Warning:
			w++
		case Error:
			e++
		}
	}
	return
}

func TestSamples(t *testing.T) {
	tests := []struct {
		file                  string
		major                 int
		version               string
		lines                 int
		info, warn, errs      int
		stages                int
		stageErrs, stageWarns int
		fabric, sms           int
		links                 int
		discovery             Discovery
		skipped               int
	}{
		{
			file: "ibdiagnet-archwiki-ibdiagnet1-ddr.txt", major: 1, version: "/usr/lib/ibdiagnet1.5.7", lines: 67,
			info: 11, warn: 2, errs: 0, stages: 8, stageErrs: 0, stageWarns: 1,
			discovery: Discovery{Line: 6, Nodes: 2, Switches: 0, CAs: 2},
		},
		{
			// The prose line in front is skipped; the wrapped warning is one
			// message.
			file: "ibdiagnet-ompi-users-2009-ipoib-rate.txt", major: 1, lines: 8, skipped: 1,
			info: 1, warn: 1,
		},
		{
			// Every line indented by 4: the prompt line is skipped, the rest
			// reads as the unindented capture.
			file: "ibdiagnet-archwiki-zh-indented.txt", major: 1, version: "/usr/lib/ibdiagnet1.5.7", lines: 69, skipped: 1,
			info: 11, warn: 2, stages: 8, stageWarns: 1,
			discovery: Discovery{Line: 8, Nodes: 2, Switches: 0, CAs: 2},
		},
		{
			// The note's markdown around the table is skipped line by line.
			file: "ibdiagnet1-table-rdma-note-zh.md", major: 1, lines: 76, skipped: 46,
			info: 0, stages: 8, stageErrs: 0, stageWarns: 6,
		},
		{
			file: "ibdiagnet-ydanzig-logparsertask.txt", major: 2, version: "IBDIAGNET 2.7.0.MLNX20210617.4883fca", lines: 195,
			info: 80, warn: 5, errs: 3, stages: 11, stageErrs: 15, stageWarns: 19, fabric: 12, sms: 2, links: 1,
			discovery: Discovery{Line: 15, Nodes: 42, Switches: 6, CAs: 36},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r := parseFile(t, tt.file)
			if r.Major != tt.major || r.Version != tt.version {
				t.Errorf("major %d version %q, want %d %q", r.Major, r.Version, tt.major, tt.version)
			}
			if r.Lines != tt.lines || r.Accounted() != r.Lines {
				t.Errorf("lines %d accounted %d, want %d", r.Lines, r.Accounted(), tt.lines)
			}
			if len(r.Skipped) != tt.skipped {
				t.Errorf("skipped %d lines, want %d: %+v", len(r.Skipped), tt.skipped, r.Skipped)
			}
			i, w, e := levels(r)
			if (tt.info != 0 && i != tt.info) || w != tt.warn || e != tt.errs {
				t.Errorf("messages I/W/E %d/%d/%d, want %d/%d/%d", i, w, e, tt.info, tt.warn, tt.errs)
			}
			se, sw := 0, 0
			for _, s := range r.Stages {
				se += s.Errors
				sw += s.Warnings
			}
			if len(r.Stages) != tt.stages || se != tt.stageErrs || sw != tt.stageWarns {
				t.Errorf("stages %d (errors %d, warnings %d), want %d (%d, %d)", len(r.Stages), se, sw, tt.stages, tt.stageErrs, tt.stageWarns)
			}
			if len(r.Fabric) != tt.fabric || len(r.SMs) != tt.sms || len(r.Links) != tt.links {
				t.Errorf("fabric fields %d, SMs %d, links %d; want %d %d %d", len(r.Fabric), len(r.SMs), len(r.Links), tt.fabric, tt.sms, tt.links)
			}
			if (r.Discovery == nil) != (tt.discovery == Discovery{}) || r.Discovery != nil && *r.Discovery != tt.discovery {
				t.Errorf("discovery %+v, want %+v", r.Discovery, tt.discovery)
			}
		})
	}
}

// The 2.x sample in detail: stage of each message, the table's column
// order (Warnings before Errors), the fabric summary and the SM lines, the
// link line's two ends.
func TestSampleV2Details(t *testing.T) {
	r := parseFile(t, "ibdiagnet-ydanzig-logparsertask.txt")
	want := map[string]StageCount{
		"Discovery":            {Line: 171, Stage: "Discovery", Warnings: 3},
		"Speed / Width checks": {Line: 177, Stage: "Speed / Width checks", Errors: 15},
		"Nodes Information":    {Line: 176, Stage: "Nodes Information", Warnings: 16},
	}
	for _, s := range r.Stages {
		if w, ok := want[s.Stage]; ok && s != w {
			t.Errorf("stage row %+v, want %+v", s, w)
		}
	}
	if f, ok := r.FabricValue("Total Nodes"); !ok || f.Value != "42" || f.Line != 151 {
		t.Errorf("Total Nodes %+v", f)
	}
	if r.FabricLine != 149 {
		t.Errorf("Fabric Summary heading at line %d, want 149", r.FabricLine)
	}
	m := r.SMs[0]
	if !m.Master || m.None || m.LID != 10 || m.GUID != 0x98039b0300952b30 || m.Priority != 15 || m.NodeType != "CA" || m.NodeDesc != "smg-ib-svr43 mlx5_0" || m.Port != 1 {
		t.Errorf("master SM %+v", m)
	}
	if s := r.SMs[1]; s.Master || !s.None {
		t.Errorf("standby SM %+v", s)
	}
	l := r.Links[0]
	if l.Line != 101 || l.Level != Error || l.Stage != "Speed / Width checks" ||
		l.A.Name != "smg-ib-sw041/U1" || l.A.Port != 24 || l.B.NodeGUID != 0x900a840300308e40 || l.B.Port != 49 ||
		!strings.HasPrefix(l.Reason, "Unexpected width, actual link width is 2x") {
		t.Errorf("link %+v", l)
	}
	for _, msg := range r.Messages {
		if msg.Line == 27 && (msg.Stage != "Discovery" || msg.Level != Warning || msg.Text != "S043f720300899a00/N043f720300899a08 - No response for MAD VSGeneralInfo") {
			t.Errorf("line 27: %+v", msg)
		}
	}
}

// The wrapped 1.x warning keeps its continuation line.
func TestWrappedWarning(t *testing.T) {
	r := parseFile(t, "ibdiagnet-ompi-users-2009-ipoib-rate.txt")
	want := Message{Line: 7, Level: Warning, Stage: "IPoIB Subnets Check", Text: "Port localhost/P1 lid=0x00e2 guid=0x001e0bffff4ced75 dev=25218 can not join due to rate:2.5Gbps < group:10Gbps"}
	if len(r.Messages) != 2 || r.Messages[1] != want {
		t.Errorf("messages %+v, want %+v", r.Messages, want)
	}
	if len(r.Skipped) != 1 || r.Skipped[0].Line != 1 {
		t.Errorf("skipped %+v", r.Skipped)
	}
}

// The 1.x sample: stage names come from the "-I-----" framed headings, the
// table is Errors-then-Warnings, and the indented line continues its
// warning.
func TestSampleV1Details(t *testing.T) {
	r := parseFile(t, "ibdiagnet-archwiki-ibdiagnet1-ddr.txt")
	var got []string
	for _, m := range r.Messages {
		if m.Level == Warning {
			got = append(got, m.Stage+"|"+m.Text)
		}
	}
	want := []string{
		"|Topology file is not specified. Reports regarding cluster links will use direct routes.",
		"IPoIB Subnets Check|Suboptimal rate for group. Lowest member rate:20Gbps > group-rate:10Gbps",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	last := r.Stages[len(r.Stages)-1]
	if last != (StageCount{Line: 62, Stage: "IPoIB Subnets Check", Warnings: 1}) {
		t.Errorf("last stage row %+v", last)
	}
	for _, m := range r.Messages {
		if m.Text == "No illegal PM counters values were found" && m.Stage != "PM Counters Info" {
			t.Errorf("PM line under stage %q", m.Stage)
		}
	}
}

// Crafted inputs built from real lines (see testdata/README.md): the PM
// value block, growth during the run, a speed link line, a .lst line.
func TestStructuredLines(t *testing.T) {
	in := strings.Join([]string{
		"---------------------------------------------",
		"Port Counters",
		"-E- Ports counters value Check finished with errors",
		"-E- lid=0x0008 dev=51000 Se468a303005527c3/Ne468a303005527c0/P27",
		"        Performance Monitor counter     : Value",
		"        port_rcv_switch_relay_errors    : 65535 (overflow)",
		"",
		`-E- Se41d2d03004bcfb0/Ne41d2d03004bcfb0/P20 - "port_rcv_remote_physical_errors" increased during the run (difference value=1,difference allowed threshold=1)`,
		`-E- r9i1n24/U1/P1 - "port_rcv_remote_physical_errors" increased during the run (difference value=117,difference allowed threshold=1)`,
		"",
		"---------------------------------------------",
		"Speed / Width checks",
		`-E- Link: S0002c90300688830/N0002c90300688830/P20<-->S0002c90300165e63/N0002c90300165e60/P1 - Unexpected actual link speed 2.5 (enable_speed1="2.5 or 5 or 10", enable_speed2="2.5 or 5 or 10" therefore final speed should be 10)`,
		"{ CA Ports:02 SystemGUID:0002c90300165e63 NodeGUID:0002c90300165e60 PortGUID:0002c90300165e61 VenID:000002c9 DevID:1003 Rev:00000000  LID:0005 PN:01 } { SW Ports:24 SystemGUID:0002c90300688830 NodeGUID:0002c90300688830 PortGUID:0002c90300688830 VenID:000002c9 DevID:c738 Rev:000000a1  LID:0002 PN:14 } PHY=4x LOG=ACT SPD=2.5",
	}, "\n")
	r, err := Parse(strings.NewReader(in), "paste.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skipped) != 0 || r.Accounted() != r.Lines {
		t.Fatalf("skipped %+v, accounted %d of %d", r.Skipped, r.Accounted(), r.Lines)
	}
	wantC := []CounterIssue{
		{Line: 6, Head: 4, Level: Error, Stage: "Port Counters", Port: PortRef{Raw: "Se468a303005527c3/Ne468a303005527c0/P27", NodeGUID: 0xe468a303005527c0, Port: 27}, LID: 8, Counter: "port_rcv_switch_relay_errors", Value: 65535, Overflow: true},
		{Line: 8, Level: Error, Stage: "Port Counters", Port: PortRef{Raw: "Se41d2d03004bcfb0/Ne41d2d03004bcfb0/P20", NodeGUID: 0xe41d2d03004bcfb0, Port: 20}, Counter: "port_rcv_remote_physical_errors", Value: 1, During: true, Threshold: 1},
		{Line: 9, Level: Error, Stage: "Port Counters", Port: PortRef{Raw: "r9i1n24/U1/P1", Name: "r9i1n24/U1", Port: 1}, Counter: "port_rcv_remote_physical_errors", Value: 117, During: true, Threshold: 1},
	}
	if len(r.Counters) != len(wantC) {
		t.Fatalf("counters %+v", r.Counters)
	}
	for i := range wantC {
		if r.Counters[i] != wantC[i] {
			t.Errorf("counter %d: %+v, want %+v", i, r.Counters[i], wantC[i])
		}
	}
	if len(r.Links) != 1 || r.Links[0].A.NodeGUID != 0x0002c90300688830 || r.Links[0].A.Port != 20 || r.Links[0].B.NodeGUID != 0x0002c90300165e60 || r.Links[0].B.Port != 1 {
		t.Errorf("links %+v", r.Links)
	}
	want := LSTLink{Line: 14, A: LSTEnd{Type: "CA", NodeGUID: 0x0002c90300165e60, PortGUID: 0x0002c90300165e61, LID: 5, Port: 1},
		B: LSTEnd{Type: "SW", NodeGUID: 0x0002c90300688830, PortGUID: 0x0002c90300688830, LID: 2, Port: 20}, Width: "4x", State: "ACT", Speed: "2.5"}
	if len(r.LST) != 1 || r.LST[0] != want {
		t.Errorf("lst %+v, want %+v", r.LST, want)
	}
}

// db_csv sections: the section names and the CABLE_INFO header are the
// ones a public ibdiagnet2.db_csv reader expects; no real db_csv excerpt
// was found, so this is a structure-only input with placeholder values.
func TestCSVSections(t *testing.T) {
	in := "START_CABLE_INFO\nPortGuid,PortNum,SN,PN,LengthDesc\n0x0002c90300165e61,1,SN1,PN1,\"3 m\"\n0x0002c90300165e61,2,SN2\nEND_CABLE_INFO\n\nSTART_PORTS\nNodeGuid,PortNum\n-I- Lids Check finished successfully\n"
	r, err := Parse(strings.NewReader(in), "db.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tables) != 2 {
		t.Fatalf("tables %+v", r.Tables)
	}
	cab := r.Tables[0]
	if cab.Name != "CABLE_INFO" || !cab.Closed || len(cab.Header) != 5 || len(cab.Rows) != 1 || cab.Rows[0].Line != 3 || cab.Rows[0].Fields[4] != "3 m" {
		t.Errorf("cable table %+v", cab)
	}
	if r.Tables[1].Closed || len(r.Tables[1].Rows) != 0 || len(r.Messages) != 1 || r.Messages[0].Line != 9 {
		t.Errorf("ports table %+v", r.Tables[1])
	}
	if len(r.Skipped) != 1 || r.Skipped[0].Line != 4 || !strings.Contains(r.Skipped[0].Reason, "3 fields, its header 5") {
		t.Errorf("skipped %+v", r.Skipped)
	}
	if r.Accounted() != r.Lines {
		t.Errorf("accounted %d of %d", r.Accounted(), r.Lines)
	}
}

// A quoted reply: the 2.x sample's Speed / Width stage with "> " in front
// of every line (the quoting is added here; the lines are real) reads as
// the unquoted stage.
func TestQuotedLines(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "ibdiagnet-ydanzig-logparsertask.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")[93:101]
	for i := range ls {
		ls[i] = "> " + ls[i]
	}
	r, err := Parse(strings.NewReader(strings.Join(ls, "\n")), "reply.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skipped) != 0 || len(r.Links) != 1 || r.Links[0].Stage != "Speed / Width checks" || r.Links[0].Line != 8 {
		t.Errorf("skipped %+v links %+v", r.Skipped, r.Links)
	}
	if !Detect(strings.Join(ls, "\n")) {
		t.Error("quoted stage not detected")
	}
	if got := Unquote("> > -I- x"); got != "-I- x" {
		t.Errorf("Unquote %q", got)
	}
}

func TestSkippedLinesNamed(t *testing.T) {
	in := "-I- Discovering ... 2 nodes (0 Switches & 2 CA-s) discovered.\nsomething else\n{ CA broken } PHY=4x\n"
	r, err := Parse(strings.NewReader(in), "t.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skipped) != 2 || r.Skipped[0].Line != 2 || r.Skipped[1].Line != 3 || !strings.Contains(r.Skipped[1].Reason, ".lst") {
		t.Errorf("skipped %+v", r.Skipped)
	}
	if r.Parsed() != 1 {
		t.Errorf("parsed %d, want 1", r.Parsed())
	}
}

func TestErrors(t *testing.T) {
	_, err := Parse(strings.NewReader("hello\nworld\n"), "notes.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrNoData) || pe.Source != "notes.txt" {
		t.Errorf("no data: %v", err)
	}
	long := "-I- x\n" + strings.Repeat("a", maxLine+10) + "\n"
	_, err = Parse(strings.NewReader(long), "big.txt")
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Source != "big.txt" {
		t.Errorf("long line: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"ibdiagnet-archwiki-ibdiagnet1-ddr.txt", "ibdiagnet-ydanzig-logparsertask.txt", "ibdiagnet1-table-rdma-note-zh.md",
		"ibdiagnet-ompi-users-2009-ipoib-rate.txt", "ibdiagnet-archwiki-zh-indented.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("START_X\na,b\n1,2\n1\nEND_X\n-E- lid=0x1 dev=1 S1/N2/P3\nc : 4 (overflow)\n")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Source != "fuzz" {
				t.Fatalf("error without source: %v", err)
			}
			return
		}
		if r.Accounted() != r.Lines {
			t.Fatalf("accounted %d of %d lines", r.Accounted(), r.Lines)
		}
		if r.Parsed()+r.Blank+len(r.Skipped) != r.Lines {
			t.Fatalf("parsed %d + blank %d + skipped %d != %d", r.Parsed(), r.Blank, len(r.Skipped), r.Lines)
		}
		for _, s := range r.Skipped {
			if s.Line < 1 || s.Line > r.Lines {
				t.Fatalf("skip line %d of %d", s.Line, r.Lines)
			}
		}
		for _, tb := range r.Tables {
			for _, row := range tb.Rows {
				if len(row.Fields) != len(tb.Header) {
					t.Fatalf("row of %d fields under a header of %d", len(row.Fields), len(tb.Header))
				}
			}
		}
		for _, s := range r.Stages {
			if s.Errors < 0 || s.Warnings < 0 {
				t.Fatalf("negative count %+v", s)
			}
		}
	})
}

// TestLinkMessageStartsOutput: a link check's message quoted alone (a
// manual's example, a ticket) starts ibdiagnet output, together with the
// messages right above it; other dashed lines do not.
func TestLinkMessageStartsOutput(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"-E- Link: Sec0d9a0300246e30/Nec0d9a0300246e30/P19<-->switch-004/U1/P20 - Unexpected actual link speed 25", true},
		{"-W- Link: a/P1<-->b/P2 - Unexpected width", true},
		{"-I- Link: a/P1<-->b/P2 - fine", false},
		{"-E- Links Speed Check finished with errors", false},
		{"- Link: a<-->b - x", false},
	} {
		if ok, _ := Header(tc.line, ""); ok != tc.want {
			t.Errorf("Header(%q) = %v, want %v", tc.line, ok, tc.want)
		}
	}
	ls := []string{"Speed / Width checks", "-I- Link Speed Check (Compare to supported link speed)", "-E- Links Speed Check finished with errors", "", "-E- Link: a/P1<-->b/P2 - Unexpected actual link speed 25"}
	if got := MessagesAbove(ls, 4); got != 3 {
		t.Errorf("MessagesAbove = %d, want 3 (the two messages and the blank line between)", got)
	}
	if got := MessagesAbove([]string{"prose", "", "-E- Link: a<-->b - x"}, 2); got != 0 {
		t.Errorf("MessagesAbove over prose = %d, want 0", got)
	}
}
