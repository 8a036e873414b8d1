package nccllog

import (
	"fmt"
	"slices"
	"testing"
)

// via and usingNetwork read what reVia and reNetwork read.
func TestViaAndNetworkAsRegexps(t *testing.T) {
	for _, msg := range []string{
		"Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/3/GDRDMA",
		"Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/3",
		"Channel 00/0 : 3[3] -> 11[3] [receive] via NET/Socket/0",
		"Channel 00/0 : 3[3] -> 11[3] [send] via NET/AWS Libfabric/0/GDRDMA",
		"Channel 00/0 : via NET/IB/x via NET/Socket/12/GDRDMAX",
		"Channel 00/0 : via NET//1 via NET/IB/",
		"Channel 00/0 : via NET/IB",
		"Channel 00/0 : via NET/IB/7/GDRDM",
		"Channel 00/0 : via NET/I\tB/7",
		"Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
		"Using network IB",
		"Using network AWS Libfabric  \t",
		"Using network  ",
		"Using network ",
		"Using network",
		"Using networkIB",
		"Using network \nIB",
		"Using network IB\n",
		"Using network I\nB",
		"Using network \xff",
		"xUsing network IB",
	} {
		m := reVia.FindStringSubmatch(msg)
		name, gdr, ok := via(msg)
		if ok != (m != nil) || ok && (name != m[1] || gdr != m[2]) {
			t.Errorf("via(%q) = %q %q %v, regexp %q", msg, name, gdr, ok, m)
		}
		m = reNetwork.FindStringSubmatch(msg)
		nw, ok := usingNetwork(msg)
		if ok != (m != nil) || ok && nw != m[1] {
			t.Errorf("usingNetwork(%q) = %q %v, regexp %q", msg, nw, ok, m)
		}
	}
}

// Processes are told apart by host and pid: one pid on several hosts (as
// in containers) is several processes, and lines of one come back to it
// whatever came between.
func TestProcsByHostAndPid(t *testing.T) {
	p := NewParser("f", true)
	lines := []string{
		"a:1:1 [0] NCCL INFO x", "b:1:1 [0] NCCL INFO x", "a:2:2 [0] NCCL INFO x",
		"b:1:9 [0] NCCL INFO comm 0x1 rank 3 nranks 4 - Init COMPLETE",
		"[0] NCCL INFO y", "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 4 - Init COMPLETE",
		"c:1:1 [0] NCCL INFO x", "a:1:1 [0] NCCL INFO z",
	}
	for i, l := range lines {
		p.Line(i+1, l)
	}
	lg, err := p.Log()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pr := range lg.Procs {
		got = append(got, fmt.Sprintf("%s:%d@%d%v", pr.Host, pr.Pid, pr.FirstLine, pr.Ranks))
	}
	want := []string{"a:1@1[0]", "b:1@2[3]", "a:2@3[]", ":0@5[]", "c:1@7[]"}
	if !slices.Equal(got, want) {
		t.Errorf("procs %q, want %q", got, want)
	}
}
