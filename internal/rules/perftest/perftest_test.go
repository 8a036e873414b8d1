package perftest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

func parseFile(t *testing.T, name string) []*Result {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := ParseAll(f, name)
	if err != nil {
		t.Fatalf("ParseAll(%s): %v", name, err)
	}
	return rs
}

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+"/"+string(f.Severity))
	}
	return out
}

func TestCorpus(t *testing.T) {
	tests := []struct {
		file    string
		opts    Options
		tests   []string // Test titles
		want    []string
		skipped int
		notes   []string
	}{
		{file: "ndr-cx7-session.txt", opts: Options{LineRateGbps: 400},
			tests: []string{"Send BW Test", "Send Latency Test", "RDMA_Read BW Test", "RDMA_Write BW Test"},
			want:  []string{"perf.bw_low/warning"}}, // ib_read_bw 328.61 of 400 = 82%
		{file: "ndr-cx7-session.txt", opts: Options{LineRateGbps: 400, MaxLatencyUS: 1.0},
			tests: []string{"Send BW Test", "Send Latency Test", "RDMA_Read BW Test", "RDMA_Write BW Test"},
			want:  []string{"perf.bw_low/warning", "perf.lat_high/warning"}},
		{file: "ndr-cx7-session.txt", opts: Options{},
			tests: []string{"Send BW Test", "Send Latency Test", "RDMA_Read BW Test", "RDMA_Write BW Test"},
			notes: []string{"bandwidth not judged"}},
		{file: "perftest273-postlist-8b.txt", opts: Options{LineRateGbps: 100},
			tests: []string{"RDMA_Write Post List BW Test"}, want: []string{"perf.test_invalid/info"}},
		{file: "perftest234-roce-mbs-cut.txt", opts: Options{LineRateGbps: 100},
			tests: []string{"RDMA_Write BW Test"}, skipped: 1, notes: []string{"has no result row", "skipped: perftest234-roce-mbs-cut.txt:26"}},
		{file: "perftest132-write-a-gbits-cut.txt", opts: Options{LineRateGbps: 100},
			tests: []string{"RDMA_Write BW Test"}, skipped: 1, want: []string{"perf.test_invalid/info"}},
		// The row "16 5000 0.34" (cut after BW peak) has 3 columns: skipped, never read as a 4-column old row.
		{file: "ucx8851-read-a-mbs-cut.txt", tests: []string{"RDMA_Read BW Test"}, skipped: 0, want: []string{"perf.test_invalid/info"}},
		{file: "perftest214-hdr-banner-indented.txt", tests: []string{"RDMA_Write BW Test"}, notes: []string{"has no result row"}},
		{file: "roce-read-lat-rdmacm.txt", tests: []string{"RDMA_Read Latency Test"}},
		{file: "rxe-send-lat.txt", tests: []string{"Send Latency Test"}},
		{file: "rxe-send-lat.txt", opts: Options{MaxLatencyUS: 2}, tests: []string{"Send Latency Test"}, want: []string{"perf.lat_high/warning"}},
		{file: "ngc108-bidir-cut.txt", tests: []string{"RDMA_Write Bidirectional BW Test"}, notes: []string{"has no result row"}},
		{file: "pib4-atomic-old.txt", tests: []string{"Atomic CMP_AND_SWAP BW Test"}, want: []string{"perf.test_invalid/info"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rs := parseFile(t, tt.file)
			var titles []string
			skipped := 0
			for _, r := range rs {
				titles = append(titles, r.Test)
				skipped += len(r.Skipped)
			}
			if diff := cmp.Diff(tt.tests, titles); diff != "" {
				t.Errorf("tests (-want +got):\n%s", diff)
			}
			if skipped != tt.skipped {
				t.Errorf("skipped = %d, want %d", skipped, tt.skipped)
			}
			a := Analyze(rs, tt.opts)
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%+v", diff, a.Findings)
			}
			for _, n := range tt.notes {
				if !slices.ContainsFunc(a.Notes, func(s string) bool { return strings.Contains(s, n) }) {
					t.Errorf("no note contains %q: %q", n, a.Notes)
				}
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	rs := parseFile(t, "ndr-cx7-session.txt")
	send := rs[0]
	if send.Unit != "MiB/sec" || len(send.BW) != 1 || send.Device != "mlx5_0" || send.MTU != 4096 || send.LinkType != "IB" || send.Verb != "send" {
		t.Fatalf("send = %+v", send)
	}
	// 46557.03 MiB/s = 46557.03 × 2^20 × 8 / 10^9 Gb/s.
	if got := send.BW[0].AvgGbps; got < 390.54 || got > 390.56 {
		t.Errorf("MiB/s conversion = %v, want 390.55", got)
	}
	lat := rs[1]
	row := lat.Lat[0]
	if row.Bytes != 2 || row.Iterations != 1000 || *row.Min != 1.24 || *row.Typical != 1.27 || *row.P999 != 5.19 || row.Line != 49 {
		t.Errorf("lat row = %+v", row)
	}
	if len(lat.Warnings) != 2 {
		t.Errorf("warnings = %q", lat.Warnings)
	}
	w := rs[3]
	if w.Local.QPN != "0x004a" || w.Remote.LID != "0x02" || w.BW[0].AvgGbps != 392.34 || w.Kind != KindBW {
		t.Errorf("write = %+v %+v", w.Local, w.BW)
	}
	roce := parseFile(t, "perftest234-roce-mbs-cut.txt")[0]
	if roce.GIDIndex == nil || *roce.GIDIndex != 3 || roce.Local.GID != "00:00:00:00:00:00:00:00:00:00:255:255:10:255:255:05" || roce.Remote.GID == "" {
		t.Errorf("roce = %+v %+v", roce.Local, roce.Remote)
	}
	bidir := parseFile(t, "ngc108-bidir-cut.txt")[0]
	if !bidir.Bidirectional || !bidir.PeakNotMeasured || bidir.QPs != 2 {
		t.Errorf("bidir = %+v", bidir)
	}
}

// Rule cases built on the real NDR ib_write_bw output with one value
// changed, and on the indented HDR banner (a link-local GID on IB is fine;
// the same GID on a RoCE port is not).
func TestRules(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "ndr-cx7-session.txt"))
	if err != nil {
		t.Fatal(err)
	}
	write := string(data[strings.Index(string(data), "vyl@csegpu1:~$ ib_write_bw"):])
	hdr, err := os.ReadFile(filepath.Join("testdata", "perftest214-hdr-banner-indented.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   []string
		opts Options
		want []string
	}{
		{"ndr healthy", []string{write}, Options{LineRateGbps: 400}, nil},
		{"rate of the banner's device", []string{write}, Options{DeviceRateGbps: map[string]float64{"mlx5_0": 800}}, []string{"perf.bw_low/critical"}},
		{"other device's rate does not apply", []string{write}, Options{DeviceRateGbps: map[string]float64{"mlx5_1": 800}}, nil},
		{"ndr on half width", []string{strings.Replace(write, "392.38             392.34", "196.38             196.34", 1)}, Options{LineRateGbps: 400},
			[]string{"perf.bw_low/critical"}},
		{"ndr bidirectional counts both ways", []string{strings.Replace(write, "RDMA_Write BW Test", "RDMA_Write Bidirectional BW Test", 1)}, Options{LineRateGbps: 400},
			[]string{"perf.bw_low/critical"}},
		{"ib link-local gid is normal", []string{string(hdr)}, Options{}, nil},
		{"roce link-local gid", []string{strings.Replace(string(hdr), "Link type       : IB", "Link type       : Ethernet", 1)}, Options{},
			[]string{"perf.test_invalid/warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs []*Result
			for i, in := range tt.in {
				r, err := ParseAll(strings.NewReader(in), "in"+string(rune('0'+i)))
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r...)
			}
			a := Analyze(rs, tt.opts)
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%+v", diff, a.Findings)
			}
		})
	}
}

// Two ends of one test: the server's banner mirrors the client's QPNs.
func TestMTUMismatch(t *testing.T) {
	client := " RDMA_Write BW Test\n Mtu             : 4096[B]\n Link type       : IB\n" +
		" local address: LID 0x01 QPN 0x004a PSN 0xbe352e\n remote address: LID 0x02 QPN 0x0049 PSN 0x4601da\n"
	server := " RDMA_Write BW Test\n Mtu             : 2048[B]\n Link type       : IB\n" +
		" local address: LID 0x02 QPN 0x0049 PSN 0x4601da\n remote address: LID 0x01 QPN 0x004a PSN 0xbe352e\n"
	other := strings.Replace(server, "0x0049", "0x0050", 2)
	for _, tc := range []struct {
		peer string
		want []string
	}{{server, []string{"perf.test_invalid/warning"}}, {other, nil}} {
		a, _ := ParseAll(strings.NewReader(client), "client.txt")
		b, _ := ParseAll(strings.NewReader(tc.peer), "server.txt")
		got := Analyze(append(a, b...), Options{})
		if diff := cmp.Diff(tc.want, ids(got.Findings)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}

func TestParseErrors(t *testing.T) {
	_, err := ParseAll(strings.NewReader("nothing here\n"), "x.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrNoData) || pe.Source != "x.txt" {
		t.Errorf("err = %v", err)
	}
	old, err := ParseAll(strings.NewReader(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]\n 65536      5000           3153.64            3153.56\n"), "old.txt")
	if err != nil || len(old[0].BW) != 1 || old[0].BW[0].MsgRateMpps != nil || old[0].BW[0].Bytes != 65536 {
		t.Errorf("old 4-column row: %+v %v", old, err)
	}
	rs, err := ParseAll(strings.NewReader(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 65536 5000 1.0 -3.0 0.1\n"), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs[0].BW) != 0 || len(rs[0].Skipped) != 1 || rs[0].Skipped[0].Line != 2 {
		t.Errorf("negative bandwidth not skipped: %+v", rs[0])
	}
	if _, err := Parse(strings.NewReader("")); !errors.Is(err, ErrNoData) {
		t.Errorf("Parse(empty) = %v", err)
	}
}

func TestDetect(t *testing.T) {
	for _, f := range []string{"ndr-cx7-session.txt", "rxe-send-lat.txt", "perftest214-hdr-banner-indented.txt"} {
		b, _ := os.ReadFile(filepath.Join("testdata", f))
		if !Detect(string(b)) {
			t.Errorf("Detect(%s) = false", f)
		}
	}
	if Detect("# nThread 1 nGpus 8 minBytes 8") {
		t.Error("Detect(nccl-tests) = true")
	}
}

func TestArgs(t *testing.T) {
	gid := func(v int) *int { return &v }
	tests := []struct {
		name    string
		o       ArgsOptions
		want    []string
		wantErr string
	}{
		{"server bw", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0"}, []string{"ib_write_bw", "-d", "mlx5_0", "--report_gbits", "-F"}, ""},
		{"client bw all flags", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0", Port: 1, GIDIndex: gid(3), Size: 1 << 20, DurationS: 10, QPs: 4, TCPPort: 18515, Server: "10.0.0.2"},
			[]string{"ib_write_bw", "-d", "mlx5_0", "-i", "1", "-x", "3", "-s", "1048576", "-D", "10", "-q", "4", "-p", "18515", "--report_gbits", "-F", "10.0.0.2"}, ""},
		{"client lat by name", ArgsOptions{Tool: ToolWriteLat, Device: "mlx5_bond_0", Iterations: 10000, Server: "gpu017.cluster.local"},
			[]string{"ib_write_lat", "-d", "mlx5_bond_0", "-n", "10000", "-F", "gpu017.cluster.local"}, ""},
		{"ipv6 server", ArgsOptions{Tool: ToolSendBW, Device: "mlx5_1", Server: "fe80::1"}, []string{"ib_send_bw", "-d", "mlx5_1", "--report_gbits", "-F", "fe80::1"}, ""},
		{"unknown tool", ArgsOptions{Tool: "rm", Device: "mlx5_0"}, nil, "not one of"},
		{"device injection", ArgsOptions{Tool: ToolWriteBW, Device: "-h"}, nil, "not an RDMA device name"},
		{"device with space", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0 --foo"}, nil, "not an RDMA device name"},
		{"port 3", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0", Port: 3}, nil, "port 3"},
		{"gid 256", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0", GIDIndex: gid(256)}, nil, "GID index 256"},
		{"size 0 bytes negative", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0", Size: -1}, nil, "message size"},
		{"size too big", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0", Size: 2 << 30}, nil, "message size"},
		{"duration and iterations", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0", DurationS: 5, Iterations: 100}, nil, "not both"},
		{"duration too long", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0", DurationS: 7200}, nil, "duration"},
		{"qps on lat", ArgsOptions{Tool: ToolWriteLat, Device: "mlx5_0", QPs: 2}, nil, "bandwidth tests"},
		{"server option injection", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0", Server: "-x"}, nil, "neither an IP"},
		{"server with shell", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0", Server: "a;reboot"}, nil, "neither an IP"},
		{"low tcp port", ArgsOptions{Tool: ToolWriteBW, Device: "mlx5_0", TCPPort: 22}, nil, "TCP port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Args(tt.o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseAll(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		rs, err := ParseAll(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, r := range rs {
			for _, b := range r.BW {
				if b.AvgGbps < 0 || b.PeakGbps < 0 || b.Bytes < 0 {
					t.Fatalf("negative row %+v", b)
				}
			}
		}
		Analyze(rs, Options{LineRateGbps: 200})
	})
}

func BenchmarkParseAll(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "ndr-cx7-session.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseAll(strings.NewReader(string(data)), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCheck(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "perftest273-postlist-8b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fs, _, err := Check(strings.NewReader(string(b)), "x.txt", Options{LineRateGbps: 100})
	if err != nil || len(fs) != 1 || fs[0].ID != "perf.test_invalid" {
		t.Errorf("Check = %v, %v", fs, err)
	}
	if _, _, err := Check(strings.NewReader("hello"), "x.txt", Options{}); !errors.Is(err, ErrNoData) {
		t.Errorf("Check(junk) = %v", err)
	}
}

func TestParseJSON(t *testing.T) {
	rs := parseFile(t, "k8s-e2e-write-bw.json")
	r := rs[0]
	if r.Test != "RDMA Write BW Test" || r.Device != "mlx5_11" || r.MTU != 1024 || r.LinkType != "Ethernet" || *r.GIDIndex != 1 || r.Unit != "MiB/sec" || r.Verb != "write" {
		t.Fatalf("result = %+v", r)
	}
	// 2229.27 MiB/s = 18.70 Gb/s; MsgRate × MsgSize agrees.
	if got := r.BW[0].AvgGbps; got < 18.69 || got > 18.71 {
		t.Errorf("avg = %v Gb/s", got)
	}
	a := Analyze(rs, Options{LineRateGbps: 25})
	if diff := cmp.Diff([]string{"perf.bw_low/critical"}, ids(a.Findings)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"results": {"MsgSize": 65536, "n_iterations": 5000, "BW_average": 99, "MsgRate": 0.035668}}`, "fits neither"},
		{`{"results": {"MsgSize": 65536}}`, "only bandwidth reports"},
		{"{\n  \"test_info\": {\n    \"test\": RDMA_Write_BW_Test,\n", "line 3"},
	} {
		_, err := ParseAll(strings.NewReader(tc.in), "j.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseAll(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
	gb := `{"test_info": {"test": "RDMA_Write_BW_Test"}, "results": {"MsgSize": 65536, "n_iterations": 5000, "BW_peak": 18.70, "BW_average": 18.69, "MsgRate": 0.035668}}`
	g, err := ParseAll(strings.NewReader(gb), "g.json")
	if err != nil || g[0].Unit != "Gb/sec" || g[0].BW[0].AvgGbps != 18.69 {
		t.Errorf("Gb/s JSON = %+v, %v", g, err)
	}
}
