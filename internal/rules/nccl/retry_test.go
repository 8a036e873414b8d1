package nccl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestConnectRetries: NCCL's INFO-level connect retries (misc/socket.cc
// socketConnectCheck) that spend their budget or never end are a failed
// connect; a few retries and then the communicator's next step are not.
// The budget-spent lines are hiyouga/LlamaFactory#8045 (realworld-fresh25
// nccl-log-llamafactory8045-socketpollconnect-no-route-retries-zh.txt).
func TestConnectRetries(t *testing.T) {
	retries := func(from, to int) string {
		var b strings.Builder
		for k := from; k <= to; k++ {
			fmt.Fprintf(&b, "zgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No route to host, retrying (%d/34) after sleep for %d msec\n", k, k*100)
		}
		return b.String()
	}
	tests := []struct {
		name, log string
		want      []string
		summary   string
	}{
		{"budget spent", retries(26, 34), []string{"nccl.connect_failed/critical"},
			"NCCL could not connect to its peer (No route to host) 1 time(s) from zgiot, retrying 34/34 times, its whole retry budget"},
		{"still retrying at the log's end", retries(1, 12), []string{"nccl.connect_failed/critical"}, "still retrying (12/34) where the log ends"},
		{"old wording, nothing after", strings.Repeat("gpu1:9:10 [1] NCCL INFO Call to connect returned Connection refused, retrying\n", 5),
			[]string{"nccl.connect_failed/critical"}, "retrying (5 retry lines) with no sign that it connected"},
		{"a few retries, then connected", retries(1, 3) + "zgiot:1183664:1184669 [0] NCCL INFO Bootstrap : Using eth0:10.1.1.5<0>\n" +
			"zgiot:1183664:1184669 [0] NCCL INFO Using network IB\n", nil, ""},
	}
	for _, tc := range tests {
		lg, err := nccllog.Parse(strings.NewReader(tc.log), "t.log")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		a := CheckLog(lg, LogOptions{})
		if diff := cmp.Diff(tc.want, ids(a.Findings)); diff != "" {
			t.Errorf("%s: findings (-want +got):\n%s", tc.name, diff)
			continue
		}
		if tc.summary != "" && !strings.Contains(a.Findings[0].Summary, tc.summary) {
			t.Errorf("%s: summary %q, want %q in it", tc.name, a.Findings[0].Summary, tc.summary)
		}
	}
}
