package nccllog

import (
	"strings"
	"testing"
)

// TestBareInfo: NCCL INFO lines quoted without their "host:pid:tid NCCL
// INFO " prefix are read as INFO lines. The lines are from a blog post on
// a GB10 pair over RoCE (analyze testdata/realworld-fresh45,
// nccl-log-stored55120155377-gb10-roce-gdr-disabled-p2c.txt).
func TestBareInfo(t *testing.T) {
	for l, want := range map[string]bool{
		"NET/IB : Made virtual device [0] name=rocep1s0f0 speed=200000 ndevs=1":        true,
		"NET/IB : Using [0]rocep1s0f0:1/RoCE [RO]; OOB enp1s0f0np0:192.168.100.12<0>":  true,
		"  NET/NCCL RDMA Plugin v10 : GPU Direct RDMA Disabled for HCA 0 'rocep1s0f0'": true,
		"Channel 00/0 : 1[0] -> 0[0] [receive] via NET/NCCL RDMA Plugin v10/0":         true,
		"NET/0-0 (3/12.0/P2C)":              false,
		"NET/IB is what we use : see below": false,
		"Channel 00 is fine via the switch": false,
		"The NET/IB : Using line says RoCE": false,
		"gpu1:123:456 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>": false,
	} {
		if _, got := BareInfo(l); got != want {
			t.Errorf("%q: %v, want %v", l, got, want)
		}
	}
	lg, err := Parse(strings.NewReader("NET/IB : Using [0]rocep1s0f0:1/RoCE [RO]; OOB enp1s0f0np0:192.168.100.12<0>\n"+
		"NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'rocep1s0f0'\n"+
		"NET/NCCL RDMA Plugin v10 : GPU Direct RDMA Disabled for HCA 0 'rocep1s0f0'\n"), "paste")
	if err != nil {
		t.Fatal(err)
	}
	disabled := 0
	for _, pr := range lg.Procs {
		for _, g := range pr.GDR {
			if !g.Enabled && g.HCA == "rocep1s0f0" {
				disabled++
			}
		}
	}
	if lg.NCCLLines != 3 || disabled != 1 {
		t.Errorf("NCCL lines %d, GDR disabled states %d: want 3 and 1 (%+v)", lg.NCCLLines, disabled, lg.Procs)
	}
	// A completion error quoted without its prefix stays a WARN (analyze
	// testdata/realworld-fresh14, nccl-log-llmjp-p2p-watchdog-ib-completion-err5.txt).
	lg, err = Parse(strings.NewReader("NET/IB : Got completion from peer 10.5.0.34<33956> with error 5, opcode 0, len 1, vendor err 244 (Recv) localGid ::ffff:10.6.0.35 remoteGid ::ffff:10.5.0.34\n"), "paste")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Events) != 1 || lg.Events[0].Kind != EventCompletion {
		t.Errorf("events %+v, want one completion error", lg.Events)
	}
}
