package ibdiags

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

func TestParsePerfQuery(t *testing.T) {
	pq, err := ParsePerfQuery(openTestdata(t, "perfquery-spineleaf.txt"), "perfquery")
	if err != nil {
		t.Fatal(err)
	}
	b := pq.Blocks[0]
	if b.Extended || b.LID != 4 || b.Port != 5 || b.CapMask != 0x1300 || b.Counters["SymbolErrorCounter"] != 0 || len(b.Counters) != 21 {
		t.Errorf("block: %+v", b)
	}
	if _, ok := b.Counters["PortXmitWait"]; !ok {
		t.Error("PortXmitWait missing")
	}
	x, err := ParsePerfQuery(openTestdata(t, "perfquery-x-spineleaf.txt"), "perfquery -x")
	if err != nil {
		t.Fatal(err)
	}
	if xb := x.Blocks[0]; !xb.Extended || xb.LID != 2 || xb.Port != 1 || xb.Counters["PortXmitData"] == 0 {
		t.Errorf("extended block: %+v", xb)
	}
	// ibsim's extended answer has no error counters.
	if _, ok := x.Blocks[0].Counters["SymbolErrorCounter"]; ok {
		t.Error("extended block unexpectedly carries SymbolErrorCounter")
	}
}

// TestParsePerfQueryPasted: blocks as people paste them: the header
// wrapped by a mail client, or cut off (the block's port is its
// PortSelect, its LID unknown).
func TestParsePerfQueryPasted(t *testing.T) {
	w, err := ParsePerfQuery(openTestdata(t, "perfquery-x-mail-wrapped.txt"), "wrapped")
	if err != nil {
		t.Fatal(err)
	}
	if b := w.Blocks[0]; len(w.Blocks) != 1 || !b.Extended || b.LID != 21 || b.Port != 1 || b.Counters["PortRcvData"] != 2341975277576 || b.NoHeader {
		t.Errorf("wrapped block: %+v", w.Blocks)
	}
	body, _ := io.ReadAll(openTestdata(t, "perfquery-spineleaf.txt"))
	_, rest, _ := strings.Cut(string(body), "\n")
	for _, tt := range []struct {
		name, in string
		port     int
		counters int
		wantErr  bool
	}{
		{"header cut", rest, 5, 21, false},
		{"header cut, blank lines above", "\n\n" + rest, 5, 21, false},
		{"prose is no block", "PortSelect is one\n" + rest, 0, 0, true},
		{"a header after a cut block starts a new one", rest + string(body), 5, 21, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pq, err := ParsePerfQuery(strings.NewReader(tt.in), "cut")
			if tt.wantErr {
				if err == nil {
					t.Fatalf("no error: %+v", pq)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := pq.Blocks[0]
			if !b.NoHeader || b.LID != 0 || b.Port != tt.port || len(b.Counters) != tt.counters || b.Line != strings.Count(tt.in[:strings.Index(tt.in, "PortSelect")], "\n")+1 {
				t.Errorf("block %+v", b)
			}
		})
	}
}

func TestParseQueryErrors(t *testing.T) {
	q, err := ParseQueryErrors(openTestdata(t, "ibqueryerrors-spineleaf.txt"), "ibqueryerrors")
	if err != nil {
		t.Fatal(err)
	}
	if q.NodesChecked != 8 || q.PortsChecked != 36 || q.PMAFailures != 9 || len(q.Ports) != 7 {
		t.Fatalf("summary %d/%d/%d, %d ports", q.NodesChecked, q.PortsChecked, q.PMAFailures, len(q.Ports))
	}
	want := ErrorPort{NodeDesc: "h2", GUID: 0x100003, Port: 1, Line: 2, Counters: map[string]uint64{
		"PortRcvErrors": 4, "PortXmitData": 3888, "PortRcvData": 3960, "PortXmitPkts": 54, "PortRcvPkts": 55}}
	if d := cmp.Diff(want, q.Ports[0]); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	sw := q.Ports[3]
	if sw.NodeGUID != 0x200003 || sw.NodeDesc != "leaf2" || sw.Port != 5 || sw.All || sw.Counters["LinkErrorRecoveryCounter"] != 2 {
		t.Errorf("leaf2 port 5: %+v", sw)
	}
	if !q.Ports[2].All {
		t.Errorf("port ALL line not marked: %+v", q.Ports[2])
	}
}

// TestParseQueryErrorsHeaderless: a port line with counters pasted
// without its "Errors for" header is read (the node stays unknown); a
// line without counters before any header is not this tool's.
func TestParseQueryErrorsHeaderless(t *testing.T) {
	q, err := ParseQueryErrors(strings.NewReader(" GUID 0x1070fd0300370ea2 port ALL: [LinkDownedCounter == 25 (25.000)] [PortXmitDiscards == 2846 (2.779K)]\n"), "q")
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Ports) != 1 || !q.Ports[0].All || q.Ports[0].GUID != 0x1070fd0300370ea2 || q.Ports[0].Counters["PortXmitDiscards"] != 2846 {
		t.Fatalf("ports %+v", q.Ports)
	}
	if _, err := ParseQueryErrors(strings.NewReader("GUID 0x1 port 1:\n"), "q"); err == nil {
		t.Error("a headerless port line without counters was accepted")
	}
	for line, want := range map[string]bool{
		" GUID 0x1070fd0300370ea2 port ALL: [LinkDownedCounter == 25 (25.000)]": false, // untrimmed: callers trim
		"GUID 0x1070fd0300370ea2 port ALL: [LinkDownedCounter == 25 (25.000)]":  true,
		"GUID 0x2 port 3: [PortRcvErrors == 40]":                                true,
		"GUID 0x2 port 3:":                                                      false,
		"GUID 0x2 is the == node":                                               false,
	} {
		if got := ErrorPortLine(line); got != want {
			t.Errorf("ErrorPortLine(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestParseFTs(t *testing.T) {
	fts, err := ParseFTs(openTestdata(t, "dump_fts-spineleaf.txt"), "dump_fts")
	if err != nil {
		t.Fatal(err)
	}
	if len(fts) != 4 {
		t.Fatalf("%d tables", len(fts))
	}
	if f := fts[0]; f.SwitchGUID != 0x200001 || f.SwitchDesc != "spine2" || f.LID != -1 || f.DRPath != "0,1,6" || f.MaxLID != 8 || len(f.Entries) != 7 {
		t.Errorf("spine2: %+v", f)
	}
	if e := fts[0].Entries[0]; e != (LFTEntry{LID: 2, Port: 1, Dest: DestCA, DestGUID: 0x100001}) {
		t.Errorf("first entry %+v", e)
	}
	r, err := ParseFTs(openTestdata(t, "ibroute-leaf1.txt"), "ibroute")
	if err != nil {
		t.Fatal(err)
	}
	if r[0].LID != 4 || r[0].Entries[2] != (LFTEntry{LID: 3, Port: 6, Dest: DestUnknown}) {
		t.Errorf("ibroute: %+v", r[0])
	}
}

func TestParseFTsForms(t *testing.T) {
	// dump_fts -n (no Info column) and LMC paths, as dump_fts.c prints them.
	in := "Unicast lids [0x0-0x6] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000200002 (leaf1):\n" +
		"  Lid  Out   Destination\n       Port     Info \n" +
		"0x0001 005 \n" +
		"0x0004 001 : (Channel Adapter portguid 0x0000000000100001: 'h1')\n" +
		"0x0005 002 : (path #2 out of 2: portguid 0x0000000000100001)\n" +
		"0x0006 003 : (node info not available fabric scan)\n" +
		"4 valid lids dumped \n"
	fts, err := ParseFTs(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []LFTEntry{{LID: 1, Port: 5}, {LID: 4, Port: 1, Dest: DestCA, DestGUID: 0x100001}, {LID: 5, Port: 2, DestGUID: 0x100001}, {LID: 6, Port: 3}}
	if d := cmp.Diff(want, fts[0].Entries); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestParseFTsAll: dump_fts -a on a 128-port spine (infiniband-diags 44
// under ibsim) prints LID 0 and unrouted LIDs with port 255, and entries to
// the last port 128 as "(illegal port)"; all of them are kept, marked, and
// the footer without "valid" says the table is complete.
func TestParseFTsAll(t *testing.T) {
	in := "Unicast lids [0x0-0x182] of switch DR path slid 0; dlid 0; 0,3 guid 0x0000000000200080 (spine1):\n" +
		"  Lid  Out   Destination\n       Port     Info \n" +
		"0x0000 255 : (path #0 - illegal port)\n" +
		"0x00fd 127 : (Switch portguid 0x000000000020007e: 'leaf127')\n" +
		"0x00ff 128 : (illegal port)\n" +
		"0x0101 255 : (illegal port)\n" +
		"387 lids dumped \n" +
		"Unicast lids [0x0-0x2] of switch DR path slid 0; dlid 0; 0 guid 0x0000000000200000 (leaf1):\n" +
		"0x0001 000 : (Switch portguid 0x0000000000200000: 'leaf1')\n" +
		"1 valid lids dumped \n"
	fts, err := ParseFTs(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []LFTEntry{
		{LID: 0, Port: 255, ToolIllegal: true},
		{LID: 0xfd, Port: 127, Dest: DestSwitch, DestGUID: 0x20007e},
		{LID: 0xff, Port: 128, ToolIllegal: true},
		{LID: 0x101, Port: 255, ToolIllegal: true},
	}
	if d := cmp.Diff(want, fts[0].Entries); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if !fts[0].All || fts[1].All {
		t.Errorf("All: spine1 %v (want true, -a footer), leaf1 %v (want false)", fts[0].All, fts[1].All)
	}
}

func TestParseFTsErrors(t *testing.T) {
	hdr := "Unicast lids [0x0-0x8] of switch Lid 4 guid 0x0000000000200002 (leaf1):\n"
	tests := []struct {
		name, in string
		line     int
	}{
		{"entry first", "0x0001 005 : (Switch portguid 0x0000000000200000: 'spine1')\n", 1},
		{"out of range", hdr + "0x0009 005 : (Switch portguid 0x0000000000200000: 'spine1')\n", 2},
		{"repeated", hdr + "0x0001 005 : (Switch portguid 0x1: 's')\n0x0001 004 : (Switch portguid 0x1: 's')\n", 3},
		{"bad port", hdr + "0x0001 zz : (Switch portguid 0x1: 's')\n", 2},
		{"bad header", "Unicast lids [0x9-0x1] of switch Lid 4 guid 0x1 (x):\n", 1},
		{"garbage", hdr + "hello\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFTs(strings.NewReader(tt.in), "fts.txt")
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != tt.line {
				t.Fatalf("got %v, want a ParseError at line %d", err, tt.line)
			}
		})
	}
}

func TestParseSMInfo(t *testing.T) {
	s, err := ParseSMInfo(openTestdata(t, "sminfo-master.txt"), "sminfo")
	if err != nil {
		t.Fatal(err)
	}
	want := []SMInfo{{LID: 1, GUID: 0x200000, Activity: 130, Priority: 0, State: SMMaster, StateName: "SMINFO_MASTER", Line: 1}}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// From a real BDA rack (Oracle support note quoted in public notes).
	s, err = ParseSMInfo(strings.NewReader("sminfo: sm lid 15 sm guid 0x10e0406d5aa0a0, activity count 26263191 priority 14 state 3 SMINFO_MASTER\n"), "x")
	if err != nil || s[0].LID != 15 || s[0].Priority != 14 || s[0].Activity != 26263191 {
		t.Errorf("real sminfo: %+v %v", s, err)
	}
	for _, bad := range []string{"sminfo: iberror: failed: query\n", "sminfo: sm lid x sm guid 0x1, activity count 1 priority 0 state 3 SMINFO_MASTER\n", ""} {
		if _, err := ParseSMInfo(strings.NewReader(bad), "sminfo"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseDiags(t *testing.T) {
	d, err := ParseDiags(openTestdata(t, "ibqueryerrors-spineleaf.stderr"), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 9 || d[0].Kind != DiagPMAFailed || d[0].NodeDesc != "spine2" || d[0].LID != 3 || d[0].Port != 0 || d[1].Port != 1 {
		t.Errorf("got %d diags, first %+v", len(d), d)
	}
	// Without an SM (no LIDs) the tools address by directed route.
	d, err = ParseDiags(strings.NewReader("ibwarn: [22118] print_errors: IB_GSI_PORT_COUNTERS query failed on spine1, DR path slid 0; dlid 0; 0 port 2\n"), "stderr")
	if err != nil || len(d) != 1 || d[0].NodeDesc != "spine1" || d[0].Port != 2 || d[0].LID != 0 {
		t.Errorf("DR-path diag: %+v %v", d, err)
	}
	d, err = ParseDiags(openTestdata(t, "ibnetdiscover-dupguid.stderr"), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 1 || d[0].Kind != DiagDuplicateGUID || d[0].GUID != 0x2c903000a0002 {
		t.Errorf("dup guid diags: %+v", d)
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		file string
		want Kind
	}{
		{"ibnetdiscover-spineleaf.txt", KindNetDiscover},
		{"ibnetdiscover-mqm8700.txt", KindNetDiscover},
		{"iblinkinfo-spineleaf.txt", KindLinkInfo},
		{"iblinkinfo-edr-sb7700.txt", KindLinkInfo},
		{"ibqueryerrors-spineleaf.txt", KindQueryErrors},
		{"perfquery-spineleaf.txt", KindPerfQuery},
		{"dump_fts-spineleaf.txt", KindForwardTables},
		{"ibroute-leaf1.txt", KindForwardTables},
		{"sminfo-master.txt", KindSMInfo},
		{"saquery-s.txt", KindSMPorts},
		{"ibnetdiscover-ports-spineleaf.txt", KindNetPorts},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if k, score := Detect(string(b)); k != tt.want || score < 50 {
			t.Errorf("%s: got %q score %d, want %q", tt.file, k, score, tt.want)
		}
	}
	if k, s := Detect("NCCL INFO Bootstrap : Using eth0\n"); k != KindUnknown || s != 0 {
		t.Errorf("unrelated text detected as %q/%d", k, s)
	}
}

func fuzzSeeds(f *testing.F, files ...string) {
	for _, n := range files {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
}

func checkParseErr(t *testing.T, err error) {
	var pe *ParseError
	if err != nil && !errors.As(err, &pe) {
		t.Fatalf("error is not a ParseError: %v", err)
	}
}

func FuzzParsePerfQuery(f *testing.F) {
	fuzzSeeds(f, "perfquery-spineleaf.txt", "perfquery-x-spineleaf.txt", "perfquery-x-mail-wrapped.txt")
	f.Add("# PortRcvErrorDetails counters: Lid 134 port 1\nPortSelect:......................1\nPortLocalPhysicalErrors:.........0\n")
	f.Fuzz(func(t *testing.T, in string) {
		pq, err := ParsePerfQuery(strings.NewReader(in), "fuzz")
		checkParseErr(t, err)
		if err == nil {
			for _, b := range pq.Blocks {
				if b.Port > 255 || b.LID > 0xffff {
					t.Fatalf("bad block %+v", b)
				}
			}
		}
	})
}

func FuzzParseQueryErrors(f *testing.F) {
	fuzzSeeds(f, "ibqueryerrors-spineleaf.txt")
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ParseQueryErrors(strings.NewReader(in), "fuzz")
		checkParseErr(t, err)
		if err == nil {
			for _, p := range q.Ports {
				if p.Port > 255 || (p.All && p.Port != 0) {
					t.Fatalf("bad port %+v", p)
				}
			}
		}
	})
}

func FuzzParseFTs(f *testing.F) {
	fuzzSeeds(f, "dump_fts-spineleaf.txt", "ibroute-leaf1.txt")
	f.Fuzz(func(t *testing.T, in string) {
		fts, err := ParseFTs(strings.NewReader(in), "fuzz")
		checkParseErr(t, err)
		for _, ft := range fts {
			last := -1
			for _, e := range ft.Entries {
				if int(e.LID) <= last || int(e.LID) < ft.MinLID || int(e.LID) > ft.MaxLID {
					t.Fatalf("bad entry %+v in %+v", e, ft)
				}
				last = int(e.LID)
			}
		}
	})
}

func FuzzParseSMInfo(f *testing.F) {
	fuzzSeeds(f, "sminfo-master.txt")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSMInfo(strings.NewReader(in), "fuzz")
		checkParseErr(t, err)
		for _, x := range s {
			if x.State > 3 || x.Priority > 15 {
				t.Fatalf("bad %+v", x)
			}
		}
	})
}

func FuzzParseDiags(f *testing.F) {
	fuzzSeeds(f, "ibqueryerrors-spineleaf.stderr", "ibnetdiscover-dupguid.stderr")
	f.Fuzz(func(t *testing.T, in string) {
		_, err := ParseDiags(strings.NewReader(in), "fuzz")
		checkParseErr(t, err)
	})
}

func BenchmarkParseFTs(b *testing.B) {
	// 64 switches × 4096 destinations in dump_fts's format.
	var sb strings.Builder
	for s := 0; s < 64; s++ {
		sb.WriteString("Unicast lids [0x0-0x1000] of switch Lid 1 guid 0x0000000000200000 (sw):\n  Lid  Out   Destination\n       Port     Info \n")
		for l := 1; l <= 4096; l++ {
			sb.WriteString("0x")
			sb.WriteString(strings.Repeat("0", 4-len(hex(l))) + hex(l))
			sb.WriteString(" 005 : (Channel Adapter portguid 0x0000000000100001: 'h1 mlx5_0')\n")
		}
		sb.WriteString("4096 valid lids dumped \n")
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := ParseFTs(strings.NewReader(in), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func hex(v int) string {
	const d = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	s := ""
	for v > 0 {
		s = string(d[v%16]) + s
		v /= 16
	}
	return s
}

func TestParseSMPorts(t *testing.T) {
	got, err := ParseSMPorts(openTestdata(t, "saquery-s.txt"), "saquery -s")
	if err != nil {
		t.Fatal(err)
	}
	want := []SMPort{{EndPortLID: 1, PortNum: 0, BaseLID: 1, MasterSMLID: 1, CapMask: 0xC04A, Line: 2}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []string{"PortInfoRecord dump:\n", "IsSM ports\nbase_lid....1\n", "IsSM ports\nPortInfoRecord dump:\nbase_lid....x\n", "nothing\n"} {
		if _, err := ParseSMPorts(strings.NewReader(bad), "x"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseSMPorts(f *testing.F) {
	fuzzSeeds(f, "saquery-s.txt")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ParseSMPorts(strings.NewReader(in), "fuzz")
		checkParseErr(t, err)
		for _, p := range ps {
			if p.BaseLID > 0xffff || p.PortNum > 255 {
				t.Fatalf("bad %+v", p)
			}
		}
	})
}

func TestParseNetDiscoverPorts(t *testing.T) {
	ps, err := ParseNetDiscoverPorts(openTestdata(t, "ibnetdiscover-ports-spineleaf.txt"), "ibnetdiscover -p")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 36 {
		t.Fatalf("%d lines, want 36", len(ps))
	}
	want := []PortLine{
		{Type: CA, LID: 8, Port: 1, GUID: 0x100007, Width: 4, Speed: ib.SpeedDDR, Desc: "h4", Connected: true,
			RemoteType: Switch, RemoteLID: 6, RemotePort: 2, RemoteGUID: 0x200003, RemoteDesc: "leaf2", Line: 1},
		{Type: Switch, LID: 3, Port: 8, GUID: 0x200001, Width: 4, Speed: ib.SpeedSDR, Desc: "spine2", Line: 3},
	}
	if d := cmp.Diff(want, []PortLine{ps[0], ps[2]}); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []string{"XX 1 1 0x1 4x SDR 'a'\n", "SW 1 1 0x1 4x FAST 'a'\n", "SW 1 1 0x1 4x SDR - SW 2 2 0x2 ( 'a' 'b' )\n", "SW 1 1 0x1 4x SDR\n"} {
		if _, err := ParseNetDiscoverPorts(strings.NewReader(bad), "x"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseNetDiscoverPorts(f *testing.F) {
	fuzzSeeds(f, "ibnetdiscover-ports-spineleaf.txt")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ParseNetDiscoverPorts(strings.NewReader(in), "fuzz")
		checkParseErr(t, err)
		for _, p := range ps {
			if p.Port > 255 || !validWidth(p.Width) || (p.Connected && p.RemoteType == "") {
				t.Fatalf("bad %+v", p)
			}
		}
	})
}

// TestParsePerfQueryDetails: perfquery's other attributes print "#
// <Attribute> counters: Lid N port P" (the treydock/infiniband_exporter
// fixture perfquery-rcv-error/0x7cfe9003003b4bde-1.out of perfquery -E);
// the block's Set names the attribute.
func TestParsePerfQueryDetails(t *testing.T) {
	const rcvErr = "# PortRcvErrorDetails counters: Lid 134 port 1\nPortSelect:......................1\nCounterSelect:...................0x0000\n" +
		"PortLocalPhysicalErrors:.........0\nPortMalformedPktErrors:..........0\nPortBufferOverrunErrors:.........0\n" +
		"PortDLIDMappingErrors:...........0\nPortVLMappingErrors:.............0\nPortLoopingErrors:...............0\n"
	for _, tt := range []struct {
		name, in, set string
		lid, port, n  int
		header        bool
	}{
		{"PortRcvErrorDetails (-E)", rcvErr, "PortRcvErrorDetails", 134, 1, 8, true},
		{"PortXmitDiscardDetails (-D)", "# PortXmitDiscardDetails counters: Lid 7 port 3\nPortSelect:......................3\nCounterSelect:...................0x0000\n" +
			"PortInactiveDiscards:............2\nPortNeighborMTUDiscards:.........0\n", "PortXmitDiscardDetails", 7, 3, 4, true},
		{"PortCounters", "# Port counters: Lid 2 port 1 (CapMask: 0x1600)\nPortSelect:......................1\n", "", 2, 1, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pq, err := ParsePerfQuery(strings.NewReader(tt.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			if b := pq.Blocks[0]; len(pq.Blocks) != 1 || b.Set != tt.set || b.LID != tt.lid || b.Port != tt.port || len(b.Counters) != tt.n || b.Extended {
				t.Errorf("blocks %+v", pq.Blocks)
			}
			if h, _, _ := strings.Cut(tt.in, "\n"); PerfQueryHeader(h) != tt.header {
				t.Errorf("PerfQueryHeader(%q) = %v", h, !tt.header)
			}
		})
	}
	for _, l := range []string{"# Port", "# Portable counters: Lid", "# Port-1 counters: Lid 2 port 1", "# PortRcvErrorDetails counters:"} {
		if PerfQueryHeader(l) {
			t.Errorf("PerfQueryHeader(%q) = true", l)
		}
	}
}

// TestParseQueryErrorsPerlNames: the Perl ibqueryerrors.pl (an Exadata
// Sun DCS 36 switch, realworld-fresh72) prints perfquery's old labels in
// its brackets; they are read under the PortCounters names.
func TestParseQueryErrorsPerlNames(t *testing.T) {
	in := "Errors for 0x002128469562a0a0 \"SUN DCS 36P QDR slcc04sw-ib2 10.242.64.214\"\n" +
		"   GUID 0x002128469562a0a0 port 7: [RcvErrors == 1] [XmtDiscards == 14318] [RcvSwRelayErrors == 65535]\n"
	q, err := ParseQueryErrors(strings.NewReader(in), "q")
	if err != nil {
		t.Fatal(err)
	}
	c := q.Ports[0].Counters
	if len(q.Ports) != 1 || c["PortRcvErrors"] != 1 || c["PortXmitDiscards"] != 14318 || c["PortRcvSwitchRelayErrors"] != 65535 {
		t.Fatalf("ports %+v", q.Ports)
	}
}
