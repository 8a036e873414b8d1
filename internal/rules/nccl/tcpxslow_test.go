package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestTCPXSlowness: the GPUDirect-TCPX plugin's "rx ctrl timeout"
// slowness reports (google/nccl-plugin-gpudirecttcpx#1, realworld-fresh69)
// are a warning, not the critical timeout of a collective; a real
// timeout beside them keeps the critical one.
func TestTCPXSlowness(t *testing.T) {
	const slow = "[0] tcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN 0xadca8062b70:0xadca805d0f0, nic 0, enp12s0, 172.16.0.11<39187><-172.16.0.95<46723> rx rx ctrl timeout cnt 7331502, nanos 10000000585\n" +
		"\n" +
		"tcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN 0x13b9b0082580:0x13b9b007cb00, nic 1, enp134s0, 172.16.0.49<45259><-172.16.0.48<52929> rx rx ctrl timeout cnt 7359786, nanos 10000015864\n"
	const wd = "[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600068 milliseconds before timing out.\n"
	for _, tc := range []struct {
		name, in string
		want     []string
		sum      string
	}{
		{"slowness reports", slow, []string{"nccl.timeout/warning"}, "2 slow receive(s) on enp12s0, enp134s0: a request waited 10 s"},
		{"slowness and a watchdog timeout", slow + wd, []string{"nccl.timeout/critical"}, "timed out in ALLREDUCE SeqNum=7"},
		{"another wording stays a timeout", "h:1:2 [0] NCCL WARN NET/Socket : peer timed out\n", []string{"nccl.timeout/critical"}, "NCCL reported a timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tc.in), "log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tc.want, ids(a.Findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			if !strings.Contains(a.Findings[0].Summary, tc.sum) {
				t.Errorf("summary %q lacks %q", a.Findings[0].Summary, tc.sum)
			}
		})
	}
}
