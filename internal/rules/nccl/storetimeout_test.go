package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestStoreTimeoutFails: a timed-out socket of PyTorch's c10d store ends
// the job (NVIDIA/nccl#1105: torch elastic's _exit_barrier raises
// "RuntimeError: Socket Timeout" after a hang, on an Ethernet host whose
// NCCL took sockets): critical nccl.timeout, beside what the rest of the
// log shows.
func TestStoreTimeoutFails(t *testing.T) {
	const nccl1105 = "`Traceback (most recent call last):\n" +
		"  File \"/opt/conda/lib/python3.7/site-packages/torch/distributed/elastic/utils/store.py\", line 31, in get_all\n" +
		"    data = store.get(f\"{prefix}{idx}\")\n" +
		"RuntimeError: Socket Timeout`\n"
	const socket = "ps-8:796:796 [1] NCCL INFO NET/IB : No device found.\n" +
		"ps-8:796:796 [1] NCCL INFO NET/Socket : Using [0]enp67s0:192.168.1.8<0>\n" +
		"ps-8:796:796 [1] NCCL INFO Using network Socket\n"
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"store timeout and sockets", nccl1105 + socket, []string{"nccl.timeout/critical", "nccl.socket_fallback/warning"}},
		{"store timeout alone", nccl1105, []string{"nccl.timeout/critical"}},
		{"sockets alone", socket, []string{"nccl.socket_fallback/warning"}},
		{"the words in prose", "I also see a Socket Timeout after a while\n" + socket, []string{"nccl.socket_fallback/warning"}},
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
			if f := a.Findings[0]; f.ID == "nccl.timeout" && (!strings.Contains(f.Summary, "c10d store") || f.Evidence[0].Source != "log:4" || f.Evidence[0].Value != "RuntimeError: Socket Timeout") {
				t.Errorf("timeout finding %+v", f)
			}
		})
	}
}
