package fabtests

import (
	"errors"
	"strings"
	"testing"
)

// fi_pingpong -e rdm -p efa server side (libfabric 1.18), and a client
// that could not reach the server.
const server = ` bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec
64      10      =10      1.2k        0.04s      0.03    2049.70       0.00
256     10      =10      5k          0.00s      6.67      38.40       0.03
1k      10      =10      20k         0.00s     38.94      26.30       0.04
64k     10      =10      1.2m        0.00s    494.98     132.40       0.01
1m      10      =10      20m         0.01s   2185.67     479.75       0.00
`

const refused = `[error] util/pingpong.c:411 : failed to connect: Connection refused
fi_getinfo(): util/pingpong.c:1905, ret=-61 (No data available)
`

// fi_rdm_pingpong (fabtests/common/shared.c show_perf).
const bench = `bytes   iters   total       time     MB/sec    usec/xfer   Mxfers/sec
64      10k     1.2m        0.08s     15.61       4.10       0.24
1m      100     200m        0.06s   3486.29     300.77       0.00
`

func TestParse(t *testing.T) {
	r, err := Parse(strings.NewReader(server), "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tables) != 1 || !r.Tables[0].Pingpong || len(r.Tables[0].Rows) != 5 || len(r.Errors) != 0 {
		t.Fatalf("%+v", r)
	}
	if got := r.Tables[0].Rows[4]; got.Size != 1<<20 || got.Sent != "10" || got.Acked != "10" || got.MBps != 2185.67 || got.UsecPerXfer != 479.75 || got.Line != 6 {
		t.Errorf("row %+v", got)
	}
	if got := r.Tables[0].Rows[3]; got.Size != 64<<10 {
		t.Errorf("64k row %+v", got)
	}
	r, err = Parse(strings.NewReader(bench), "b")
	if err != nil || len(r.Tables) != 1 || r.Tables[0].Pingpong || len(r.Tables[0].Rows) != 2 || r.Tables[0].Rows[1].MBps != 3486.29 {
		t.Errorf("bench %+v %v", r, err)
	}
	r, err = Parse(strings.NewReader(refused), "e")
	if err != nil || len(r.Errors) != 2 || r.Errors[1].Call != "fi_getinfo" || r.Errors[1].Ret != -61 || r.Errors[0].Line != 1 {
		t.Errorf("errors %+v %v", r, err)
	}
	if _, err := Parse(strings.NewReader("bytes in flight\n64 10 20\n"), "x"); !errors.Is(err, ErrNoRun) {
		t.Errorf("no run: %v", err)
	}
}

func TestErrorLine(t *testing.T) {
	for line, want := range map[string]bool{
		"fi_getinfo(): util/pingpong.c:1905, ret=-61 (No data available)":            true,
		"fi_av_insert(): util/pingpong.c:982 , ret=-22 (Invalid argument)":           true,
		"fi_getinfo(): common/shared.c:1234, ret=-61 (No data available)":            true,
		"[error] util/pingpong.c:411 : failed to connect: Connection refused":        true,
		"[error] 12345:fabtests:common/shared.c:3009: ft_sock_connect failed":        true,
		"Error at iteration=3 size=64 byte=0":                                        true,
		"main(): something went wrong":                                               false,
		"64      10      =10      1.2k        0.04s      0.03    2049.70       0.00": false,
	} {
		if _, ok := ErrorLine(line); ok != want {
			t.Errorf("ErrorLine(%q) = %v", line, ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(server)
	f.Add(refused)
	f.Add(bench)
	f.Add("bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec\n1e400k 1 =1 1 1s x 1 1\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Parse(strings.NewReader(s), "f")
	})
}
