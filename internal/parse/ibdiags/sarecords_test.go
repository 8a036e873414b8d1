package ibdiags

import (
	"os"
	"path/filepath"
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
