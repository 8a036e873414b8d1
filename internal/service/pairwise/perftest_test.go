package pairwise

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func intp(i int) *int { return &i }

func TestPerftestArgs(t *testing.T) {
	bw := Test{Backend: BackendPerftest, Kind: KindBW, DurationMS: 2500, Perftest: &PerftestParams{Device: "mlx5_0", IBPort: 1, GIDIndex: intp(3)}}.WithDefaults()
	lat := Test{Backend: BackendPerftest, Kind: KindLat, DurationMS: 1000, Perftest: &PerftestParams{Device: "rocep1s0f1"}}.WithDefaults()
	with := func(t Test, f func(*Test)) Test {
		p := *t.Perftest
		t.Perftest = &p
		f(&t)
		return t
	}
	tests := []struct {
		name    string
		t       Test
		port    int
		peer    string
		want    []string
		wantErr string
	}{
		{name: "bw server", t: bw, port: 18515,
			want: []string{"ib_write_bw", "-d", "mlx5_0", "-i", "1", "-x", "3", "-s", "65536", "-D", "3", "-q", "1", "-p", "18515", "--report_gbits", "-F"}},
		{name: "bw client", t: bw, port: 18515, peer: "10.0.0.2",
			want: []string{"ib_write_bw", "-d", "mlx5_0", "-i", "1", "-x", "3", "-s", "65536", "-D", "3", "-q", "1", "-p", "18515", "--report_gbits", "-F", "10.0.0.2"}},
		{name: "lat client", t: lat, port: 20000, peer: "gpu002.cluster",
			want: []string{"ib_write_lat", "-d", "rocep1s0f1", "-i", "1", "-s", "2", "-n", "1000", "-p", "20000", "-F", "gpu002.cluster"}},
		{name: "no settings", t: Test{Backend: BackendPerftest, Kind: KindBW, Size: 2}, port: 18515, wantErr: "needs perftest settings"},
		{name: "shell in device", t: with(bw, func(t *Test) { t.Perftest.Device = "mlx5_0;reboot" }), port: 18515, wantErr: "device"},
		{name: "option as device", t: with(bw, func(t *Test) { t.Perftest.Device = "-h" }), port: 18515, wantErr: "device"},
		{name: "space in device", t: with(bw, func(t *Test) { t.Perftest.Device = "mlx5 0" }), port: 18515, wantErr: "device"},
		{name: "empty device", t: with(bw, func(t *Test) { t.Perftest.Device = "" }), port: 18515, wantErr: "device"},
		{name: "long device", t: with(bw, func(t *Test) { t.Perftest.Device = strings.Repeat("m", 65) }), port: 18515, wantErr: "device"},
		{name: "ib port", t: with(bw, func(t *Test) { t.Perftest.IBPort = 256 }), port: 18515, wantErr: "port 256"},
		{name: "negative port", t: with(bw, func(t *Test) { t.Perftest.IBPort = -1 }), port: 18515, wantErr: "port -1"},
		{name: "gid", t: with(bw, func(t *Test) { t.Perftest.GIDIndex = intp(256) }), port: 18515, wantErr: "GID index 256"},
		{name: "size", t: with(bw, func(t *Test) { t.Size = 1 << 31 }), port: 18515, wantErr: "size"},
		{name: "tcp port", t: bw, port: 70000, wantErr: "TCP port 70000"},
		{name: "iterations", t: with(lat, func(t *Test) { t.Iterations = 2 }), port: 18515, wantErr: "iterations"},
		{name: "peer shell", t: bw, port: 18515, peer: "10.0.0.1;id", wantErr: "peer"},
		{name: "peer option", t: bw, port: 18515, peer: "-a", wantErr: "peer"},
		{name: "peer backtick", t: bw, port: 18515, peer: "`id`", wantErr: "peer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := perftestArgs(tt.t, tt.port, tt.peer)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestParsePerftest(t *testing.T) {
	tests := []struct {
		file    string
		want    Result
		wantErr bool
	}{
		{file: "ib_write_bw_bnxt_D10.txt", want: Result{BitsPerSecond: 363.47e9, Bytes: 65536 * 4159603, Samples: 4159603}},
		{file: "ib_write_bw_spark_q4.txt", want: Result{BitsPerSecond: 111.71e9, Bytes: 65536 * 20000, Samples: 20000}},
		{file: "ib_write_lat_spark.txt", want: Result{LatencyMedianUS: 1.47, LatencyP99US: 1.57, Samples: 1000}},
		{file: "server_waiting.txt", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := parsePerftest(strings.NewReader(readTestdata(t, "perftest/"+tt.file)), tt.file)
			if tt.wantErr {
				if err == nil || !strings.HasPrefix(err.Error(), tt.file) {
					t.Fatalf("err = %v, want an error naming %s", err, tt.file)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
	bad := []struct{ in, want string }{
		{" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 65536      1000   0.00   x1.0   0.1\n", "out line 1: malformed line: no result row"},
		{"                    RDMA_Write BW Test\n Device         : mlx5_0\n", "out line 1: malformed line: no result row"},
		// perftest's start-up failure: its message, not "no output".
		{"Couldn't connect to 10.0.0.2:18515\nUnable to open file descriptor for socket connection\n", "out line 1: malformed line: the test could not start: Couldn't connect to 10.0.0.2:18515"},
		{"just text\n", "out: no perftest output"},
	}
	for _, b := range bad {
		_, err := parsePerftest(strings.NewReader(b.in), "out")
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("parsePerftest(%q) = %v, want %q", b.in, err, b.want)
		}
	}
	// MB/sec without --report_gbits: perftest's MB is 2^20 bytes.
	got, err := parsePerftest(strings.NewReader(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n 65536      1000           0.00               11000.00             0.17\n"), "mb")
	if want := 11000.0 * 8 * (1 << 20); err != nil || math.Abs(got.BitsPerSecond-want) > 1 {
		t.Errorf("MB/sec: %v, %v", got, err)
	}
}

// FuzzParsePerftest: no panic; a result is never negative; an error is a
// ParseError with a line, or a scanner error.
func FuzzParsePerftest(f *testing.F) {
	for _, n := range []string{"ib_write_bw_bnxt_D10.txt", "ib_write_bw_spark_q4.txt", "ib_write_lat_spark.txt", "server_waiting.txt"} {
		f.Add(readTestdata(f, "perftest/"+n))
	}
	f.Fuzz(func(t *testing.T, in string) {
		r, err := parsePerftest(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if r.BitsPerSecond < 0 || r.LatencyMedianUS < 0 || r.LatencyP99US < 0 || r.Bytes < 0 {
			t.Fatalf("negative result %+v", r)
		}
	})
}
