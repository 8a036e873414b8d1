package mlnxqos

import (
	"errors"
	"strings"
	"testing"
)

// The mlnx_qos -i eth2 example of the Mellanox community page on
// mlnx_qos (MLNX_OFED 4.2), as pasted with its indentation lost.
const community = "DCBX mode: OS controlled\n" +
	"Priority trust state: dscp\n" +
	"dscp2prio mapping:\n" +
	"prio:0 dscp:07,06,05,04,03,02,01,00,\n" +
	"prio:3 dscp:31,30,29,28,27,26,25,24,\n" +
	"Cable len: 10\n" +
	"PFC configuration:\n" +
	"priority 0 1 2 3 4 5 6 7\n" +
	"enabled 1 0 1 0 0 0 1 1\n" +
	"\n" +
	"tc: 0 ratelimit: unlimited, tsa: ets, bw: 10%\n" +
	"priority: 1\n" +
	"\n" +
	"tc: 6 ratelimit: unlimited, tsa: strict\n" +
	"priority: 6\n"

// The layout python/mlnx_qos prints today (tabs, the buffer row) and an
// older release's "up:" members.
const current = "DCBX mode: OS controlled\n" +
	"Priority trust state: pcp\n" +
	"Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,max_buffer_size=262016\n" +
	"Cable len: 7\n" +
	"PFC configuration:\n" +
	"\tpriority    0   1   2   3   4   5   6   7\n" +
	"\tenabled     0   0   0   0   0   0   0   0   \n" +
	"\tbuffer      0   0   0   0   0   0   0   0   \n" +
	"tc: 0 ratelimit: unlimited, tsa: vendor\n" +
	"\t up:  0\n" +
	"\t\t skprio:  0\n"

func TestParse(t *testing.T) {
	q, err := Parse(strings.NewReader(community), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if q.DCBX != "OS controlled" || q.Trust != "dscp" || q.PFCLine != 9 || len(q.TCs) != 2 {
		t.Fatalf("%+v", q)
	}
	if got := q.Enabled(); len(got) != 4 || got[0] != 0 || got[3] != 7 {
		t.Errorf("enabled %v", got)
	}
	if tc := q.TCs[0]; tc.TC != 0 || tc.TSA != "ets" || tc.BW != 10 || len(tc.Priorities) != 1 || tc.Priorities[0] != 1 {
		t.Errorf("%+v", tc)
	}
	if tc := q.TCs[1]; tc.TSA != "strict" || tc.BW != -1 || tc.Line != 14 {
		t.Errorf("%+v", tc)
	}
	q, err = Parse(strings.NewReader(current), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if q.Trust != "pcp" || len(q.Enabled()) != 0 || q.PFCLine != 7 || len(q.TCs) != 1 || q.TCs[0].TSA != "vendor" || len(q.TCs[0].Priorities) != 1 {
		t.Errorf("%+v", q)
	}
	if !Header("DCBX mode: Firmware controlled") || !Header("PFC configuration:") || Header("PFC: enabled") {
		t.Error("Header")
	}
	if _, err := Parse(strings.NewReader("DCBX mode: OS controlled\n"), "p.txt"); !errors.Is(err, ErrNoPFC) || !strings.Contains(err.Error(), "p.txt") {
		t.Errorf("err %v", err)
	}
	if _, err := Parse(strings.NewReader("PFC configuration:\nenabled 1 0 2\n"), "p.txt"); !errors.Is(err, ErrBadRow) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(community)
	f.Add(current)
	f.Add("PFC configuration:\nenabled\ntc: 9\ntc: x\ntc: 1 tsa:\npriority: 9\n")
	f.Fuzz(func(t *testing.T, in string) {
		q, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil && !strings.Contains(err.Error(), "fuzz") {
			t.Fatalf("error without its source: %v", err)
		}
		if err == nil && q.PFCLine == 0 {
			t.Fatal("no PFC row and no error")
		}
	})
}
