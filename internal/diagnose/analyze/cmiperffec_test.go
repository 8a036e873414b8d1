package analyze

import (
	"strings"
	"testing"
)

// TestPasteJudgements: outputs of testdata/realworld-fresh66 and
// realworld-fresh67, cut to the lines that decide: rping's CM error
// event, iperf beside ib_send_bw on Soft-RoCE, ethtool --show-fec and a
// grep'd Speed line, and a pingpong run on the link-local GID index.
func TestPasteJudgements(t *testing.T) {
	sendBW := "root@test-vm1:~# ib_send_bw -a 192.168.122.228\n" +
		"---------------------------------------------------------------------------------------\n" +
		"                    Send BW Test\n" +
		" Dual-port       : OFF          Device         : DEV\n" +
		" Number of qps   : 1            Transport type : IB\n" +
		" Connection type : RC           Using SRQ      : OFF\n" +
		" Mtu             : 1024[B]\n" +
		" Link type       : Ethernet\n" +
		"---------------------------------------------------------------------------------------\n" +
		" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n" +
		" 65536      1000             252.69             252.69             0.004043\n" +
		" 131072     1000             266.48             266.48             0.002132\n"
	iperf2 := "root@test-vm1:~# iperf -c 192.168.122.228\n" +
		"[  3] local 192.168.122.129 port 43148 connected with 192.168.122.228 port 5001\n" +
		"[ ID] Interval       Transfer     Bandwidth\n" +
		"[  3]  0.0-10.0 sec  30.9 GBytes  26.5 Gbits/sec\n"
	gids := "ibv_devinfo -v\nhca_id: rxe0\n        transport:                      InfiniBand (0)\n....\n" +
		"                        GID[  0]:\nfe80::a00:27ff:fe2e:f7a5, RoCE v2\n" +
		"                        GID[  1]:\nfe80::9bd3:885:53df:9fc4, RoCE v2\n" +
		"                        GID[  2]:               ::ffff:10.0.0.151, RoCE v2\n"
	for _, tt := range []struct {
		name, text string
		want       string // "ID/severity", "" for none
		exit       int
		summary    string
	}{
		{"rping: address error", "created cm_id 0x556b45faf2a0\ncma_event type RDMA_CM_EVENT_ADDR_ERROR cma_id 0x556b45faf2a0 (parent)\ncma event RDMA_CM_EVENT_ADDR_ERROR, error -19\nwaiting for addr/route resolution state 1\ndestroy cm_id 0x556b45faf2a0\n",
			"rdma.cm_connect_failed/critical", 2, "ENODEV"},
		{"iperf then Soft-RoCE ib_send_bw far below it", iperf2 + strings.Replace(sendBW, "DEV", "rxe0", 1), "perf.bw_low/warning", 1, "CPU-bound"},
		{"iperf then hardware RoCE far below it", iperf2 + strings.Replace(sendBW, "DEV", "mlx5_0", 1), "perf.bw_low/critical", 2, "26.5 Gbit/s that TCP (iperf)"},
		{"iperf alone: not judged", iperf2, "", 3, ""},
		{"ethtool --show-fec RS", "$ sudo ethtool --show-fec enp1s0f1np1\nFEC parameters for enp1s0f1np1:\nSupported/Configured FEC encodings: Auto\nActive FEC encoding: RS\n", "", 0, ""},
		{"ethtool --show-fec None on a 200G link", "$ ethtool enp1s0f0np0 | grep Speed\n\tSpeed: 200000Mb/s\n$ ethtool --show-fec enp1s0f0np0\nFEC parameters for enp1s0f0np0:\nSupported/Configured FEC encodings: Auto\nActive FEC encoding: None\n",
			"port.fec_off/warning", 1, "200 Gb/s link"},
		{"ethtool | grep Speed behind a sudo prompt", "mprg@spark-fb97:~$ sudo ethtool enp1s0f0np0 | grep Speed\n[sudo] password for mprg: \n\tSpeed: 100000Mb/s\nmprg@spark-fb97:~$ \n", "", 0, ""},
		{"pingpong on the link-local GID index, an IPv4 GID beside it", "I used ibv_rc_pingpong -d rxe0 -g 0 to setup a server with this GID,\nthe server failed with \"Failed to modify QP to RTR\" when client tries\n\n" + gids +
			"\nip addr\n    inet6 fe80::9bd3:885:53df:9fc4/64 scope link noprefixroute\n", "verbs.qp_setup_failed/warning", 1, "rerun with -g 2 on both ends"},
		{"pingpong failing on an IPv4 GID index stays critical", "I used ibv_rc_pingpong -d rxe0 -g 2 to setup a server\nthe server failed with \"Failed to modify QP to RTR\" when client tries\n\n" + gids,
			"verbs.qp_setup_failed/critical", 2, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "p.txt", Text: tt.text}}, Options{})
			var got []string
			sum := ""
			for _, f := range r.Findings {
				got = append(got, f.ID+"/"+string(f.Severity))
				sum += f.Summary
			}
			want := []string(nil)
			if tt.want != "" {
				want = []string{tt.want}
			}
			if strings.Join(got, ",") != strings.Join(want, ",") || r.ExitCode != tt.exit || !strings.Contains(sum, tt.summary) {
				t.Errorf("findings %v exit %d summary %q; want %v %d %q (%s)", got, r.ExitCode, sum, want, tt.exit, tt.summary, strings.Join(skips(r), "; "))
			}
		})
	}
}
