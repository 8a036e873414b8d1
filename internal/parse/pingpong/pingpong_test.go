package pingpong

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	res, err := Parse(strings.NewReader(read("rc-roce-gid-retry-exceeded.txt")), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(res.Runs))
	}
	for i, want := range []struct {
		err    string
		status int
		remote bool
	}{{"Couldn't connect to 10.22.116.221:7777", -1, false}, {"client read: No space left on device", -1, false}, {"Failed status transport retry counter exceeded (12) for wr_id 2", 12, true}} {
		r := res.Runs[i]
		if len(r.Errors) == 0 || r.Errors[0].Text != want.err || r.Errors[0].Status != want.status || (r.Remote != nil) != want.remote || !strings.Contains(r.Command, "rc_pingpong") {
			t.Errorf("run %d: %+v", i, r)
		}
	}
	if res.Runs[2].Local.GID != "fe80::c670:bdff:feaa:1f09" || res.Runs[2].Remote.QPN != "0x0001aa" {
		t.Errorf("addresses %+v %+v", res.Runs[2].Local, res.Runs[2].Remote)
	}
	ok, err := Parse(strings.NewReader(read("rc-roce-gid3-ok.txt")), "x")
	if err != nil {
		t.Fatal(err)
	}
	if r := ok.Runs[0]; len(ok.Runs) != 1 || r.Mbps != 9668.93 || r.UsecPerIter != 6.78 || len(r.Errors) != 0 {
		t.Errorf("%+v", ok.Runs)
	}
	if _, err := Parse(strings.NewReader("hello\n"), "x"); !errors.Is(err, ErrNoRun) {
		t.Errorf("err %v", err)
	}
	// InfiniBand without -g prints "GID ::".
	ib, _ := Parse(strings.NewReader("  local address:  LID 0x0004, QPN 0x00004e, PSN 0x2b5d1c, GID ::\n"), "x")
	if ib == nil || ib.Runs[0].Local.LID != "0x0004" || ib.Runs[0].Local.GID != "::" {
		t.Errorf("%+v", ib)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("server read: No such file or directory\n5924:pp_server_exch_dest: 0/45 Couldn't read remote address\n")
	ents, _ := os.ReadDir("testdata")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			b, _ := os.ReadFile(filepath.Join("testdata", e.Name()))
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		res, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, r := range res.Runs {
			if r.Local == nil && r.Remote == nil && r.ResultLine == 0 && len(r.Errors) == 0 {
				t.Fatalf("empty run %+v", r)
			}
		}
	})
}

// The address exchange failure as rdma-core's examples and OFED 1.x's
// rdma_lat/rdma_bw print it (pp_server_exch_dest); the bare message is
// many programs' and is not taken.
func TestExchangeLine(t *testing.T) {
	for l, want := range map[string]bool{
		"5924:pp_server_exch_dest: 0/45 Couldn't read remote address": true,
		"0/45: Couldn't read remote address":                          true,
		"pp_client_exch_dest: Couldn't read remote address":           true,
		"Couldn't read remote address":                                false,
		"ethernet_read_keys: Couldn't read remote address":            false,
		"12 Couldn't read remote address":                             false,
	} {
		if got := ExchangeLine(l); got != want {
			t.Errorf("ExchangeLine(%q) = %v, want %v", l, got, want)
		}
	}
	res, err := Parse(strings.NewReader("server read: No such file or directory\n5924:pp_server_exch_dest: 0/45 Couldn't read remote address\n"), "t")
	if err != nil || len(res.Runs) != 1 || len(res.Runs[0].Errors) != 2 || res.Runs[0].Errors[1].Line != 2 {
		t.Fatalf("Parse: %v %+v", err, res)
	}
}
