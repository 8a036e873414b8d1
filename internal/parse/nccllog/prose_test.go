package nccllog

import (
	"strings"
	"testing"
)

// TestProseIsNoRecord: a sentence that names "NCCL INFO" above a pasted
// log is no record, so it adds no process without a host; the record
// prefixes NCCL and launchers print still are. The first line is
// NVIDIA/nccl#857 (realworld-fresh25
// nccl-log-nccl857-single-host-4gpu-no-libibverbs-socket.txt).
func TestProseIsNoRecord(t *testing.T) {
	tests := []struct {
		line   string
		record bool
		host   string
	}{
		{"Sure~ My NCCL INFO log is shown below.", false, ""},
		{"In the end I get NCCL WARN lines like these", false, ""},
		{"我的 NCCL INFO 日志如下", false, ""},
		{"ai:480850:480850 [0] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>", true, "ai"},
		{"[0] NCCL INFO Using network Socket", true, ""},
		{"NCCL INFO Using network Socket", true, ""},
		{"ai:480850:480850 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]", true, "ai"},
		{"[1,0]<stdout>:ptv-gpu01:11007:11098 [0] NCCL INFO Using internal Network Socket", true, "[1,0]<stdout>:ptv-gpu01"},
		{"| NCCL INFO Using network IB", true, ""},
	}
	for _, tc := range tests {
		host, _, _, _, ok := splitNCCLLine(tc.line)
		if ok != tc.record || ok && host != tc.host {
			t.Errorf("%q: record %v host %q, want %v %q", tc.line, ok, host, tc.record, tc.host)
		}
	}
	log := "Sure~ My NCCL INFO log is shown below.\n" +
		"ai:480850:480850 [0] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>\n" +
		"ai:480852:480852 [2] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>\n"
	lg, err := Parse(strings.NewReader(log), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range lg.Procs {
		if p.Host != "ai" {
			t.Errorf("process %+v from the sentence", p)
		}
	}
	if len(lg.Procs) != 2 {
		t.Errorf("%d processes, want 2", len(lg.Procs))
	}
}
