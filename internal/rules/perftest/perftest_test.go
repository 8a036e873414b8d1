package perftest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/perftest"
)

// testdata is the perftest corpus; its README says what each file must
// produce.
const testdata = "../../parse/perftest/testdata/"

func parseFile(t *testing.T, name string) []*perftest.Result {
	t.Helper()
	f, err := os.Open(testdata + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := perftest.ParseAll(f, name)
	if err != nil {
		t.Fatalf("perftest.ParseAll(%s): %v", name, err)
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
		{file: "k8srdmashared112-roce-gid-zero-rtr.txt", tests: []string{"RDMA_Write BW Test"}, want: []string{"perf.test_invalid/critical"}},
		{file: "k8s-e2e-write-bw.json", opts: Options{LineRateGbps: 25}, tests: []string{"RDMA Write BW Test"}, want: []string{"perf.bw_low/critical"}},
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
			a := Check(rs, tt.opts)
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

// Rule cases built on the real NDR ib_write_bw output with one value
// changed, and on the indented HDR banner (a link-local GID on IB is fine;
// the same GID on a RoCE port is not).
func TestRules(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testdata, "ndr-cx7-session.txt"))
	if err != nil {
		t.Fatal(err)
	}
	write := string(data[strings.Index(string(data), "vyl@csegpu1:~$ ib_write_bw"):])
	hdr, err := os.ReadFile(filepath.Join(testdata, "perftest214-hdr-banner-indented.txt"))
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
		// perftest could not start (lsgunth/perftest#1; a peer not reached).
		{"local port down", []string{" Port number 1 state is Down\n     Couldn't set the link layer\n     Couldn't get context for the device\n"}, Options{},
			[]string{"perf.test_invalid/critical"}},
		{"peer not reached", []string{" Couldn't connect to 10.0.0.2:18515\n"}, Options{}, []string{"perf.test_invalid/warning"}},
		// linux-rdma, "RE: RDMA does not work with kernel 4.20 or 5.1"
		// (2019-07-29): the device cannot create a QP, whatever the peer.
		{"local device cannot create a QP", []string{"Couldn't get device attributes\nUnable to create QP.\nFailed to create QP.\nCouldn't create IB resources\n"}, Options{},
			[]string{"perf.test_invalid/critical"}},
		{"memory registration failed first", []string{"Couldn't allocate MR\n Couldn't create IB resources\n"}, Options{}, []string{"perf.test_invalid/warning"}},
		// Mellanox/SparkRDMA#31: the ib_read_bw server exchanged the
		// addresses and printed the results header, then lost the
		// client: the run died (critical); the same exchange failing
		// before the addresses is a test that did not start (warning).
		{"exchange failed mid-run", []string{midrunServer}, Options{}, []string{"perf.test_invalid/critical"}},
		{"exchange failed after a completion error", []string{strings.Replace(midrunServer, "ethernet_read_keys:", "Completion with error at server\nFailed status 12: wr_id 0 syndrom 0x81\nethernet_read_keys:", 1)}, Options{},
			[]string{"perf.test_invalid/critical"}},
		{"exchange failed before the addresses", []string{" RDMA_Write BW Test\n Device         : mlx5_0\n Unable to write to socket/rdma_cm\n Failed to exchange data between server and clients\n"}, Options{},
			[]string{"perf.test_invalid/warning"}},
		{"roce link-local gid", []string{strings.Replace(string(hdr), "Link type       : IB", "Link type       : Ethernet", 1)}, Options{},
			[]string{"perf.test_invalid/warning"}},
		// An all-zero RoCE GID (Mellanox/k8s-rdma-shared-dev-plugin#112):
		// the test cannot connect; with rows it still ran (a warning); on
		// IB a GID is not needed.
		{"roce zero gid, rtr failed", []string{gidZero}, Options{}, []string{"perf.test_invalid/critical"}},
		{"roce zero gid, rows measured", []string{strings.Replace(gidZero, "Failed to modify QP 218 to RTR\n Unable to Connect the HCA's through the link\n", "", 1) + collapseRows}, Options{}, []string{"perf.bw_low/warning", "perf.test_invalid/warning"}},
		{"ib zero gid is not roce", []string{strings.Replace(gidZero, "Link type       : Ethernet", "Link type       : IB", 1)}, Options{}, []string{"perf.test_invalid/critical"}}, // the RTR failure alone
		{"roce real gids, rtr failed", []string{strings.ReplaceAll(gidZero, "GID: 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00", "GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:56:217:72")}, Options{}, []string{"perf.test_invalid/critical"}},
		{"roce remote gid zero", []string{strings.Replace(gidZero, "GID: 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00", "GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:56:217:72", 1)}, Options{}, []string{"perf.test_invalid/critical"}},
		// Runs that died (linux-rdma/perftest#173, zrlio/softiwarp#27).
		{"status 4: local protection", []string{"Completion with error at client\n  Failed status 4: wr_id 0 syndrom 0x51\nscnt=828, ccnt=700\n"}, Options{},
			[]string{"perf.test_invalid/critical"}},
		// ib_read_lat -a on mlx4 FDR (realworld-fresh30 perftest-stored4813606115-mlx4-fdr-read-lat-status10-cut.txt).
		{"status 10: remote access", []string{"Completion with error at client\nFailed status 10: wr_id 0 syndrom 0x88\n"}, Options{},
			[]string{"perf.test_invalid/critical"}},
		{"status 5 alone: a flush", []string{"Completion with error at client\nFailed status 5: wr_id 0 syndrom 0xf9\n"}, Options{},
			[]string{"perf.test_invalid/warning"}},
		{"status 12 flattened: retry exceeded", []string{" Completion with error at client Failed status 12: wr_id 0 syndrom 0x81 scnt=128, ccnt=0\n"}, Options{},
			[]string{"perf.test_invalid/critical"}},
		{"died after some rows", []string{write + "Completion with error at client\nFailed status 12: wr_id 0 syndrom 0x81\n"}, Options{LineRateGbps: 400},
			[]string{"perf.test_invalid/critical"}},
		// Soft-RoCE ib_read_bw -a on 1 GbE (linux-rdma, "RDMA-rxe: Allow
		// retry sends for rdma read responses", 2023-02-15), MB/sec rows:
		// 110.37 MB/s (0.93 Gb/s) up to 1 MiB, then 24.10 .. 17.82.
		{"collapse at large sizes, line rate given", []string{collapseRows}, Options{LineRateGbps: 1}, []string{"perf.bw_low/critical"}},
		{"collapse without a line rate", []string{collapseRows}, Options{}, []string{"perf.bw_low/warning"}},
		{"flat plateau (after the fix)", []string{flatRows}, Options{LineRateGbps: 1}, nil},
		{"soft device latency is the CPU's", []string{rxeLat}, Options{}, nil},
		// Soft-RoCE between two VirtualBox nodes (realworld-fresh38
		// perftest-limenlab-rxe-send-bw-3mbs-lat-700us.txt, a student lab
		// report "R5 Measure the Fabric"): 3.06 MB/sec at 64 KiB and
		// 692/724 us for 2 B, where rxe over 1 GbE moves 110 MB/sec and
		// answers in tens of us. No line rate is needed to call it broken.
		{"rxe 3 MB/sec at 64 KiB, no line rate", []string{limenBW}, Options{}, []string{"perf.bw_low/warning"}},
		{"rxe 3 MB/sec at 64 KiB, line rate given", []string{limenBW}, Options{LineRateGbps: 1}, []string{"perf.bw_low/critical"}},
		{"13 MB/sec is above the floor", []string{strings.Replace(limenBW, "3.06  ", "13.06 ", 1)}, Options{}, nil},
		{"Gb/sec rows under the floor", []string{strings.NewReplacer("[MB/sec]", "[Gb/sec]", "0.00               3.06", "0.00               0.03").Replace(limenBW)}, Options{}, []string{"perf.bw_low/warning"}},
		{"Gb/sec rows above the floor", []string{strings.NewReplacer("[MB/sec]", "[Gb/sec]", "0.00               3.06", "0.00               0.93").Replace(limenBW)}, Options{}, nil},
		{"slow small messages only are not judged", []string{strings.Replace(limenBW, " 65536  ", " 4096   ", 1)}, Options{}, []string{"perf.test_invalid/info"}},
		{"rxe 724 us for 2 B", []string{limenLatClient}, Options{}, []string{"perf.lat_high/warning"}},
		{"rxe 95 us for 2 B is not judged", []string{strings.Replace(limenLatClient, "724.36 ", "95.36  ", 1)}, Options{}, nil},
		{"rxe 724 us for 64 KiB is not small", []string{strings.Replace(limenLatClient, "\n 2       1000", "\n 65536   1000", 1)}, Options{}, nil},
		{"--max-latency wins over the ceiling", []string{limenLatClient}, Options{MaxLatencyUS: 1000}, nil},
		// The server's row came through glued ("2465.901216.65", 8
		// columns) and was skipped: the client's row is judged, not
		// dropped as the other end of a run that judged nothing.
		{"server row malformed, client judged", []string{limenLatServer + limenLatClient}, Options{}, []string{"perf.lat_high/warning"}},
		// Server and client blocks of one run pasted one after the other.
		{"server and client tables counted once", []string{" RDMA_Read BW Test\n" + collapseRows + "\n RDMA_Read BW Test\n" + collapseRows}, Options{LineRateGbps: 1}, []string{"perf.bw_low/critical"}},
		{"two different runs both judged", []string{" RDMA_Read BW Test\n" + collapseRows + "\n RDMA_Read BW Test\n" + strings.Replace(collapseRows, "17.82", "17.00", 1)}, Options{LineRateGbps: 1}, []string{"perf.bw_low/critical", "perf.bw_low/critical"}},
		// linux-rdma/perftest#130: --run_infinitely intervals of one
		// ib_send_bw client, pasted without column titles, swing from
		// 1539 to 519 MB/s (two clients into one ConnectX-5 RoCE port).
		{"intervals swing, no line rate", []string{swingRows}, Options{}, []string{"perf.bw_low/warning"}},
		{"intervals swing under the line rate", []string{swingRows}, Options{LineRateGbps: 25}, []string{"perf.bw_low/critical"}},
		{"steady intervals", []string{strings.Replace(swingRows, "519.20 \t\t   0.000130", "1519.20\t\t   0.000380", 1)}, Options{}, nil},
		{"a sweep has one row per size", []string{flatRows}, Options{}, nil},
		{"hardware device latency", []string{strings.Replace(rxeLat, "rxe0", "mlx5_0", 1)}, Options{}, []string{"perf.lat_high/critical"}},
		// A latency table without its banner (linux-rdma, "Re: Soft-RoCE
		// performance", 2022-02-11): neither verb nor link type is known,
		// so the slowest floor (read over Ethernet, 4 us) applies; 1.84 us
		// is normal for a RoCE write, 31 us is high on any link.
		{"no banner, 1.84 us", []string{bareLat}, Options{}, nil},
		{"no banner, 31 us", []string{strings.Replace(bareLat, "1.84     ", "31.05    ", 1)}, Options{}, []string{"perf.lat_high/critical"}},
		{"IB write at 1.84 us", []string{" RDMA_Write Latency Test\n Link type       : IB\n" + bareLat}, Options{}, []string{"perf.lat_high/warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs []*perftest.Result
			for i, in := range tt.in {
				r, err := perftest.ParseAll(strings.NewReader(in), "in"+string(rune('0'+i)))
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r...)
			}
			a := Check(rs, tt.opts)
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%+v", diff, a.Findings)
			}
		})
	}
}

// TestPeerNotReached: a client that cannot open the key exchange's TCP
// connection (linux-rdma/perftest#228, "Couldn't connect to
// 192.168.125.211:18515") is told about the server side and the port,
// not about MTUs and GID indexes: nothing RDMA was tried.
func TestPeerNotReached(t *testing.T) {
	in := "# ib_write_bw -d rocep133s0f0 192.168.125.211\nCouldn't connect to 192.168.125.211:18515\nUnable to open file descriptor for socket connection Unable to init the socket connection\n"
	rs, err := perftest.ParseAll(strings.NewReader(in), "p")
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(rs, Options{}).Findings
	if len(fs) != 1 || fs[0].ID != "perf.test_invalid" || fs[0].Severity != "warning" {
		t.Fatalf("findings %+v", fs)
	}
	f := fs[0]
	if !strings.Contains(f.Summary, "TCP connection") || !strings.Contains(f.Summary, "192.168.125.211:18515") {
		t.Errorf("summary %q", f.Summary)
	}
	if r := strings.Join(f.Remedy, " | "); !strings.Contains(r, "server side") || !strings.Contains(r, "-p PORT") || strings.Contains(r, "GID") {
		t.Errorf("remedy %q", r)
	}
}

// TestModifyQPToRTR: a test whose queue pair could not reach RTR sent
// nothing and shows the two ports cannot connect with these settings: a
// critical naming the causes ibv_modify_qp rejects (GID index, port down,
// path MTU), for perftest's and qperf's wording alike (linux-rdma "qperf
// failure", 2019-10-28, analyze testdata/realworld-fresh22; Mooncake
// issue 166's ib_send_bw, realworld-fresh40).
func TestModifyQPToRTR(t *testing.T) {
	for _, tt := range []struct{ name, in, test string }{
		{"qperf", "[rdma@rdmarhel0 tmp]$ qperf 173.168.100.103 rc_bw\nrc_bw:\nfailed to modify QP to RTR: Invalid argument\n", "qperf rc_bw"},
		{"perftest", "ib_write_bw -d mlx5_1 -x 3 10.0.0.2\nFailed to modify QP 1234 to RTR\n", "perftest on mlx5_1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := perftest.ParseAll(strings.NewReader(tt.in), "p")
			if err != nil {
				t.Fatal(err)
			}
			fs := Check(rs, Options{}).Findings
			if len(fs) != 1 || fs[0].ID != "perf.test_invalid" || fs[0].Severity != "critical" {
				t.Fatalf("findings %+v", fs)
			}
			f := fs[0]
			if !strings.HasPrefix(f.Summary, tt.test+" could not start") || !strings.Contains(f.Summary, "RTR (Ready To Receive)") {
				t.Errorf("summary %q", f.Summary)
			}
			c := strings.Join(f.Causes, " | ")
			for _, w := range []string{"GID index", "down", "MTU"} {
				if !strings.Contains(c, w) {
					t.Errorf("causes %q lack %q", c, w)
				}
			}
			if r := strings.Join(f.Remedy, " | "); !strings.Contains(r, "show_gids") || !strings.Contains(r, "ibdev2netdev") {
				t.Errorf("remedy %q", r)
			}
		})
	}
}

// TestCMEventFindings: an rdma_cm client whose connection the peer
// rejected (event 8; tssala23/moc-training-scripts' ib_write_bw client
// log) is told to start the server side: the request and the reject
// crossed the fabric. An unreachable peer (event 7) or a connect error
// is the RDMA path failing: critical.
func TestCMEventFindings(t *testing.T) {
	for _, tt := range []struct {
		name, in, sev, has string
	}{
		{"rejected", "Unexpected CM event bl blka 8\n Unable to perform rdma_client function\n Unable to init the socket connection\n", "warning", "event 8, RDMA_CM_EVENT_REJECTED"},
		{"unreachable", "Unexpected CM event bl blka 7\n Unable to perform rdma_client function\n", "critical", "event 7, RDMA_CM_EVENT_UNREACHABLE"},
		{"connect error", "Unexpected CM event bl blka 6\n", "critical", "event 6, RDMA_CM_EVENT_CONNECT_ERROR"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := perftest.ParseAll(strings.NewReader(tt.in), "p")
			if err != nil {
				t.Fatal(err)
			}
			fs := Check(rs, Options{}).Findings
			if len(fs) != 1 || fs[0].ID != "perf.test_invalid" || string(fs[0].Severity) != tt.sev {
				t.Fatalf("findings %+v", fs)
			}
			if !strings.Contains(fs[0].Summary, tt.has) || len(fs[0].Remedy) == 0 {
				t.Errorf("summary %q remedy %q", fs[0].Summary, fs[0].Remedy)
			}
		})
	}
}

const midrunServer = `                    RDMA_Read BW Test
 Dual-port       : OFF          Device         : mlx4_0
 Link type       : IB
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 local address: LID 0x01 QPN 0x0294 PSN 0xd50c26 OUT 0x80 RKey 0x74a0c00 VAddr 0x007f9174aac000
 remote address: LID 0x0e QPN 0x025b PSN 0x7122ee OUT 0x80 RKey 0x740e600 VAddr 0x007f0475c4b000
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
ethernet_read_keys: Couldn't read remote address
 Unable to read to socket/rdam_cm
 Failed to exchange data between server and clients
`

const gidZero = `                    RDMA_Write BW Test
 Device         : mlx5_0
 Link type       : Ethernet
 GID index       : 0
 local address: LID 0000 QPN 0x00da PSN 0x416f84 RKey 0x1804c1 VAddr 0x007f8de93fe000
 GID: 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00
 remote address: LID 0000 QPN 0x0132 PSN 0xbaf42b RKey 0x181ddc VAddr 0x007fb24d4d1000
 GID: 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00
Failed to modify QP 218 to RTR
 Unable to Connect the HCA's through the link
`

const collapseRows = ` #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      1000             110.33             110.33 		   0.001765
 1048576    1000             110.37             110.37 		   0.000110
 2097152    1000             24.19              24.10  		   0.000012
 4194304    1000             18.70              18.65  		   0.000005
 8388608    1000             18.09              17.82  		   0.000002
`

var flatRows = strings.NewReplacer("24.19              24.10", "110.37             110.37", "18.70              18.65", "110.37             110.36", "18.09              17.82", "110.37             110.37").Replace(collapseRows)

const swingRows = "# taskset -c 1 ib_send_bw -d mlx5_0 -s 4194304 -D 20 --run_infinitely -p 5001 10.254.28.96\n" +
	" 4194304    4826             0.00               965.20 \t\t   0.000241\n" +
	" 4194304    7695             0.00               1539.00\t\t   0.000385\n" +
	" 4194304    2596             0.00               519.20 \t\t   0.000130\n"

const bareLat = ` #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] 

 2       1000          1.57           9.65         1.84     	       2.04        	0.69   		5.02    		9.65   
`

const rxeLat = `                    Send Latency Test
 Device         : rxe0
 Link type       : Ethernet
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] 
 2       1000          28.44          161.51       31.05              32.69          7.36            57.57                  161.51

`

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
		a, _ := perftest.ParseAll(strings.NewReader(client), "client.txt")
		b, _ := perftest.ParseAll(strings.NewReader(tc.peer), "server.txt")
		got := Check(append(a, b...), Options{})
		if diff := cmp.Diff(tc.want, ids(got.Findings)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}

// FuzzCheck runs the rules over whatever the parser accepts.
func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob(testdata + "*.*")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		rs, err := perftest.ParseAll(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if a := Check(rs, Options{LineRateGbps: 200}); len(a.Results) != len(rs) {
			t.Fatalf("%d summaries for %d results", len(a.Results), len(rs))
		}
	})
}

// TestMaskedQPNsDoNotPair: pastes that mask the QPN ("local address: LID
// 0000 xxx", k8s-rdma-sriov-dev-plugin#32) are not the two ends of one
// run: two of them with different MTUs are no disagreement, nor one
// measurement.
func TestMaskedQPNsDoNotPair(t *testing.T) {
	for _, tt := range []struct {
		name  string
		qpn   [2]string // local QPN of the first and second result
		pairs bool
	}{
		{"masked", [2]string{"", ""}, false},
		{"crossed", [2]string{"0x01", "0x02"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := &perftest.Result{Test: "RDMA_Write BW Test", MTU: 1024, Local: &perftest.Endpoint{QPN: tt.qpn[0]}, Remote: &perftest.Endpoint{QPN: tt.qpn[1]}}
			b := &perftest.Result{Test: "RDMA_Write BW Test", MTU: 4096, Local: &perftest.Endpoint{QPN: tt.qpn[1]}, Remote: &perftest.Endpoint{QPN: tt.qpn[0]}}
			got := len(pairFindings([]*perftest.Result{a, b})) > 0
			if same := sameMeasurement([]*perftest.Result{a}, b) >= 0; got != tt.pairs || same != tt.pairs {
				t.Errorf("paired %v, same %v, want %v", got, same, tt.pairs)
			}
		})
	}
}

// limenBW, limenLatServer and limenLatClient are lines of
// realworld-fresh38 perftest-limenlab-rxe-send-bw-3mbs-lat-700us.txt
// (Soft-RoCE rxe0 between two VirtualBox nodes).
const limenBW = `                    Send BW Test
 Dual-port       : OFF          Device         : rxe0
 Number of qps   : 1            Transport type : IB
 Connection type : RC           Using SRQ      : OFF
 Mtu             : 1024[B]
 Link type       : Ethernet
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      1000             0.00               3.06                      0.000049
`

const limenLatServer = `                    Send Latency Test
 Dual-port       : OFF          Device: rxe0
 Link type       : Ethernet
 local address: LID 0000 QPN 0x0014 PSN 0xa73d24
 remote address: LID 0000 QPN 0x001c PSN 0x91cabc
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] 
 2       1000          453.06         37330.73     692.41            928.05           2465.901216.65                 37330.73
`

const limenLatClient = `                    Send Latency Test
 Dual-port       : OFF          Device         : rxe0
 Link type       : Ethernet
 local address: LID 0000 QPN 0x001c PSN 0x91cabc
 remote address: LID 0000 QPN 0x0014 PSN 0xa73d24
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] 
 2       1000          461.98         37858.01      724.36           927.05           2486.36         1084.09               37858.01
`

// TestUDSendLatency: ib_send_lat -c UD on a ConnectX-5 EDR port at 1.67 us
// (realworld-fresh46, a Chinese setup note) is a healthy UD send, whose
// floor is above RC's; three times that is still high.
func TestUDSendLatency(t *testing.T) {
	run := " Connection type : UD\t\tUsing SRQ      : OFF\n Link type       : IB\n" +
		"---------------------------------------------------------------------------------------\n" +
		" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]  99.9% percentile[usec] \n" +
		" 2       1000          1.65           6.28         TYP     \t       1.70        \t0.28   \t\t3.52    \t\t6.28   \n"
	for _, tt := range []struct {
		typ  string
		want []string
	}{
		{"1.67", nil},
		{"5.02", []string{"perf.lat_high/warning"}},
	} {
		in := "                    Send Latency Test\n Dual-port       : OFF\t\tDevice         : mlx5_0\n" + strings.Replace(run, "TYP", tt.typ, 1)
		rs, err := perftest.ParseAll(strings.NewReader(in), "p")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range Check(rs, Options{}).Findings {
			got = append(got, f.ID+"/"+string(f.Severity))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("UD send at %s us: %v, want %v", tt.typ, got, tt.want)
		}
	}
}
