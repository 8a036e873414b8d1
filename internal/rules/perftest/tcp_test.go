package perftest

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/perftest"
)

// sendBW is the ib_send_bw -a of linux-rdma, 2019-11-18 ("Why our
// soft-RoCE throughput is quite low compared with TCP"), its largest
// rows: rxe0 holds about 310 MB/sec where iperf measured 19.2 Gbit/s.
const sendBW = `---------------------------------------------------------------------------------------
                    Send BW Test
 Dual-port       : OFF          Device         : DEV
 Number of qps   : 1            Transport type : IB
 Connection type : RC           Using SRQ      : OFF
 TX depth        : 128
 CQ Moderation   : 100
 Mtu             : 1024[B]
 Link type       : Ethernet
 GID index       : 1
 Max inline data : 0[B]
 rdma_cm QPs     : OFF
 Data ex. method : Ethernet
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 32768      1000             306.12             306.10             0.009795
 65536      1000             310.75             310.50             0.004968
 1048576    1000             310.78             310.55             0.000311
`

func TestCheckAgainstTCP(t *testing.T) {
	tcp := TCPRate{Gbps: 19.2, Source: "p.txt:8", Text: "[  3]  0.0-10.0 sec  22.3 GBytes  19.2 Gbits/sec", Tool: "iperf"}
	for _, tt := range []struct {
		name, dev string
		tcp       float64
		sev       finding.Severity
		want      string
	}{
		{"Soft-RoCE far below TCP: warning, CPU-bound", "rxe0", 19.2, finding.Warning, "CPU-bound"},
		{"hardware RDMA far below TCP: critical", "mlx5_0", 19.2, finding.Critical, "should move at least what TCP does"},
		{"TCP slower: nothing", "mlx5_0", 3, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := perftest.ParseAll(strings.NewReader(strings.Replace(sendBW, "DEV", tt.dev, 1)), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			c := tcp
			c.Gbps = tt.tcp
			fs := CheckAgainstTCP(rs, c)
			if tt.want == "" {
				if len(fs) != 0 {
					t.Fatalf("findings %v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].ID != "perf.bw_low" || fs[0].Severity != tt.sev || !strings.Contains(fs[0].Summary, tt.want) ||
				len(fs[0].Evidence) != 2 || fs[0].Evidence[1].Source != "p.txt:8" || fs[0].Evidence[0].Source != "p.txt:18" {
				t.Fatalf("findings %+v", fs)
			}
		})
	}
}
