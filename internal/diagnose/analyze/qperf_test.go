package analyze

import (
	"fmt"
	"slices"
	"testing"
)

// A qperf verbs test's banner below its command line, followed by qperf's
// error, starts a perftest span at the command line: the ibdev2netdev
// listing above it does not swallow it. From linux-rdma "qperf failure"
// (Changcheng Liu, 2019-10-28; testdata/realworld-fresh22). A banner
// followed by results, or a TCP test, is not read.
func TestSplitQperfFailedStart(t *testing.T) {
	for _, tt := range []struct {
		name string
		ls   []string
		want []string
	}{
		{"after ibdev2netdev", []string{
			"       mlx5_0 port 1 ==> ens801f0 (Up) 173.168.100.101",
			"       mlx5_1 port 1 ==> ens801f1 (Up) 192.168.100.101",
			"       [rdma@rdmarhel0 tmp]$ qperf 173.168.100.103 rc_bw",
			"       rc_bw:",
			"       failed to modify QP to RTR: Invalid argument",
		}, []string{"ibdev2netdev 1-2", "perftest 3-5"}},
		{"results follow", []string{"$ qperf host rc_bw", "rc_bw:", "    bw  =  2.9 GB/sec"}, []string{"unknown 1-3"}},
		{"a TCP test", []string{"$ qperf host tcp_bw", "tcp_bw:", "failed to connect: Connection refused"}, []string{"unknown 1-3"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, sp := range Split(tt.ls) {
				k := string(sp.Kind)
				if sp.Kind == KindUnknown {
					k = "unknown"
				}
				got = append(got, fmt.Sprintf("%s %d-%d", k, sp.Start, sp.End))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("spans %q, want %q", got, tt.want)
			}
		})
	}
}
