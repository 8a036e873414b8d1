package ibdiags

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSARecords reads a NodeRecord dump pasted to a list (the analyze
// corpus), and rejects text without a record.
func TestSARecords(t *testing.T) {
	p := filepath.Join("..", "..", "diagnose", "analyze", "testdata", "realworld", "saquery-linux-rdma-chukov-rdma-ndd.txt")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ParseSARecords(strings.NewReader(string(b)), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Type != "NodeRecord" || recs[0].Line != 2 || recs[0].Fields["lid"] != "134" ||
		recs[0].Fields["NodeDescription"] != "MT4119 ConnectX5   Mellanox Technologies" || recs[0].Fields["node_type"] != "Channel Adapter" {
		t.Errorf("records %+v", recs)
	}
	if _, err := ParseSARecords(strings.NewReader("lid.....1\n"), "x"); err == nil {
		t.Error("no record: want an error")
	}
	for l, want := range map[string]bool{"NodeRecord dump:": true, "PortInfoRecord dump:": true, "Some text dump:": false, "NodeRecord": false} {
		if IsSARecordHeader(l) != want {
			t.Errorf("IsSARecordHeader(%q) = %v", l, !want)
		}
	}
}

func FuzzParseSARecords(f *testing.F) {
	f.Add("NodeRecord dump:\nlid.....1\nNodeDescription....x y\n")
	f.Add("PortInfoRecord dump:\n\tEndportLid..............0x1\nfoo\n..\n")
	f.Fuzz(func(t *testing.T, s string) {
		recs, err := ParseSARecords(strings.NewReader(s), "f")
		if err == nil && len(recs) == 0 {
			t.Fatal("no error and no record")
		}
	})
}

func TestParsePathSLs(t *testing.T) {
	real, err := os.ReadFile("testdata/saquery-pr-lash.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParsePathSLs(bytes.NewReader(real), "pr.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []PathSL{{SLID: 1, DLID: 9, SL: 1, Line: 1}, {SLID: 8, DLID: 10, SL: 1, Line: 18}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"no sl", "PathRecord dump:\n\t\tdlid....9\n\t\tslid....1\n", "pr.txt line 1: "},
		{"sl out of range", "x\nPathRecord dump:\n\t\tdlid....9\n\t\tslid....1\n\t\tsl......0x10\n", "pr.txt line 2: "},
		{"bad lid", "PathRecord dump:\n\t\tdlid....nine\n\t\tslid....1\n\t\tsl......0x1\n", "bad dlid"},
		{"other records only", "NodeRecord dump:\n\t\tlid....1\n", "no saquery PathRecord"},
		{"empty", "", "no saquery record dump"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePathSLs(strings.NewReader(tc.in), "pr.txt")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func FuzzParsePathSLs(f *testing.F) {
	if b, err := os.ReadFile("testdata/saquery-pr-lash.txt"); err == nil {
		f.Add(string(b))
	}
	f.Add("PathRecord dump:\n\t\tdlid....9\n\t\tslid....1\n\t\tsl......0x1\n")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ParsePathSLs(strings.NewReader(in), "f")
		if err != nil && ps != nil {
			t.Fatal("records with an error")
		}
		for _, p := range ps {
			if p.SL < 0 || p.SL > 15 || p.SLID < 0 || p.SLID > 0xffff || p.DLID < 0 || p.DLID > 0xffff {
				t.Fatalf("out of range: %+v", p)
			}
		}
	})
}
