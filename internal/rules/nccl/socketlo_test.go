package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestSocketOnLoopbackIsOneHost: a socket transport whose every address
// is a loopback one cannot carry traffic between hosts, so its "fallback"
// is a note. Project-HAMi/HAMi-core#261: one vLLM pod, TP=2,
// NCCL_SOCKET_IFNAME=lo, no IB device.
func TestSocketOnLoopbackIsOneHost(t *testing.T) {
	const hami261 = "test-7b94f88dfd-dxs9c:958:958 [1] NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo\n" +
		"test-7b94f88dfd-dxs9c:958:958 [1] NCCL INFO NET/IB : No device found.\n" +
		"test-7b94f88dfd-dxs9c:958:958 [1] NCCL INFO NET/IB : Using [RO]; OOB lo:127.0.0.1<0>\n" +
		"test-7b94f88dfd-dxs9c:958:958 [1] NCCL INFO Failed to initialize NET plugin IB\n" +
		"test-7b94f88dfd-dxs9c:958:958 [1] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n" +
		"test-7b94f88dfd-dxs9c:958:958 [1] NCCL INFO Initialized NET plugin Socket\n" +
		"test-7b94f88dfd-dxs9c:958:958 [1] NCCL INFO Using network Socket\n"
	for _, tc := range []struct {
		name, in string
		want     []string
		note     string
	}{
		{"one pod on lo", hami261, nil, "socket transport is on the loopback interface"},
		{"a second process on eth0", hami261 + "other:1:1 [0] NCCL INFO NET/IB : No device found.\nother:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\nother:1:1 [0] NCCL INFO Using network Socket\n",
			[]string{"nccl.socket_fallback/warning"}, ""},
		{"lo and eth0 in one list", strings.Replace(hami261, "[0]lo:127.0.0.1<0>\n", "[0]lo:127.0.0.1<0> [1]eth0:10.0.0.1<0>\n", 1),
			[]string{"nccl.socket_fallback/warning", "nccl.socket_loopback/warning"}, ""},
		{"NCCL_SOCKET_IFNAME=lo without the NET/Socket line", strings.Replace(hami261, "test-7b94f88dfd-dxs9c:958:958 [1] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n", "", 1), nil, "loopback"},
		{"NCCL_SOCKET_IFNAME=lo, yet NET/Socket on eth0", strings.Replace(hami261, "[0]lo:127.0.0.1<0>\n", "[0]eth0:10.0.0.1<0>\n", 1), []string{"nccl.socket_fallback/warning"}, ""},
		{"a process without socket lines", hami261 + "other:1:1 [0] NCCL INFO Using network IB\n", []string{"nccl.socket_fallback/critical"}, ""},
		{"IPv6 loopback", strings.Replace(hami261, "[0]lo:127.0.0.1<0>\n", "[0]lo:::1<0>\n", 1), nil, "loopback"},
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
			if tc.note != "" && !strings.Contains(strings.Join(a.Notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", a.Notes, tc.note)
			}
		})
	}
}

// TestOneHostWantsIB: a one-host job whose environment asks for IB
// (NCCL_IB_DISABLE set to 0) while NCCL found no IB device is a warning,
// not a note: the job sends nothing over the network, but the host shows
// NCCL no RDMA device although IB was meant (realworld-fresh44's
// lightning2771 README row: four Horovod ranks on translation-1,
// bootstrap and sockets on lo, NCCL 2.4.8). Without the variable (the
// HAMi pod above) it stays a note.
func TestOneHostWantsIB(t *testing.T) {
	const lightning = "[1,0]<stdout>:translation-1:1746:1951 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n" +
		"[1,0]<stdout>:translation-1:1746:1951 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).\n" +
		"[1,0]<stdout>:translation-1:1746:1951 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n" +
		"[1,0]<stdout>:translation-1:1746:1951 [0] NCCL INFO NET/IB : No device found.\n" +
		"[1,0]<stdout>:translation-1:1746:1951 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n" +
		"[1,0]<stdout>:NCCL version 2.4.8+cuda10.1\n" +
		"[1,2]<stdout>:translation-1:1748:1959 [2] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n" +
		"[1,3]<stdout>:translation-1:1749:1957 [3] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n" +
		"[1,1]<stdout>:translation-1:1747:1958 [1] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n"
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"IB asked for, none found, one host", lightning, []string{"nccl.socket_fallback/warning"}},
		{"IB asked for, none found, cut before the socket line", strings.Replace(lightning, "[1,0]<stdout>:translation-1:1746:1951 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n", "", 1), []string{"nccl.socket_fallback/warning"}},
		{"no variable", strings.Replace(lightning, "[1,0]<stdout>:translation-1:1746:1951 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n", "", 1), nil},
		{"IB found", strings.Replace(strings.Replace(lightning, "NET/IB : No device found.", "NET/IB : Using [0]mlx5_0:1/IB ; OOB lo:127.0.0.1<0>", 1), "[1,0]<stdout>:translation-1:1746:1951 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n", "", 1), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tc.in), "log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tc.want, ids(a.Findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\nnotes %q", diff, a.Notes)
			}
		})
	}
}
