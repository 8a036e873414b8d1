package nccllog

import (
	"strings"
	"testing"
)

// TestTorchStoreTimeout: the exception of a timed-out socket of PyTorch's
// c10d store (torch/csrc/distributed/c10d/Utils.hpp, SYSCHECK:
// TORCH_CHECK(false, "Socket Timeout")), as NVIDIA/nccl#1105 pastes it
// at the end of torch elastic's _exit_barrier traceback, inside a
// backtick; and lines that only talk about it.
func TestTorchStoreTimeout(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
		text string
	}{
		{"RuntimeError: Socket Timeout`", true, "RuntimeError: Socket Timeout"},
		{"RuntimeError: Socket Timeout", true, "RuntimeError: Socket Timeout"},
		{"  torch.distributed.DistStoreError: Socket Timeout", true, "torch.distributed.DistStoreError: Socket Timeout"},
		{"[default0]:RuntimeError: Socket Timeout", true, "[default0]:RuntimeError: Socket Timeout"},
		{"ValueError: Socket Timeout", false, ""},
		{"RuntimeError: Socket Timeout is what I get after a while", false, ""},
		{"I also get a Socket Timeout sometimes", false, ""},
		{"RuntimeError: Connection reset by peer", false, ""},
	} {
		ev, ok := torchStoreTimeout(tc.line)
		if ok != tc.ok || ErrorLine(tc.line) != tc.ok {
			t.Errorf("%q: ok %v, ErrorLine %v; want %v", tc.line, ok, ErrorLine(tc.line), tc.ok)
			continue
		}
		if ok && (ev.Kind != EventTimeout || ev.Call != StoreCall || ev.Text != tc.text) {
			t.Errorf("%q: %+v", tc.line, ev)
		}
	}
	// In a log: one event, its line, apart from an NCCL timeout WARN.
	in := "`Traceback (most recent call last):\n" +
		"    data = store.get(f\"{prefix}{idx}\")\n" +
		"RuntimeError: Socket Timeout`\n" +
		"h:1:2 [0] NCCL WARN Timeout waiting for connection from peer\n" +
		"ps-8:796:796 [1] NCCL INFO Using network Socket\n"
	lg, err := Parse(strings.NewReader(in), "t")
	if err != nil {
		t.Fatal(err)
	}
	var store, other int
	for _, e := range lg.Events {
		switch {
		case e.Kind == EventTimeout && e.Call == StoreCall && e.Line == 3:
			store++
		case e.Kind == EventTimeout:
			other++
		}
	}
	if store != 1 || other != 1 {
		t.Errorf("events %+v: want one store timeout at line 3 and one NCCL timeout", lg.Events)
	}
}
