package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestTruncatedFails: a message longer than the receive posted fails
// the communicator (sail-sg/zero-bubble-pipeline-parallelism#60,
// realworld-fresh70): critical nccl.call_failed naming the peer and the
// refused call after it.
func TestTruncatedFails(t *testing.T) {
	const in = "lzm-h200-10:74737:75914 [1] transport/net_socket.cc:488 NCCL WARN NET/Socket : peer 10.0.5.194<41988> message truncated : receiving 4 bytes instead of 2. If you believe your socket network is in healthy state,           there may be a mismatch in collective sizes or environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks\n" +
		"\n" +
		"lzm-h200-10:74737:74737 [1] init.cc:290 NCCL WARN Attempt to use communicator before the previous operation returned ncclSuccess\n"
	lg, err := nccllog.Parse(strings.NewReader(in), "log")
	if err != nil {
		t.Fatal(err)
	}
	a := CheckLog(lg, LogOptions{})
	if diff := cmp.Diff([]string{"nccl.call_failed/critical"}, ids(a.Findings)); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
	f := a.Findings[0]
	for _, s := range []string{"on lzm-h200-10 from peer 10.0.5.194 (NET/Socket: 4 bytes instead of 2)", "line 3 shows the next call refused"} {
		if !strings.Contains(f.Summary, s) {
			t.Errorf("summary %q lacks %q", f.Summary, s)
		}
	}
	if len(f.Evidence) != 2 || f.Evidence[0].Source != "log:1" || f.Evidence[1].Source != "log:3" {
		t.Errorf("evidence %+v", f.Evidence)
	}
}
