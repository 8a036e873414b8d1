package perftest

import (
	"strings"
	"testing"
)

// incast is linux-rdma/perftest#130 (description by cq-cerebras,
// 2021-12-23): ib_send_bw --run_infinitely rows of two clients pasted
// without their column titles, tabs kept.
const incast = `I start two copies of ib_send_bw on node A (server side):
# taskset -c 4 ib_send_bw -d mlx5_0 -s 4194304 --run_infinitely -p 5001
# taskset -c 1 ib_send_bw -d mlx5_0 -s 4194304 -D 20 --run_infinitely -p 5001 10.254.28.96
The performance is very poor:
Node B output:
 4194304    4826             0.00               965.20 		   0.000241
 4194304    7695             0.00               1539.00		   0.000385
 4194304    2596             0.00               519.20 		   0.000130
Node C output:
 4194304    2456             0.00               491.19 		   0.000123
 4194304    162              0.00               32.40  		   0.000008
`

func TestUntitledBWRow(t *testing.T) {
	tests := []struct {
		name, row string
		unit      string
		ok        bool
	}{
		{"perftest#130 MB/sec", "4194304    4826             0.00               965.20 \t\t   0.000241", "MB/sec", true},
		{"perftest#130 MB/sec, rate rounded to 8e-6", "4194304    162              0.00               32.40  \t\t   0.000008", "MB/sec", true},
		// Soft-RoCE ib_read_bw -a (linux-rdma, 2023-02-15), MB/sec.
		{"rxe 64 KiB MB/sec", "65536      1000             110.33             110.33 \t\t   0.001765", "MB/sec", true},
		// ConnectX-7 NDR ib_write_bw --report_gbits row.
		{"Gb/sec", "65536      5000             392.38             392.34             0.748330", "Gb/sec", true},
		{"MsgRate fits no unit", "65536      5000             392.38             392.34             0.123456", "", false},
		{"four columns (old releases)", "65536      5000             392.38             392.34", "", false},
		{"latency row", "2       1000          1.57           9.65         1.84", "", false},
		{"integers only", "1 2 3 4 5", "", false},
		{"prose", "Node B output:", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			unit, ok := UntitledBWRow(strings.TrimSpace(tc.row))
			if unit != tc.unit || ok != tc.ok {
				t.Errorf("UntitledBWRow(%q) = %q, %v; want %q, %v", tc.row, unit, ok, tc.unit, tc.ok)
			}
		})
	}
}

func TestParseUntitledRows(t *testing.T) {
	if !Detect(incast) {
		t.Fatal("Detect = false")
	}
	rs, err := ParseAll(strings.NewReader(incast), "p")
	if err != nil {
		t.Fatal(err)
	}
	// The prose line between the two clients' rows ends the first run.
	if len(rs) != 2 || len(rs[0].BW) != 3 || len(rs[1].BW) != 2 {
		t.Fatalf("got %d results, want 2 of 3 and 2 rows: %+v", len(rs), rs)
	}
	r := rs[0]
	if r.Test != "Send BW Test" || r.Verb != "send" || r.Device != "mlx5_0" || r.Kind != KindBW || r.Unit != "MB/sec" || !r.Untitled || r.Line != 6 {
		t.Errorf("first result %+v", r)
	}
	if got, want := r.BW[2].AvgGbps, 519.20*mibToGbps; got != want || r.BW[2].Line != 8 {
		t.Errorf("row 3: %v Gb/s at line %d, want %v at 8", got, r.BW[2].Line, want)
	}
	// A table with its column titles is not untitled.
	rs, err = ParseAll(strings.NewReader(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n 4194304    4826             0.00               965.20 \t\t   0.000241\n"), "p")
	if err != nil || len(rs) != 1 || rs[0].Untitled || len(rs[0].BW) != 1 {
		t.Errorf("titled table: %+v, %v", rs, err)
	}
	// One lone row is not enough to call a paste perftest output.
	if Detect(" 4194304    4826             0.00               965.20 \t\t   0.000241\n") {
		t.Error("Detect(one untitled row) = true")
	}
}
