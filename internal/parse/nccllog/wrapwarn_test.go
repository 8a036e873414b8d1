package nccllog

import (
	"strings"
	"testing"
)

// TestWrappedWarn: a WARN line a mail client or chat window wrapped is
// read whole when its tail is on the next line, and a line that is no
// tail is read as itself. The lines are real: ibvwrap from
// bytedance/byteps#97 (ai-2080ti-18), ibv_modify_qp from
// NVIDIA/nccl-tests#185 (dgxh100-3), the pattern fallback from
// NVIDIA/nccl-tests#131 (Meowth).
func TestWrappedWarn(t *testing.T) {
	const verbsHead = "ai-2080ti-18:5571:5571 [0] misc/ibvwrap.cu:63 NCCL WARN Failed\n"
	const qpHead = "dgxh100-3:225140:225355 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with\n"
	const pattern = "Meowth:8756:8772 [1] graph/search.cc:890 NCCL WARN Could not find a path for pattern 4, falling back to simple order\n"
	tests := []struct {
		name, in string
		kinds    []EventKind
		text     string // the first event's text
		noVerbs  int    // the first process's NoVerbs line
	}{
		{"libibverbs wrapped", verbsHead + "to open libibverbs.so[.1]\n", nil, "", 1},
		{"verbs call wrapped", qpHead + "error Network is unreachable\n", []EventKind{EventResource},
			"Call to ibv_modify_qp failed with error Network is unreachable", 0},
		{"tail at the end of input", pattern, []EventKind{EventWarn}, strings.TrimSpace(pattern[strings.Index(pattern, "Could"):]), 0},
		{"a record after it", pattern + "Meowth:8756:8772 [1] NCCL INFO Channel 00/02 :    0   1\n", []EventKind{EventWarn},
			"Could not find a path for pattern 4, falling back to simple order", 0},
		{"a traceback after it", verbsHead + "Traceback (most recent call last):\n", []EventKind{EventWarn, EventTraceback}, "Failed", 0},
		{"an indented line after it", verbsHead + "    to open libibverbs.so[.1]\n", []EventKind{EventWarn}, "Failed", 0},
		{"a short line is never held", "h:1:1 [0] NCCL WARN Failed\nto open libibverbs.so[.1]\n", []EventKind{EventWarn}, "Failed", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tt.in), "w.log")
			if err != nil {
				t.Fatal(err)
			}
			var kinds []EventKind
			for _, e := range lg.Events {
				kinds = append(kinds, e.Kind)
			}
			if strings.Join(kindStrings(kinds), ",") != strings.Join(kindStrings(tt.kinds), ",") {
				t.Fatalf("events %v, want %v", kinds, tt.kinds)
			}
			if tt.text != "" && lg.Events[0].Text != tt.text {
				t.Errorf("text %q, want %q", lg.Events[0].Text, tt.text)
			}
			if len(lg.Events) > 0 && lg.Events[0].Line != 1 {
				t.Errorf("line %d, want 1", lg.Events[0].Line)
			}
			if lg.Procs[0].NoVerbs != tt.noVerbs {
				t.Errorf("NoVerbs %d, want %d", lg.Procs[0].NoVerbs, tt.noVerbs)
			}
		})
	}
}

func kindStrings(ks []EventKind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}
