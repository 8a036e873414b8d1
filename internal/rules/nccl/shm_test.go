package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestShmFailure: NCCL failing to create a shared-memory segment under
// /dev/shm (include/shm.h in NCCL 2.8: "Call to posix_fallocate failed :
// No space left on device", "Error while creating shared memory segment
// …") is the job's fault, said as such, and a socket transport chosen
// beside it is a note, not a warning (realworld-fresh44's paddle55987
// README row: PaddlePaddle in docker, 4 local ranks, NCCL 2.8.4).
func TestShmFailure(t *testing.T) {
	const head = "196d1db4e5fe:15374:15374 [3] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n" +
		"196d1db4e5fe:15374:15374 [3] NCCL INFO NET/Socket : Using [0]eth0:172.17.0.2<0>\n" +
		"196d1db4e5fe:15374:15374 [3] NCCL INFO Using network Socket\n" +
		"NCCL version 2.8.4+cuda11.2\n" +
		"196d1db4e5fe:15374:15374 [3] NCCL INFO Channel 00/02 :    0   1   2   3\n"
	const shm = "196d1db4e5fe:15374:15374 [3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\n" +
		"196d1db4e5fe:15374:15374 [3] NCCL INFO include/shm.h:41 -> 2\n" +
		"196d1db4e5fe:15374:15374 [3] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-a6fd15028d324d0c-0-3-0 (size 9637888)\n" +
		"196d1db4e5fe:15374:15374 [3] NCCL INFO transport/shm.cc:101 -> 2\n" +
		"196d1db4e5fe:15374:15374 [3] NCCL INFO transport.cc:30 -> 2\n"
	for _, tc := range []struct {
		name, in string
		want     []string
		summary  string
	}{
		{"shm fails", head + shm, []string{"nccl.call_failed/critical"}, "shared-memory segment under /dev/shm"},
		{"segment line only", head + strings.SplitAfterN(shm, "\n", 3)[2], []string{"nccl.call_failed/critical"}, "shared-memory segment"},
		{"another failure", head + "196d1db4e5fe:15374:15374 [3] transport/net_socket.cc:200 NCCL WARN Connect to 10.0.0.2<4000> failed : Connection refused\n196d1db4e5fe:15374:15374 [3] NCCL INFO transport.cc:30 -> 2\n",
			[]string{"nccl.connect_failed/critical", "nccl.socket_fallback/warning"}, ""},
		{"no failure", head, []string{"nccl.socket_fallback/warning"}, ""},
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
			if tc.summary != "" && !strings.Contains(a.Findings[0].Summary, tc.summary) {
				t.Errorf("summary %q lacks %q", a.Findings[0].Summary, tc.summary)
			}
		})
	}
}
