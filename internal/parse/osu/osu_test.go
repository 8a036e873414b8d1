package osu

import (
	"errors"
	"strings"
	"testing"
)

// Lines as OMB prints them (util/osu_util.h), from real runs.
const hang = `mpirun -n 2 -ppn 1 osu_acc_latency
OSU MPI_Accumulate latency Test v5.5
Window creation: MPI_Win_allocate
Synchronization: MPI_Win_flush
Size          Latency (us)
1                       2.95
262144                161.30
<hang>
`

const multi = "# OSU MPI Bi-Directional Bandwidth Test v5.6.2\n# Size      Bandwidth (MB/s)\n1                       3.41\n4194304             24117.39\n\n" +
	"# OSU MPI Multiple Bandwidth / Message Rate Test v5.6.2\n# [ pairs: 1 ] [ window size: 64 ]\n# Size                  MB/s        Messages/s\n1                       2.71        2710354.56\n" +
	"# OSU MPI Allreduce Latency Test v7.1\n# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n4                      12.43             11.10             13.87        1000\n" +
	"```\n# OSU OpenSHMEM Put Test v5.0\n# Size          Latency (us)\n1                       1.98\n8192                    6.06\n```\n"

// OMB 7.2 osu_bw -d cuda D D: the data type line under the column header.
const omb7 = "$ mpirun -np 2 osu_bw -d cuda -m 33554432 D D\n# OSU MPI-CUDA Bandwidth Test v7.2\n# Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)\n# Size      Bandwidth (MB/s)\n# Datatype: MPI_CHAR.\n1                       1.01\n65536               15294.18\n33554432            93130.52\n"

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     []struct {
			title, metric string
			cols, rows    int
			stop          string
			collective    bool
		}
	}{
		{"hang", hang, []struct {
			title, metric string
			cols, rows    int
			stop          string
			collective    bool
		}{{"OSU MPI_Accumulate latency Test v5.5", "latency", 1, 2, "<hang>", false}}},
		{"multi", multi, []struct {
			title, metric string
			cols, rows    int
			stop          string
			collective    bool
		}{
			{"OSU MPI Bi-Directional Bandwidth Test v5.6.2", "bandwidth", 1, 2, "", false},
			{"OSU MPI Multiple Bandwidth / Message Rate Test v5.6.2", "bandwidth", 2, 1, "", false},
			{"OSU MPI Allreduce Latency Test v7.1", "latency", 4, 1, "", true},
			{"OSU OpenSHMEM Put Test v5.0", "latency", 1, 2, "", false},
		}},
		{"omb7", omb7, []struct {
			title, metric string
			cols, rows    int
			stop          string
			collective    bool
		}{{"OSU MPI-CUDA Bandwidth Test v7.2", "bandwidth", 1, 3, "", false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tc.in), tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d tables, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Title != w.title || g.Metric() != w.metric || len(g.Columns) != w.cols || len(g.Rows) != w.rows || g.Stop != w.stop || g.Collective() != w.collective {
					t.Errorf("table %d: %q %s %v rows %d stop %q collective %v; want %+v", i, g.Title, g.Metric(), g.Columns, len(g.Rows), g.Stop, g.Collective(), w)
				}
			}
		})
	}
	got, _ := Parse(strings.NewReader(hang), "x")
	if r := got[0].Rows[1]; r.Line != 7 || r.Size != 262144 || r.Values[0] != 161.30 || got[0].StopLine != 8 {
		t.Errorf("row %+v stop line %d", r, got[0].StopLine)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, in := range []string{"", "OSU benchmarks are great\nSize matters\n", "# Size of the job: 4 nodes\n"} {
		if _, err := Parse(strings.NewReader(in), "x"); !errors.Is(err, ErrNoTable) {
			t.Errorf("%q: %v, want ErrNoTable", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(hang)
	f.Add(multi)
	f.Add(omb7)
	f.Add("# Size  Latency (us)\n1 NaN\n2 -1\n3 1e400\n")
	f.Fuzz(func(t *testing.T, s string) {
		tables, err := Parse(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		for _, tb := range tables {
			for _, r := range tb.Rows {
				if len(r.Values) != len(tb.Columns) || r.Size < 0 {
					t.Fatalf("bad row %+v for %v", r, tb.Columns)
				}
			}
			_ = tb.Metric()
		}
	})
}
