package opensm

import (
	"errors"
	"strings"
	"testing"
)

// The lines of a linux-rdma/opensm issue: OpenSM 3.3.23 after a kernel
// update, its log trimmed to the microseconds.
const bindFail = `  138670 [F0D43740] 0x03 -> OpenSM 3.3.23
  140628 [F0D43740] 0x80 -> Entering DISCOVERING state
  165028 [F0D43740] 0x01 -> osm_vendor_bind: ERR 5426: Unable to register class 129 version 1
  165157 [F0D43740] 0x01 -> osm_sm_mad_ctrl_bind: ERR 3118: Vendor specific bind failed
  165630 [F0D43740] 0x80 -> Exiting SM
`

func TestLogLine(t *testing.T) {
	tests := []struct {
		in    string
		level int
		text  string
		ok    bool
	}{
		{"  165028 [F0D43740] 0x01 -> osm_vendor_bind: ERR 5426: Unable to register class 129 version 1", 1, "osm_vendor_bind: ERR 5426: Unable to register class 129 version 1", true},
		{"Oct 29 10:12:01 165630 [F0D43740] 0x80 -> Exiting SM", 0x80, "Exiting SM", true},
		{"Jan 05 08:00:00 000123 [7F2A] 0x02 -> SUBNET UP", 2, "SUBNET UP", true},
		{"a -> b", 0, "", false},
		{"165630 [nothex] 0x80 -> Exiting SM", 0, "", false},
		{"word 165630 [F0D43740] 0x80 -> Exiting SM", 0, "", false},
		{"165630 [F0D43740] 0x8000 -> Exiting SM", 0, "", false},
	}
	for _, tt := range tests {
		lv, text, ok := LogLine(tt.in)
		if lv != tt.level || text != tt.text || ok != tt.ok {
			t.Errorf("LogLine(%q) = %d %q %v, want %d %q %v", tt.in, lv, text, ok, tt.level, tt.text, tt.ok)
		}
	}
}

func TestParse(t *testing.T) {
	lg, err := Parse(strings.NewReader(bindFail), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if lg.Version != "3.3.23" || len(lg.Entries) != 5 || lg.Entries[2].Code != "5426" || lg.Entries[2].Line != 3 || lg.Entries[3].Code != "3118" || lg.Entries[4].Text != "Exiting SM" {
		t.Errorf("%+v", lg)
	}
}

// A linux-rdma/opensm issue: OpenSM 3.3.21's apport report of a
// segfault in LASH.
func TestParseCrash(t *testing.T) {
	const crash = "Signal: 11\nSourcePackage: opensm\nStacktrace:\n" +
		" #0 0x00005636f04835a9 in get_next_switch (p_lash=0x1, link=<optimized out>, sw=0) at osm_ucast_lash.c:337\n No locals.\n" +
		" #1 generate_cdg_for_sp (p_lash=p_lash@entry=0x5636f0eef0b0, sw=sw@entry=0) at osm_ucast_lash.c:337\n" +
		" #2 0x00005636f0484aa8 in lash_core (p_lash=<optimized out>) at osm_ucast_lash.c:842\n" +
		" #3 0x00007f00 in main (argc=1) at main.c:12\n"
	lg, err := Parse(strings.NewReader(crash), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if lg.Signal != 11 || lg.SignalLine != 1 || len(lg.Frames) != 3 {
		t.Fatalf("%+v", lg)
	}
	want := []Frame{{4, "get_next_switch", "osm_ucast_lash.c:337", ""}, {6, "generate_cdg_for_sp", "osm_ucast_lash.c:337", ""}, {7, "lash_core", "osm_ucast_lash.c:842", ""}}
	for i, w := range want {
		g := lg.Frames[i]
		if g.Line != w.Line || g.Function != w.Function || g.Source != w.Source {
			t.Errorf("frame %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestParseNothing(t *testing.T) {
	_, err := Parse(strings.NewReader("Signal: 11\nsome prose -> here\n"), "p.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrNoLog) || pe.Source != "p.txt" {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(bindFail)
	f.Add("Signal: 11\nSourcePackage: opensm\n #0 0x00005636f04835a9 in get_next_switch (p_lash=0x1) at osm_ucast_lash.c:337\n")
	f.Add("#1 f at osm_x.c:\n#2 0x1 in at osm_.c:1\n -> \n1 [] 0x -> x\n")
	f.Fuzz(func(t *testing.T, in string) {
		lg, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			if !errors.Is(err, ErrNoLog) && !strings.Contains(err.Error(), "fuzz") {
				t.Fatalf("error without its source: %v", err)
			}
			return
		}
		for _, e := range lg.Entries {
			if e.Line < 1 {
				t.Fatalf("entry without a line: %+v", e)
			}
		}
	})
}
