package nccl

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestOneHostAfterProse: a sentence naming "NCCL INFO" above a one-host
// log (NVIDIA/nccl#857, realworld-fresh25
// nccl-log-nccl857-single-host-4gpu-no-libibverbs-socket.txt, with the
// communicator lines its cut paste lacks) no longer hides that every rank
// runs on host ai; without those lines the job's span is unknown and the
// fallback stays a warning.
func TestOneHostAfterProse(t *testing.T) {
	head := "Sure~ My NCCL INFO log is shown below.\n"
	var procs, comms string
	for i, pid := range []string{"480850", "480852", "480851", "480853"} {
		dev := []string{"0", "2", "1", "3"}[i]
		pre := "ai:" + pid + ":" + pid + " [" + dev + "] "
		procs += pre + "misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n" +
			pre + "NCCL INFO NET/Socket : Using [0]eth0:162.30.2.40<0>\n" +
			pre + "NCCL INFO Using network Socket\n"
		comms += pre + "NCCL INFO comm 0x55d" + dev + " rank " + dev + " nranks 4 cudaDev " + dev + " busId " + dev + "000 - Init COMPLETE\n"
	}
	tests := []struct {
		name, log string
		want      []string
		note      bool
	}{
		{"prose, then all ranks on one host", head + procs + comms, nil, true},
		{"prose, no communicator lines", head + procs, []string{"nccl.socket_fallback/warning"}, false},
	}
	for _, tc := range tests {
		lg, err := nccllog.Parse(strings.NewReader(tc.log), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		a := CheckLog(lg, LogOptions{})
		if got := ids(a.Findings); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: findings %v, want %v", tc.name, got, tc.want)
		}
		noted := strings.Contains(strings.Join(a.Notes, "\n"), "the job runs on one node (all 4 ranks on ai)")
		if noted != tc.note {
			t.Errorf("%s: one-node note %v, want %v: %q", tc.name, noted, tc.note, a.Notes)
		}
	}
}
