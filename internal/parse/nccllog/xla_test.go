package nccllog

import (
	"strings"
	"testing"
)

// TestXLANCCLError: XLA's reports of a failed NCCL call
// (xla/service/gpu/nccl_utils.cc: ToStatus's "NCCL operation EXPR
// failed: TEXT", CheckComm's "Aborting communicator: … due to async NCCL
// error: TEXT"), as two JAX workers print them (jax-ml/jax#19307,
// realworld-fresh44's README row), and lines that only look alike.
func TestXLANCCLError(t *testing.T) {
	for _, tc := range []struct {
		line string
		err  string // "": not read
	}{
		{"2024-01-11 05:43:11.726254: E external/xla/xla/service/gpu/nccl_utils.cc:211] Aborting communicator: 0x7f3e427e55b0 due to async NCCL error: remote process exited or there was a network error", "remote process exited or there was a network error"},
		{"2024-01-11 05:43:11.726330: E external/xla/xla/service/gpu/nccl_utils.cc:219] INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:216: NCCL operation async_err failed: remote process exited or there was a network error", "remote process exited or there was a network error"},
		// Later releases: the last NCCL warning after the text.
		{"E0412 10:01:02.000000 1234 pjrt_stream_executor_client.cc:2826] Execution of replica 0 failed: INTERNAL: NCCL operation ncclGroupEnd() failed: unhandled system error (run with NCCL_DEBUG=INFO for details). Last NCCL warning(error) log entry (may be unrelated) 'Call to ibv_modify_qp failed with error Connection timed out'.", "unhandled system error (run with NCCL_DEBUG=INFO for details)"},
		{"jaxlib.xla_extension.XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:297: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: internal error", "internal error"},
		{"the NCCL operation that failed: I do not know", ""},
		{"NCCL operation ncclAllReduce failed: ", ""},
		{"I saw due to async NCCL error: something", ""},
	} {
		ev, ok := xlaNCCLError(tc.line)
		if ok != (tc.err != "") || ok && (ev.Kind != EventFailed || ev.Call != "NCCL" || ev.Error != tc.err) {
			t.Errorf("%q: ok %v %+v; want %q", tc.line, ok, ev, tc.err)
		}
		if tc.err != "" && strings.Contains(tc.line, "rror") && !ErrorLine(tc.line) {
			t.Errorf("%q: not an ErrorLine", tc.line)
		}
	}
	in := "worker X:\n" +
		"2024-01-11 05:43:11.726254: E external/xla/xla/service/gpu/nccl_utils.cc:211] Aborting communicator: 0x7f3e427e55b0 due to async NCCL error: remote process exited or there was a network error\n"
	lg, err := Parse(strings.NewReader(in), "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Events) != 1 || lg.Events[0].Kind != EventFailed || lg.Events[0].Line != 2 {
		t.Errorf("events %+v: want one failed call at line 2", lg.Events)
	}
}
