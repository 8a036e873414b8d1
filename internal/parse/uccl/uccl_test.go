package uccl

import (
	"errors"
	"strings"
	"testing"
)

// TestParse: a UCCL P2P client on GH200 (uccl-project/uccl issue 113)
// and the newer layout with latency (issue 972), and rows not read.
func TestParse(t *testing.T) {
	const in = "Attempting to connect to 10.141.1.2:0\n" +
		"[Client] Connected to 10.141.1.2 conn_id=0\n" +
		"[Client]    256 B :   0.32 Gbps |   0.04 GB/s\n" +
		"[Client] 100.0 MB : 196.11 Gbps |  24.51 GB/s\n" +
		"[Client]   1.0 MB : 387.56 Gbps |  48.44 GB/s |  2770.55 us\n" +
		"[Client] Benchmark complete\n" +
		"[Client]   1.0 XB : 1.00 Gbps |  1.00 GB/s\n" +
		"[Client]   1.0 MB : fast Gbps |  1.00 GB/s\n"
	rs, err := Parse(strings.NewReader(in), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || rs[0].Size != 256 || rs[0].Line != 3 || rs[1].Label != "100.0 MB" || rs[1].Gbps != 196.11 ||
		rs[2].LatUS != 2770.55 || rs[2].Size != 1<<20 || rs[2].Role != "Client" {
		t.Errorf("%+v", rs)
	}
	if _, err := Parse(strings.NewReader("[Client] Benchmark complete\n"), "p.txt"); !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "p.txt") {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("[Client]    256 B :   0.32 Gbps |   0.04 GB/s\n")
	f.Add("[Client]   1.0 MB : 387.56 Gbps |  48.44 GB/s |  2770.55 us\n[] : Gbps |\n[x] 1 B : 1 Gbps | 1 GB/s | 1 us | 2\n")
	f.Fuzz(func(t *testing.T, in string) {
		rs, err := Parse(strings.NewReader(in), "f")
		if err == nil && len(rs) == 0 {
			t.Fatal("no rows and no error")
		}
	})
}
