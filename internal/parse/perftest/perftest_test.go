package perftest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
	if _, err := ParseAll(strings.NewReader(""), "empty.txt"); !errors.Is(err, ErrNoData) {
		t.Errorf("ParseAll(empty) = %v", err)
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
	// A test that could not start: its command line, then perftest's own
	// message (linux-rdma/perftest#228, "Couldn't connect to …:18515").
	for _, tt := range []struct {
		name, in string
		want     bool
	}{
		{"client cannot reach the server", "```\n# ib_write_bw -d rocep133s0f0 192.168.125.211\nCouldn't connect to 192.168.125.211:18515\nUnable to open file descriptor for socket connection Unable to init the socket connection\n```\n", true},
		{"key exchange failed", "$ ib_read_bw -d mlx4_0 -i 1 10.0.0.2\n\nethernet_read_keys: Couldn't read remote address\n", true},
		{"the message alone is any program's", "Couldn't connect to 10.0.0.2:22\n", false},
		{"too far below the command", "$ ib_write_bw 10.0.0.2\na\nb\nc\nd\nCouldn't connect to 10.0.0.2:18515\n", false},
		{"another program's command", "$ ssh 10.0.0.2\nCouldn't connect to 10.0.0.2:22\n", false},
		// An rdma_cm (-R) client's log, whole, with no command line
		// (tssala23/moc-training-scripts, perftest_gpu_clt_ib_write_bw_…log).
		{"rdma_cm client rejected", "Unexpected CM event bl blka 8\n Unable to perform rdma_client function\n Unable to init the socket connection\nPerftest doesn't supports CUDA tests with inline messages: inline size set to 0\n", true},
	} {
		if got := Detect(tt.in); got != tt.want {
			t.Errorf("%s: Detect = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzParseAll(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, p := range files {
		if filepath.Ext(p) == ".md" {
			continue
		}
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

// TestParseFailures reads the completion errors of runs that died, as
// people paste them (lines from linux-rdma/perftest#173 and
// zrlio/softiwarp#27).
func TestParseFailures(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Failure
	}{
		{"two lines, indented", "Completion with error at client\n  Failed status 4: wr_id 0 syndrom 0x51\nscnt=828, ccnt=700\n  Failed to complete run_iter_bw function successfully\n",
			[]Failure{{Line: 1, Side: "client", Status: 4, Syndrome: "0x51", Text: "Completion with error at client / Failed status 4: wr_id 0 syndrom 0x51"}}},
		{"flattened onto one line", " Completion with error at client Failed status 12: wr_id 0 syndrom 0x81 scnt=128, ccnt=0\n",
			[]Failure{{Line: 1, Side: "client", Status: 12, Syndrome: "0x81", Text: "Completion with error at client Failed status 12: wr_id 0 syndrom 0x81 scnt=128, ccnt=0"}}},
		{"status line alone", "Failed status 13: wr_id 0 syndrom 0x0\n",
			[]Failure{{Line: 1, Status: 13, Syndrome: "0x0", Text: "Failed status 13: wr_id 0 syndrom 0x0"}}},
		{"no status printed", "Completion with error at server\n",
			[]Failure{{Line: 1, Side: "server", Status: -1, Text: "Completion with error at server"}}},
		{"after a banner", "                    RDMA_Write BW Test\n Device         : mlx5_0\n Link type       : IB\nCompletion with error at client\nFailed status 12: wr_id 0 syndrom 0x81\n",
			[]Failure{{Line: 4, Side: "client", Status: 12, Syndrome: "0x81", Text: "Completion with error at client / Failed status 12: wr_id 0 syndrom 0x81"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !Detect(tc.in) {
				t.Errorf("Detect = false")
			}
			rs, err := ParseAll(strings.NewReader(tc.in), "f.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 {
				t.Fatalf("%d results, want 1", len(rs))
			}
			if got := rs[0].Failures; !slices.Equal(got, tc.want) {
				t.Errorf("failures = %+v, want %+v", got, tc.want)
			}
		})
	}
	if Detect("Failed status 12 of the build\n") {
		t.Error("Detect(prose with 'Failed status') = true")
	}
}

// TestParseStartup: perftest's messages when a test cannot start are read
// as one Startup, the first message the cause (lsgunth/perftest#1: the
// port is Down); a banner followed by "Couldn't connect" is one too.
func TestParseStartup(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		detect   bool
		want     []Startup
	}{
		{"port down", " Port number 1 state is Down\n     Couldn't set the link layer\n     Couldn't get context for the device\n", true,
			[]Startup{{Line: 1, Text: "Port number 1 state is Down / Couldn't set the link layer / Couldn't get context for the device", Port: 1, PortState: "Down"}}},
		{"after a banner", "                    RDMA_Write BW Test\n Device         : mlx5_0\n Link type       : IB\n Couldn't connect to 10.0.0.2:18515\n", true,
			[]Startup{{Line: 4, Text: "Couldn't connect to 10.0.0.2:18515"}}},
		// linux-rdma, "RE: RDMA does not work with kernel 4.20 or 5.1"
		// (2019-07-29): ib_write_bw -d mlx5_0 on kernel 5.1.
		{"the device cannot create a QP", "ib_write_bw -d mlx5_0\n************************************\n* Waiting for client to connect... *\n************************************\n" +
			"Couldn't get device attributes\nUnable to create QP.\nFailed to create QP.\nCouldn't create IB resources\n", false,
			[]Startup{{Line: 5, Text: "Couldn't get device attributes / Unable to create QP. / Failed to create QP. / Couldn't create IB resources", Device: true}}},
		{"the test's resources alone", " Couldn't create IB resources\n", false, []Startup{{Line: 1, Text: "Couldn't create IB resources", Device: true}}},
		{"memory registration first is not the device", "Couldn't allocate MR\n Couldn't create IB resources\n", false,
			[]Startup{{Line: 1, Text: "Couldn't allocate MR / Couldn't create IB resources"}}},
		// Mellanox/SparkRDMA#31, the ib_read_bw server: the addresses
		// were exchanged and the results header printed, then the
		// closing exchange failed: the client went away mid-run.
		{"exchange failed mid-run", " RDMA_Read BW Test\n Dual-port       : OFF          Device         : mlx4_0\n Link type       : IB\n Data ex. method : Ethernet\n" +
			"---------------------------------------------------------------------------------------\n" +
			" local address: LID 0x01 QPN 0x0294 PSN 0xd50c26 OUT 0x80 RKey 0x74a0c00 VAddr 0x007f9174aac000\n" +
			" remote address: LID 0x0e QPN 0x025b PSN 0x7122ee OUT 0x80 RKey 0x740e600 VAddr 0x007f0475c4b000\n" +
			"---------------------------------------------------------------------------------------\n" +
			" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n" +
			"ethernet_read_keys: Couldn't read remote address\n Unable to read to socket/rdam_cm\n Failed to exchange data between server and clients\n", true,
			[]Startup{{Line: 10, Text: "ethernet_read_keys: Couldn't read remote address / Unable to read to socket/rdam_cm / Failed to exchange data between server and clients", Midrun: true}}},
		// The same messages before any address was printed: the two
		// ends never agreed on the test (not mid-run).
		{"exchange failed before the addresses", " RDMA_Write BW Test\n Device         : mlx5_0\n Link type       : Ethernet\n Unable to write to socket/rdma_cm\n Failed to exchange data between server and clients\n", true,
			[]Startup{{Line: 4, Text: "Unable to write to socket/rdma_cm / Failed to exchange data between server and clients"}}},
		// linux-rdma, "qperf failure" (Changcheng Liu, 2019-10-28,
		// analyze testdata/realworld-fresh22): qperf's banner, then its
		// error(SYS, …) message (linux-rdma/qperf src/rdma.c).
		{"qperf rc_bw could not bring its QP to RTR", "       [rdma@rdmarhel0 tmp]$ qperf 173.168.100.103 rc_bw\n       rc_bw:\n       failed to modify QP to RTR: Invalid argument\n", true,
			[]Startup{{Line: 3, Text: "failed to modify QP to RTR: Invalid argument"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if Detect(tc.in) != tc.detect {
				t.Errorf("Detect = %v", !tc.detect)
			}
			rs, err := ParseAll(strings.NewReader(tc.in), "f.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 || !slices.Equal(rs[0].Startup, tc.want) {
				t.Errorf("results %+v, want startup %+v", rs, tc.want)
			}
		})
	}
	if Detect("Couldn't connect to the database\n") {
		t.Error("Detect(another program's message) = true")
	}
	if rs, err := ParseAll(strings.NewReader("qperf host rc_bw\nrc_bw:\nfailed to modify QP to RTR: Invalid argument\n"), "f.txt"); err != nil || len(rs) != 1 || rs[0].Test != "qperf rc_bw" {
		t.Errorf("results %+v (%v), want one named qperf rc_bw", rs, err)
	}
	if Detect("qperf host tcp_bw\ntcp_bw:\nfailed to connect\n") {
		t.Error("Detect(qperf's TCP test) = true")
	}
	// The command line before a test that could not start names its device.
	rs, err := ParseAll(strings.NewReader("ib_write_bw -d mlx5_0\nUnable to create QP.\n"), "f.txt")
	if err != nil || len(rs) != 1 || rs[0].Device != "mlx5_0" {
		t.Errorf("results %+v (%v), want one on mlx5_0", rs, err)
	}
}

// TestLatencyOnlyOutput: `--output=latency` makes a latency test print one
// number, t_typical (t_avg with --duration); the command line above it
// says which test it is. The first case is QingCloud's EHPC guide
// (realworld-fresh14): ib_write_lat between two VMs.
func TestLatencyOnlyOutput(t *testing.T) {
	for _, tt := range []struct {
		name, in        string
		test, device    string
		bytes           int64
		typical, avg    float64
		results, detect int
	}{
		{"duration mode, comment between", "[root@node002 ~]# taskset -c 3 ib_write_lat -d mlx5_0 --size=2 --duration=30 --connection=RC --CPU-freq\n \n# client\n" +
			"[root@node001 ~]# taskset -c 3 ib_write_lat --size=2 --duration=30 --connection=RC --CPU-freq --output=latency  10.103.131.116\n1.846569\n \n# result (us)\n1.846569\n",
			"RDMA_Write Latency Test", "", 2, 0, 1.846569, 1, 1},
		{"iterations: the median", "$ ib_send_lat -d mlx5_1 -s 64 --output latency host2\n\n2.31\n", "Send Latency Test", "mlx5_1", 64, 2.31, 0, 1, 1},
		{"a number that does not follow the command is not a result", "$ ib_read_lat --output=latency host2\nCouldn't connect to host2:18515\n2.31\n", "", "", 0, 0, 0, 1, 0},
		{"a bandwidth test's number is not a latency", "$ ib_write_bw --output=bandwidth host2\n93.5\n", "", "", 0, 0, 0, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := latOnlyRuns(tt.in); got != tt.detect {
				t.Errorf("latOnlyRuns = %d, want %d", got, tt.detect)
			}
			rs, err := ParseAll(strings.NewReader(tt.in), "l.txt")
			var lat []*Result
			for _, r := range rs {
				if len(r.Lat) > 0 {
					lat = append(lat, r)
				}
			}
			if tt.test == "" {
				if len(lat) != 0 {
					t.Errorf("latency results %+v, want none (err %v)", lat, err)
				}
				return
			}
			if err != nil || len(lat) != tt.results {
				t.Fatalf("%d latency results, err %v", len(lat), err)
			}
			r, row := lat[0], lat[0].Lat[0]
			if r.Test != tt.test || r.Kind != KindLat || r.Device != tt.device || row.Bytes != tt.bytes {
				t.Errorf("result %+v row %+v", r, row)
			}
			if tt.avg > 0 && (row.Avg == nil || *row.Avg != tt.avg || row.Typical != nil) || tt.typical > 0 && (row.Typical == nil || *row.Typical != tt.typical || row.Avg != nil) {
				t.Errorf("row %+v, want typical %g avg %g", row, tt.typical, tt.avg)
			}
		})
	}
}

// TestCMEvent: an rdma_cm (-R) client that got another event than
// ESTABLISHED ("Unexpected CM event bl blka 8", perftest_communication.c
// rdma_client_connect; the lines of tssala23/moc-training-scripts'
// perftest_gpu_clt_ib_write_bw log) is a test that could not start, with
// the event decoded from librdmacm's enum rdma_cm_event_type.
func TestCMEvent(t *testing.T) {
	for _, tt := range []struct {
		name, in, event string
		num             int
		text            string
	}{
		{"rejected", "Unexpected CM event bl blka 8\n Unable to perform rdma_client function\n Unable to init the socket connection\n",
			"RDMA_CM_EVENT_REJECTED", 8, "Unexpected CM event bl blka 8 / Unable to perform rdma_client function"},
		{"unreachable", "Unexpected CM event bl blka 7\n", "RDMA_CM_EVENT_UNREACHABLE", 7, "Unexpected CM event bl blka 7"},
		{"address stage, old wording", "unexpected CM event 1\n Unable to perform rdma_client function\n", "RDMA_CM_EVENT_ADDR_ERROR", 1, "unexpected CM event 1 / Unable to perform rdma_client function"},
		{"out of the enum", "Unexpected CM event bl blka 42\n", "event 42", 42, "Unexpected CM event bl blka 42"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := ParseAll(strings.NewReader(tt.in), "p")
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 || len(rs[0].Startup) != 1 {
				t.Fatalf("results %+v", rs)
			}
			st := rs[0].Startup[0]
			if st.CMEvent != tt.event || st.CMEventNum != tt.num || st.Text != tt.text || st.Line != 1 {
				t.Errorf("startup %+v, want %s (%d) %q", st, tt.event, tt.num, tt.text)
			}
		})
	}
}

// TestMaskedAddress: the address lines of
// https://github.com/Mellanox/k8s-rdma-sriov-dev-plugin/issues/32 mask
// the QPN and PSN ("LID 0000 xxx"); the endpoints and their GIDs are still
// read, masked QPNs left empty.
func TestMaskedAddress(t *testing.T) {
	const banner = "                    RDMA_Write BW Test\n" +
		" Link type       : Ethernet\n GID index       : 0\n" +
		"---------------------------------------------------------------------------------------\n"
	const zero = "00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00"
	for _, tt := range []struct {
		name, in                      string
		localQPN, localGID, remoteGID string
	}{
		{"masked", banner + " local address: LID 0000 xxx\n GID: " + zero + "\n remote address: LID 0000 xxx\n GID: " + zero + "\n", "", zero, zero},
		{"whole", banner + " local address: LID 0000 QPN 0x0108 PSN 0x4e1a2b RKey 0x000508 VAddr 0x007f2c\n GID: " + zero + "\n remote address: LID 0000 QPN 0x0109 PSN 0x1b2c3d RKey 0x000608 VAddr 0x007f3d\n GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:0:0:2\n", "0x0108", zero, "00:00:00:00:00:00:00:00:00:00:255:255:10:0:0:2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := ParseAll(strings.NewReader(tt.in), "t")
			if err != nil {
				t.Fatal(err)
			}
			r := rs[0]
			if r.Local == nil || r.Remote == nil {
				t.Fatalf("endpoints not read: local %v remote %v", r.Local, r.Remote)
			}
			if r.Local.QPN != tt.localQPN || r.Local.GID != tt.localGID || r.Remote.GID != tt.remoteGID || r.LinkType != "Ethernet" {
				t.Errorf("local %+v remote %+v link %q", *r.Local, *r.Remote, r.LinkType)
			}
		})
	}
}
