package ibdiagnet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	diag "github.com/ibdoctor/ibdoctor/internal/parse/ibdiagnet"
)

const testdata = "../../parse/ibdiagnet/testdata"

func sample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lines returns lines from..to (1-based, inclusive) of a sample, so a
// crafted case is built from real lines.
func lines(t *testing.T, name string, from, to int) string {
	t.Helper()
	ls := strings.Split(strings.ReplaceAll(sample(t, name), "\r\n", "\n"), "\n")
	return strings.Join(ls[from-1:to], "\n") + "\n"
}

func check(t *testing.T, in string) Result {
	t.Helper()
	r, err := diag.Parse(strings.NewReader(in), "paste.txt")
	if err != nil {
		t.Fatal(err)
	}
	return Check(r)
}

const v2 = "ibdiagnet-ydanzig-logparsertask.txt"

// Real lines quoted in public sources (testdata/README.md of the parser).
const (
	// PM value block: a storage agent's IB health check comment.
	pmBlock = "-E- Ports counters value Check finished with errors\n" +
		"-E- lid=0x0008 dev=51000 Se468a303005527c3/Ne468a303005527c0/P27\n" +
		"        Performance Monitor counter     : Value\n" +
		"        port_rcv_switch_relay_errors    : 65535 (overflow)\n"
	// Growth during the run: an HPC fabric checker's comments.
	duringA = `-E- Se41d2d03004bcfb0/Ne41d2d03004bcfb0/P20 - "port_rcv_remote_physical_errors" increased during the run (difference value=1,difference allowed threshold=1)` + "\n"
	duringB = `-E- r9i1n24/U1/P1 - "port_rcv_remote_physical_errors" increased during the run (difference value=117,difference allowed threshold=1)` + "\n"
	// A link-downed growth, as an ibdiagnet2.log-based health report on
	// GitHub quotes it (split-port name "P1/3/1").
	linkDowned = `-E- Sfc6a1c03009be0c0/Nfc6a1c03009be0c0/P1/3/1 - "link_down_counter" increased during the run (difference value=1,difference allowed threshold=1)` + "\n"
	// A speed line of a public note (markdown escapes removed).
	speedLine = `-E- Link: S0002c90300688830/N0002c90300688830/P20<-->S0002c90300165e63/N0002c90300165e60/P1 - Unexpected actual link speed 2.5 (enable_speed1="2.5 or 5 or 10", enable_speed2="2.5 or 5 or 10" therefore final speed should be 10)` + "\n"
	// A .lst link line of the same note.
	lstLine = "{ CA Ports:02 SystemGUID:0002c90300165e63 NodeGUID:0002c90300165e60 PortGUID:0002c90300165e61 VenID:000002c9 DevID:1003 Rev:00000000  LID:0005 PN:01 } { SW Ports:24 SystemGUID:0002c90300688830 NodeGUID:0002c90300688830 PortGUID:0002c90300688830 VenID:000002c9 DevID:c738 Rev:000000a1  LID:0002 PN:14 } PHY=4x LOG=ACT SPD=2.5\n"
)

func ids(fs []finding.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+"/"+string(f.Severity))
	}
	return strings.Join(out, " ")
}

func TestSamples(t *testing.T) {
	tests := []struct {
		file   string
		want   string // IDs/severities, in order
		judged string
		notes  []string // substrings, one note each
	}{
		{
			file:   "ibdiagnet-archwiki-ibdiagnet1-ddr.txt",
			want:   "",
			judged: "2 nodes (0 switches, 2 CAs); 8 stages: 0 errors, 1 warning",
			notes:  []string{"ibdiagnet-archwiki-ibdiagnet1-ddr.txt:2: ibdiagnet warnings in (before the first stage): no topology file", "ibdiagnet-archwiki-ibdiagnet1-ddr.txt:46: ibdiagnet warnings in IPoIB Subnets Check: an IPoIB multicast group's rate"},
		},
		{
			file:   "ibdiagnet-archwiki-zh-indented.txt",
			want:   "",
			judged: "2 nodes (0 switches, 2 CAs); 8 stages: 0 errors, 1 warning",
			notes:  []string{"ibdiagnet-archwiki-zh-indented.txt:4: ibdiagnet warnings in (before the first stage): no topology file", "ibdiagnet-archwiki-zh-indented.txt:48: ibdiagnet warnings in IPoIB Subnets Check: an IPoIB multicast group's rate"},
		},
		{
			file:   "ibdiagnet-ompi-users-2009-ipoib-rate.txt",
			want:   "fabric.link_degraded/critical",
			judged: "2 ibdiagnet messages",
		},
		{
			file:   "ibdiagnet1-table-rdma-note-zh.md",
			want:   "fabric.link_degraded/warning",
			judged: "8 stages: 0 errors, 6 warnings",
			notes:  []string{"ibdiagnet1-table-rdma-note-zh.md:75: 1 ibdiagnet warning in IPoIB Subnets Check, none printed in this paste: not judged (they are in ibdiagnet.log)"},
		},
		{
			file:   v2,
			want:   "fabric.link_degraded/critical fabric.link_degraded/critical",
			judged: "42 nodes (6 switches, 31 CAs, 5 aggregation nodes), 58 links; 11 stages: 15 errors, 19 warnings",
			notes: []string{"ibdiagnet-ydanzig-logparsertask.txt:26,27,28,29: ibdiagnet warnings in Discovery: the vendor-specific",
				"ibdiagnet-ydanzig-logparsertask.txt:92: ibdiagnet warnings in Nodes Information (16 counted in the stage table"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := diag.Parse(strings.NewReader(sample(t, tt.file)), tt.file)
			if err != nil {
				t.Fatal(err)
			}
			res := Check(r)
			if got := ids(res.Findings); got != tt.want {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
			if res.Judged != tt.judged {
				t.Errorf("judged %q, want %q", res.Judged, tt.judged)
			}
			if len(res.Notes) != len(tt.notes) {
				t.Fatalf("notes %q", res.Notes)
			}
			for i, n := range tt.notes {
				if !strings.HasPrefix(res.Notes[i], n) {
					t.Errorf("note %d %q, want prefix %q", i, res.Notes[i], n)
				}
			}
		})
	}
}

// A port that cannot join the IPoIB group because its link is slower than
// the group: the port is named, its rate and the group's are in the
// summary.
func TestIPoIBRateBelowGroup(t *testing.T) {
	const name = "ibdiagnet-ompi-users-2009-ipoib-rate.txt"
	r, err := diag.Parse(strings.NewReader(sample(t, name)), name)
	if err != nil {
		t.Fatal(err)
	}
	res := Check(r)
	if len(res.Findings) != 1 {
		t.Fatalf("findings %+v", res.Findings)
	}
	f := res.Findings[0]
	if f.Subject.NodeDesc != "localhost" || f.Subject.Port != 1 || !strings.Contains(f.Summary, "localhost/P1 at 2.5Gbps, the IPoIB group (and the fabric) at 10Gbps") ||
		len(f.Evidence) != 1 || f.Evidence[0].Source != name+":7" {
		t.Errorf("finding %+v", f)
	}
	// The 1.x sample's "Suboptimal rate for group" (members faster than the
	// group) is not a fault: no finding.
	if res := check(t, sample(t, "ibdiagnet-archwiki-ibdiagnet1-ddr.txt")); len(res.Findings) != 0 {
		t.Errorf("suboptimal group rate judged: %+v", res.Findings)
	}
}

// The 2.x sample's width finding names the link and its line; the speed
// check printed no link, so its finding has no subject and says where the
// rest is.
func TestSampleV2Findings(t *testing.T) {
	r, err := diag.Parse(strings.NewReader(sample(t, v2)), v2)
	if err != nil {
		t.Fatal(err)
	}
	res := Check(r)
	var width, speed *finding.Finding
	for i := range res.Findings {
		switch {
		case strings.Contains(res.Findings[i].Summary, "Links Width Check"):
			width = &res.Findings[i]
		case strings.Contains(res.Findings[i].Summary, "Links Speed Check"):
			speed = &res.Findings[i]
		}
	}
	if width == nil || speed == nil {
		t.Fatalf("findings %+v", res.Findings)
	}
	s := width.Subject
	if s.NodeDesc != "smg-ib-sw041/U1" || s.Port != 24 || s.Peer == nil || s.Peer.NodeGUID != "0x900a840300308e40" || s.Peer.Port != 49 {
		t.Errorf("width subject %+v peer %+v", s, s.Peer)
	}
	if !strings.Contains(width.Summary, "smg-ib-sw041/U1/P24 <-> 0x900a840300308e40/P49 at 2x, should be 4x") ||
		!strings.Contains(width.Summary, "ibdiagnet counted 15 errors in Speed / Width checks, 1 printed here") {
		t.Errorf("width summary %q", width.Summary)
	}
	wantEv := []string{v2 + ":100", v2 + ":101", v2 + ":177"}
	var got []string
	for _, e := range width.Evidence {
		got = append(got, e.Source)
	}
	if strings.Join(got, " ") != strings.Join(wantEv, " ") {
		t.Errorf("width evidence %v, want %v", got, wantEv)
	}
	if speed.Subject.NodeGUID != "" || speed.Subject.NodeDesc != "" || !strings.Contains(speed.Summary, "0 printed here") {
		t.Errorf("speed finding %+v", speed)
	}
}

// Every rule, fire and no-fire. Inputs are real lines (the constants
// above and lines of the samples); where a case changes a real line to
// make a rule fire, the case says how.
func TestRules(t *testing.T) {
	stage := func(name string) string { return "---------------------------------------------\n" + name + "\n" }
	tests := []struct {
		name    string
		in      string
		want    string
		subject string // NodeGUID/NodeDesc of the first finding, "" to skip
		port    int
		summary string // substring of the first finding's summary
		evN     int    // evidence lines of the first finding (0: skip)
	}{
		{name: "clean 2.x checks: no finding", in: lines(t, v2, 47, 79), want: ""},
		{name: "width below capability", in: lines(t, v2, 95, 101), want: "fabric.link_degraded/critical fabric.link_degraded/critical"},
		{name: "speed below capability names both ends", in: stage("Speed / Width checks") + speedLine, want: "fabric.link_degraded/critical",
			subject: "0x0002c90300688830", port: 20, summary: "at 2.5, should be 10", evN: 1},
		// The fabric checker's quoted line: no "should be" part.
		{name: "speed line without the expected speed", in: stage("Speed / Width checks") + "-E- Link: S7cfe900300a51030/N7cfe900300a51030/P28<-->ime2/U1/P1 - Unexpected actual link speed 14\n",
			want: "fabric.link_degraded/critical", subject: "0x7cfe900300a51030", port: 28, summary: "0x7cfe900300a51030/P28 <-> ime2/U1/P1 at 14", evN: 1},
		{name: "PM value over threshold, saturated", in: stage("Port Counters") + pmBlock, want: "fabric.link_errors/warning",
			subject: "0xe468a303005527c0", port: 27, summary: "port_rcv_switch_relay_errors 65535", evN: 2},
		{name: "growth during the run: two ports, one finding", in: stage("Port Counters") + duringA + duringB, want: "fabric.link_errors/warning",
			summary: "grew while ibdiagnet ran (2)", evN: 2},
		{name: "link downed during the run is critical", in: stage("Port Counters") + linkDowned, want: "fabric.link_errors/critical",
			subject: "0xfc6a1c03009be0c0", port: 0, summary: "link_down_counter +1"},
		// duringA with its counter renamed port_xmit_wait: congestion, not an error.
		{name: "xmit wait growth is congestion", in: stage("Port Counters") + strings.Replace(duringA, "port_rcv_remote_physical_errors", "port_xmit_wait", 1),
			want: "fabric.congestion/warning", port: 20},
		{name: "clean PM check: no finding", in: lines(t, v2, 59, 76), want: ""},
		{name: ".lst link Active: no finding", in: lstLine, want: ""},
		// The real .lst line with LOG=ACT changed to LOG=INI.
		{name: ".lst link not Active", in: strings.Replace(lstLine, "LOG=ACT", "LOG=INI", 1), want: "fabric.link_down/critical",
			subject: "0x0002c90300165e60", port: 1, summary: "INI"},
		// The real "Duplicated GUIDs detection finished successfully" with
		// the "-E- … finished with errors" ending ibdiagnet gives failed
		// checks.
		{name: "duplicate GUIDs check failed", in: stage("Discovery") + "-E- Duplicated GUIDs detection finished with errors\n", want: "fabric.duplicate_guid/critical"},
		{name: "duplicate GUIDs check passed", in: stage("Discovery") + "-I- Duplicated GUIDs detection finished successfully\n", want: ""},
		// The wording of this line is not from a paste: the rule takes any
		// -E- line that names a duplicated LID; the port is a real one.
		{name: "duplicate LID line", in: stage("Lids Check") + "-E- Lids Check finished with errors\n-E- Duplicated LID 0x0008 on Se468a303005527c3/Ne468a303005527c0/P27\n",
			want: "fabric.duplicate_lid/critical", subject: "0xe468a303005527c0", port: 27, evN: 2},
		{name: "Lids Check failed without details: stage error", in: stage("Lids Check") + "-E- Lids Check finished with errors\n", want: "fabric.ibdiagnet_error/warning",
			summary: "errors in Lids Check"},
		// The real Master SM line twice, the second with another node's
		// GUID (the sample's switch 0x043f720300899a08).
		{name: "two master SMs", in: lines(t, v2, 149, 166) + strings.Replace(lines(t, v2, 165, 165), "0x98039b0300952b30", "0x043f720300899a08", 1),
			want: "fabric.sm_multiple_masters/critical", summary: "more than one master subnet manager (2)", evN: 2},
		{name: "one master SM: no finding", in: lines(t, v2, 149, 166), want: ""},
		// The real "Standby SM : No Standby SM" line said of the master.
		{name: "no master SM", in: lines(t, v2, 149, 164) + "Master SM : No Master SM\n", want: "fabric.sm_missing/critical"},
		// Real status lines an HPC checker lists among ibdiagnet's.
		{name: "stage without a specific check", in: stage("Partition Keys") + "-E- Partition Keys finished with errors\n", want: "fabric.ibdiagnet_error/warning", evN: 1},
		// The sample's stage table with Partition Keys' errors set to 2.
		{name: "stage table errors without lines", in: strings.Replace(lines(t, v2, 169, 181), "-I- Partition Keys                      0          0", "-I- Partition Keys                      0          2", 1) +
			"\n", want: "fabric.ibdiagnet_error/warning fabric.ibdiagnet_error/warning", summary: "errors in Speed / Width checks: 15 errors counted, none printed"},
		{name: "warnings that are not faults", in: lines(t, v2, 25, 29), want: ""},
		// ibdiagnet 1.x sections list only what is wrong. The 1.x sample
		// with its "No bad Links" line replaced by a warning (wording not
		// from a paste; the rule takes any -W-/-E- line of the section).
		{name: "1.x link state section lists a link", in: strings.Replace(sample(t, "ibdiagnet-archwiki-ibdiagnet1-ddr.txt"), "-I- No bad Links (with logical state = INIT) were found",
			"-W- Link with logical state INIT: 0x0002c90300165e61/P1", 1), want: "fabric.link_down/critical", subject: "0x0002c90300165e61"},
		{name: "1.x PM section lists a counter", in: strings.Replace(sample(t, "ibdiagnet-archwiki-ibdiagnet1-ddr.txt"), "-I- No illegal PM counters values were found",
			"-W- 0x0002c90300165e61/P1 symbol_error_counter 12", 1), want: "fabric.link_errors/warning"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := check(t, tt.in)
			if got := ids(res.Findings); got != tt.want {
				t.Fatalf("findings %q, want %q\n%+v", got, tt.want, res.Findings)
			}
			if len(res.Findings) == 0 {
				return
			}
			f := res.Findings[0]
			if tt.subject != "" && f.Subject.NodeGUID != tt.subject && f.Subject.NodeDesc != tt.subject {
				t.Errorf("subject %+v, want %s", f.Subject, tt.subject)
			}
			if tt.subject != "" && f.Subject.Port != tt.port {
				t.Errorf("port %d, want %d", f.Subject.Port, tt.port)
			}
			if !strings.Contains(f.Summary, tt.summary) {
				t.Errorf("summary %q, want %q in it", f.Summary, tt.summary)
			}
			if tt.evN > 0 && len(f.Evidence) != tt.evN {
				t.Errorf("evidence %+v, want %d lines", f.Evidence, tt.evN)
			}
			for _, e := range f.Evidence {
				if !strings.HasPrefix(e.Source, "paste.txt:") {
					t.Errorf("evidence source %q does not name the line", e.Source)
				}
			}
		})
	}
}

// Hundreds of ports with errors from one check stay one finding.
func TestOneFindingPerCheck(t *testing.T) {
	var b strings.Builder
	b.WriteString("---------------------------------------------\nPort Counters\n")
	for i := 0; i < 300; i++ {
		b.WriteString(strings.Replace(duringB, "r9i1n24/U1/P1", "r9i1n24/U1/P"+string(rune('1'+i%9)), 1))
	}
	res := check(t, b.String())
	if len(res.Findings) != 1 || len(res.Findings[0].Evidence) != 300 || res.Findings[0].Subject.Port != 0 {
		t.Fatalf("findings %d, evidence %d, subject %+v", len(res.Findings), len(res.Findings[0].Evidence), res.Findings[0].Subject)
	}
	if !strings.Contains(res.Findings[0].Summary, "and 297 more") {
		t.Errorf("summary %q", res.Findings[0].Summary)
	}
}

// GUIDs are written as 0x and 16 lowercase hex digits.
func TestGUIDForm(t *testing.T) {
	res := check(t, "---------------------------------------------\nPort Counters\n"+strings.ToUpper(pmBlock[:0])+strings.Replace(pmBlock, "Ne468a303005527c0", "NE468A303005527C0", 1))
	if g := res.Findings[0].Subject.NodeGUID; g != "0xe468a303005527c0" {
		t.Errorf("GUID %q", g)
	}
}

// Any parsed input is judged without a panic, into catalogued findings
// that each rest on evidence naming a line.
func FuzzCheck(f *testing.F) {
	for _, name := range []string{"ibdiagnet-archwiki-ibdiagnet1-ddr.txt", "ibdiagnet-ydanzig-logparsertask.txt", "ibdiagnet-ompi-users-2009-ipoib-rate.txt"} {
		b, err := os.ReadFile(filepath.Join(testdata, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(pmBlock + duringA + linkDowned + speedLine + lstLine)
	f.Fuzz(func(t *testing.T, in string) {
		r, err := diag.Parse(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		for _, fd := range Check(r).Findings {
			if fd.ID == "" || fd.Severity == "" || len(fd.Evidence) == 0 {
				t.Fatalf("finding without ID, severity or evidence: %+v", fd)
			}
			for _, e := range fd.Evidence {
				if !strings.HasPrefix(e.Source, "f:") {
					t.Fatalf("evidence %q names no line", e.Source)
				}
			}
		}
	})
}
