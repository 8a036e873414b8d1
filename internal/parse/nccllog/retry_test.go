package nccllog

import (
	"fmt"
	"strings"
	"testing"
)

// llamaRetries are the lines of hiyouga/LlamaFactory#8045 (the
// realworld-fresh25 sample nccl-log-llamafactory8045-…): NCCL 2.24-2.26
// socketConnectCheck retrying a bootstrap connect up to its budget.
func llamaRetries(from, to int) string {
	var b strings.Builder
	for k := from; k <= to; k++ {
		fmt.Fprintf(&b, "zgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No route to host, retrying (%d/34) after sleep for %d msec\n", k, k*100)
	}
	return b.String()
}

// newRetries are the NCCL 2.27+ wording of misc/socket.cc
// socketConnectCheck, which names the peer.
func newRetries(from, to int) string {
	var b strings.Builder
	for k := from; k <= to; k++ {
		fmt.Fprintf(&b, "h2:77:78 [0] NCCL INFO socketPollConnect: connect to 10.0.0.2<29500> returned Connection refused, retrying (%d/34) after sleep for %d msec\n", k, k*100)
	}
	return b.String()
}

// oldRetry is NCCL 2.4-2.23's line (include/socket.h connectAddress,
// misc/socket.cc socketStartConnect), once per 1000 refused connects.
const oldRetry = "h3:9:10 [1] NCCL INFO Call to connect returned Connection refused, retrying\n"

// TestConnRetries: a run of connect retries that spends its budget, or
// that the process never goes on from, is a failed connect; a few
// retries followed by the process's next step are not.
func TestConnRetries(t *testing.T) {
	tests := []struct {
		name string
		log  string
		// want is "" for no event, else "peer|error|retries|limit|line".
		want string
	}{
		{"budget spent (LlamaFactory#8045)", llamaRetries(26, 34), "|No route to host|34|34|9"},
		{"budget spent, then the WARN that gives up", llamaRetries(33, 34) +
			"zgiot:1183664:1184669 [0] misc/socket.cc:484 NCCL WARN socketPollConnect: connect returned No route to host, exceeded error retry count (35)\n",
			"|No route to host|34|34|2"},
		{"2.27 wording, cut while retrying", newRetries(1, 5), "10.0.0.2|Connection refused|5|34|5"},
		{"2.27 wording, then the process goes on", newRetries(1, 4) +
			"h2:77:78 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n", ""},
		{"an error return is no going on", newRetries(1, 3) + "h2:77:78 [0] NCCL INFO misc/socket.cc:570 -> 6\n",
			"10.0.0.2|Connection refused|3|34|3"},
		{"two retries are too few to tell", newRetries(1, 2), ""},
		{"old wording, nothing after", strings.Repeat(oldRetry, 4), "|Connection refused|4|0|4"},
		{"old wording, then the WARN: one failure", strings.Repeat(oldRetry, 3) +
			"h3:9:10 [1] include/socket.h:390 NCCL WARN Connect to 10.0.0.9<4242> failed : Connection refused\n",
			"10.0.0.9|Connection refused|0|0|4"},
		{"old wording, then connected", strings.Repeat(oldRetry, 5) +
			"h3:9:10 [1] NCCL INFO comm 0x5581 rank 1 nranks 2 cudaDev 1 busId 3b000 - Init COMPLETE\n", ""},
		{"the retries of another process are its own", newRetries(1, 6) +
			"h9:5:6 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.9<0>\n", "10.0.0.2|Connection refused|6|34|6"},
		{"accept retries are no failed connect", strings.Repeat("h3:9:10 [1] NCCL INFO Call to accept returned Resource temporarily unavailable, retrying\n", 4), ""},
	}
	for _, tc := range tests {
		lg, err := Parse(strings.NewReader(tc.log), "t.log")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, e := range lg.Events {
			got = append(got, fmt.Sprintf("%s|%s|%d|%d|%d", e.Peer, e.Error, e.Retries, e.RetryLimit, e.Line))
			if e.Kind != EventConnect {
				t.Errorf("%s: event kind %s", tc.name, e.Kind)
			}
		}
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%s: events %v, want none", tc.name, got)
		case tc.want != "" && (len(got) != 1 || got[0] != tc.want):
			t.Errorf("%s: events %v, want [%s]", tc.name, got, tc.want)
		}
	}
}

// TestConnRetryWordings: each release's retry line and the WARN that ends
// a spent budget (misc/socket.cc across NCCL 2.12-2.29).
func TestConnRetryWordings(t *testing.T) {
	retries := []struct {
		msg, peer, err string
		k, n           int
	}{
		{"socketPollConnect: connect returned No route to host, retrying (26/34) after sleep for 2600 msec", "", "No route to host", 26, 34},
		{"socketStartConnect: connect to 192.168.1.5<45321> returned Connection timed out, retrying (3/34) after sleep for 300 msec", "192.168.1.5", "Connection timed out", 3, 34},
		{"ncclOsSocketPollConnect: connect to [fe80::1]<29500> returned Connection refused, retrying (1/10) after sleep for 100 msec", "[fe80::1]", "Connection refused", 1, 10},
		{"Call to connect returned Connection refused, retrying", "", "Connection refused", 0, 0},
	}
	for _, tc := range retries {
		peer, errText, k, n, ok := retryLine(tc.msg)
		if !ok || peer != tc.peer || errText != tc.err || k != tc.k || n != tc.n {
			t.Errorf("%q: %q %q %d/%d %v", tc.msg, peer, errText, k, n, ok)
		}
	}
	for _, msg := range []string{"Call to accept returned Connection refused, retrying", "NET/IB : retrying", "Channel 00 : 0[0] -> 1[1] via P2P/IPC"} {
		if _, _, _, _, ok := retryLine(msg); ok {
			t.Errorf("%q read as a connect retry", msg)
		}
	}
	exceeded := []struct{ msg, peer, err string }{
		{"socketPollConnect: connect returned No route to host, exceeded error retry count (35)", "", "No route to host"},
		{"socketPollConnect: connect to 10.1.2.3<5555> returned Connection refused, exceeded error retry count after 35 attempts", "10.1.2.3", "Connection refused"},
		{"socketStartConnect: exceeded retries (20000)", "", "Connection refused"},
		{"socketPollConnect: exceeded timeouts (3)", "", "Connection timed out"},
	}
	for _, tc := range exceeded {
		peer, errText, ok := retryExceeded(tc.msg)
		if !ok || peer != tc.peer || errText != tc.err {
			t.Errorf("%q: %q %q %v", tc.msg, peer, errText, ok)
		}
		lg, err := Parse(strings.NewReader("h:1:2 [0] misc/socket.cc:1 NCCL WARN "+tc.msg+"\n"), "t.log")
		if err != nil || len(lg.Events) != 1 || lg.Events[0].Kind != EventConnect {
			t.Errorf("%q: not one connect event: %v %+v", tc.msg, err, lg)
		}
	}
	if _, _, ok := retryExceeded("socketTryAccept: exceeded error retry count (35), Resource temporarily unavailable"); ok {
		t.Error("an accept's spent budget read as a connect's")
	}
}
