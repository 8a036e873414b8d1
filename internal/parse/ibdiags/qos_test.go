package ibdiags

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSL2VLCaptured(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "smpquery-sl2vl-qos.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ParseSL2VL(strings.NewReader(string(b)), "smpquery-sl2vl-qos.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := [16]int{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15}
	lids := map[int]int{}
	for _, r := range rows {
		lids[r.LID]++
		if r.VL != want {
			t.Errorf("line %d: LID %d in %d out %d: VLs %v, want %v", r.Line, r.LID, r.In, r.Out, r.VL, want)
		}
	}
	// Leaves (LIDs 4, 6): 4 linked ports × 9 input rows; HCAs: one row;
	// spine1 (LID 1): 2 linked ports × 9; spine2 (LID 3) failed.
	for lid, n := range map[int]int{1: 18, 2: 1, 4: 36, 5: 1, 6: 36, 7: 1, 8: 1, 3: 0} {
		if lids[lid] != n {
			t.Errorf("LID %d: %d rows, want %d", lid, lids[lid], n)
		}
	}
}

func TestParseVLArbCaptured(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "smpquery-vlarb-qos.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tabs, err := ParseVLArb(strings.NewReader(string(b)), "smpquery-vlarb-qos.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(tabs) != 14 {
		t.Errorf("%d tables, want 14 (16 linked ports, spine2's 2 failed)", len(tabs))
	}
	for _, tab := range tabs {
		if tab.LowCap != 8 || tab.HighCap != 8 || len(tab.Low) != 8 || len(tab.High) != 8 {
			t.Fatalf("LID %d port %d: caps %d/%d, %d/%d entries", tab.LID, tab.Port, tab.LowCap, tab.HighCap, len(tab.Low), len(tab.High))
		}
		// qos_vlarb_high 0:4,1:0  qos_vlarb_low 0:0,1:64,2:128,3:0
		for vl, w := range map[int]int{0: 4, 1: 64, 2: 128, 3: 0} {
			if got := tab.Weight(vl); got != w {
				t.Errorf("LID %d port %d: VL %d weight %d, want %d", tab.LID, tab.Port, vl, got, w)
			}
		}
	}
}

func TestParseQoSErrors(t *testing.T) {
	hdr := "# SL2VL table: Lid 4\n"
	row := "ports: in  0, out  5: | 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2|15|\n"
	vhdr := "# VLArbitration tables: Lid 1 port 1 LowCap 8 HighCap 8\n# Low priority VL Arbitration Table:\n"
	tests := []struct {
		name, in string
		vlarb    bool
		line     int
		want     string
	}{
		{"sl2vl row without header", row, false, 1, "before a"},
		{"sl2vl 15 VLs", hdr + strings.Replace(row, "15|", "", 1), false, 2, "want 16 VLs"},
		{"sl2vl VL 16", hdr + strings.Replace(row, "15|", "16|", 1), false, 2, "bad VL"},
		{"sl2vl bad port", hdr + strings.Replace(row, "out  5", "out 256", 1), false, 2, "bad out port"},
		{"sl2vl bad lid", "# SL2VL table: Lid x\n", false, 1, "bad LID"},
		{"sl2vl garbage", hdr + "hello\n", false, 2, "not an smpquery sl2vl line"},
		{"sl2vl empty", "", false, 0, "no SL2VL rows"},
		{"vlarb weight without VL", vhdr + "WEIGHT: |0x0 |\n", true, 3, "without a VL row"},
		{"vlarb length differs", vhdr + "VL    : |0x0 |0x1 |\nWEIGHT: |0x0 |\n", true, 4, "without a VL row"},
		{"vlarb VL 16", vhdr + "VL    : |0x10 |\n", true, 3, "out of range"},
		{"vlarb bad header", "# VLArbitration tables: Lid 0 port 1 LowCap 8 HighCap 8\n", true, 1, "bad VLArbitration header"},
		{"vlarb row first", "VL    : |0x0 |\n", true, 1, "before a"},
		{"vlarb only BSP0", "# No VLArbitration tables (BSP0): Lid 4 port 0\n", true, 0, "no VL arbitration tables"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.vlarb {
				_, err = ParseVLArb(strings.NewReader(tt.in), "x.txt")
			} else {
				_, err = ParseSL2VL(strings.NewReader(tt.in), "x.txt")
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != tt.line || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "x.txt") {
				t.Fatalf("err %v, want line %d and %q", err, tt.line, tt.want)
			}
		})
	}
}

func FuzzParseSL2VL(f *testing.F) {
	fuzzSeeds(f, "smpquery-sl2vl-qos.txt")
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := ParseSL2VL(strings.NewReader(in), "fuzz")
		checkParseErr(t, err)
		for _, r := range rows {
			for _, v := range r.VL {
				if v < 0 || v > 15 || r.In > 255 || r.Out > 255 || r.LID <= 0 {
					t.Fatalf("bad row %+v", r)
				}
			}
		}
	})
}

func FuzzParseVLArb(f *testing.F) {
	fuzzSeeds(f, "smpquery-vlarb-qos.txt")
	f.Fuzz(func(t *testing.T, in string) {
		tabs, err := ParseVLArb(strings.NewReader(in), "fuzz")
		checkParseErr(t, err)
		for _, tab := range tabs {
			for _, e := range append(append([]VLArbEntry{}, tab.Low...), tab.High...) {
				if e.VL < 0 || e.VL > 15 || e.Weight < 0 || e.Weight > 255 {
					t.Fatalf("bad entry %+v", e)
				}
			}
		}
	})
}
