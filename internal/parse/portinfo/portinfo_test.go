package portinfo

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestParseRealSamples(t *testing.T) {
	for _, tc := range []struct {
		file   string
		blocks []string // Label/What/LID/Port of each block
		checks map[int]map[string]string
	}{
		{"ibportstate-fdr-query-heioy.txt", []string{"CA/RT PortInfo|Port info|12|2", "CA/RT PortInfo|MLNX ext Port info|12|2"},
			map[int]map[string]string{0: {"LinkState": "Active", "LinkSpeedExtActive": "14.0625 Gbps", "LinkWidthSupported": "1X or 4X", "Mkey": "<not displayed>"}, 1: {"LinkSpeedActive": "0x00"}}},
		{"ibportstate-qdr-on-edr-port-width-heioy.txt", []string{"Initial CA/RT PortInfo|Port info|2|1", "Initial CA/RT PortInfo|MLNX ext Port info|2|1", "After PortInfo set|Port info|2|1"},
			map[int]map[string]string{0: {"LinkWidthEnabled": "1X or 4X", "LinkSpeedExtActive": "No Extended Speed"}, 2: {"LinkWidthEnabled": "1X"}}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Parse(strings.NewReader(string(b)), tc.file)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, bl := range res.Blocks {
				got = append(got, strings.Join([]string{bl.Label, bl.What, itoa(bl.LID), itoa(bl.Port)}, "|"))
			}
			if strings.Join(got, ";") != strings.Join(tc.blocks, ";") {
				t.Fatalf("blocks %v, want %v", got, tc.blocks)
			}
			for i, kv := range tc.checks {
				for k, v := range kv {
					if f, ok := res.Blocks[i].Get(k); !ok || f.Value != v {
						t.Errorf("block %d %s = %q, want %q", i, k, f.Value, v)
					}
				}
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestParseLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		blocks   int
		key, val string
		err      error
	}{
		{"smpquery with an ibwarn line", "ibwarn: [565072] sim_connect: attached\n# Port info: Lid 3 port 1\nLinkState:.......................Down\nPhysLinkState:...................Polling\n", 1, "PhysLinkState", "Polling", nil},
		{"grep without the header", "SMLid:...........................1\nLinkWidthActive:.................4X\nLinkState:.......................Active\n", 1, "LinkWidthActive", "4X", nil},
		{"a key again starts the next dump", "LinkState:.......Active\nLinkState:.......Down\n", 2, "LinkState", "Active", nil},
		{"ibstat is not a dump", "\t\tState: Active\n\t\tRate: 100\n", 0, "", "", ErrNoBlock},
		{"prose", "please help: the link is down\n", 0, "", "", ErrNoBlock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(tc.in), "x")
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Blocks) != tc.blocks {
				t.Fatalf("%d blocks, want %d", len(res.Blocks), tc.blocks)
			}
			if f, ok := res.Blocks[0].Get(tc.key); !ok || f.Value != tc.val {
				t.Errorf("%s = %q", tc.key, f.Value)
			}
		})
	}
	if !Header("# Port info: Lid 3 port 1") || !Header("Peer PortInfo:") || Header("# Port counters: Lid 1 port 1") {
		t.Error("Header")
	}
}

func FuzzParse(f *testing.F) {
	ents, _ := os.ReadDir("testdata")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			b, _ := os.ReadFile(filepath.Join("testdata", e.Name()))
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		res, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, b := range res.Blocks {
			if len(b.Fields) == 0 {
				t.Fatal("empty block")
			}
			for _, fl := range b.Fields {
				if fl.Key == "" || fl.Line < 1 {
					t.Fatalf("bad field %+v", fl)
				}
			}
		}
	})
}
