package analyze

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// Nothing judged is never healthy: a run whose outputs held nothing to
// judge exits 3 with verdict "not_judged" and says what was missing, in
// the JSON document too.
func TestNothingJudgedIsNotHealthy(t *testing.T) {
	ncclHeader := "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n#  Rank  0 Group  0 Pid 1 on gpu1 device  0 [0000:9d:00] NVIDIA H100 80GB HBM3\n#  Rank  1 Group  0 Pid 2 on gpu2 device  0 [0000:9d:00] NVIDIA H100 80GB HBM3\n"
	perfBanner := "---------------------------------------------------------------------------------------\n                    RDMA_Write BW Test\n Dual-port       : OFF\t\tDevice         : mlx5_0\n Number of qps   : 1\t\tTransport type : IB\n---------------------------------------------------------------------------------------\n"
	tests := []struct {
		name, text string
		kind       Kind
		missing    string // in NotJudged; "" when judged
	}{
		{"nccl-tests header only", ncclHeader, KindUnknown, "no result row"},
		{"perftest banner only", perfBanner, KindUnknown, "no result row"},
		{"random text as dmesg", "hello world\nthis is random text\n", KindKernel, "no line looks like a kernel message"},
		{"prose", "the job hangs, any idea?\n", KindUnknown, "not recognised"},
		{"a kernel log is judged", "[    5.1] mlx5_core 0000:3b:00.0: firmware version: 28.39.2048\n", KindUnknown, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Run([]Input{{Name: "p", Text: tc.text}}, Options{Kind: tc.kind})
			if tc.missing == "" {
				if !r.IsJudged() || r.ExitCode == finding.ExitCannot {
					t.Fatalf("not judged: %s", r.NotJudged)
				}
				return
			}
			if r.Verdict != finding.VerdictNotJudged || r.ExitCode != finding.ExitCannot || !strings.Contains(r.NotJudged, tc.missing) {
				t.Fatalf("verdict %q exit %d not_judged %q, want not_judged/3 naming %q", r.Verdict, r.ExitCode, r.NotJudged, tc.missing)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if doc["verdict"] != "not_judged" || doc["exit_code"] != 3.0 || doc["not_judged"] == "" || doc["findings"] == nil {
				t.Errorf("JSON %s", b)
			}
		})
	}
}

// A paste that quotes the client's and the server's NCCL lines in separate
// blocks is one job: IB on one side and a socket fallback on the other is
// the mismatch, judged critical (each block alone shows only half).
func TestNCCLLogsOfOneFileAreOneJob(t *testing.T) {
	text := "On the client:\n```\nx1:870114:870114 [1] NCCL INFO Using network IB\n```\nOn the server:\n```\n" +
		"x0:26431:26431 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\nx0:26431:26431 [0] NCCL INFO Using network Socket\n```\n"
	r := Run([]Input{{Name: "p", Text: text}}, Options{})
	if len(r.Findings) != 1 || r.Findings[0].ID != "nccl.socket_fallback" || r.Findings[0].Severity != finding.Critical {
		t.Fatalf("findings %v", signature(r))
	}
	var logs int
	for _, s := range r.Files[0].Segments {
		if s.Kind == KindNCCLLog {
			logs++
		}
	}
	if logs != 2 {
		t.Errorf("%d NCCL log segments, want 2 (judged together)", logs)
	}
}

// An nccl-tests rank list that puts every rank on one host makes the NCCL
// log inside a single-node job: its socket transport carries nothing, and
// the log's network choice is judged even when the paste stops before the
// first result row (NVIDIA/nccl#428, all_reduce_perf -g 2 on two T4s).
func TestNCCLTestsRankListOneHost(t *testing.T) {
	head := "# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 \n#\n# Using devices\n"
	rank := func(r int, host string) string {
		return "#   Rank  " + string(rune('0'+r)) + " Pid  93569 on " + host + " device  " + string(rune('0'+r)) + " [0x86] Tesla T4\n"
	}
	log := func(host string) string {
		return host + ":93569:93569 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n" +
			host + ":93569:93569 [0] NCCL INFO NET/Socket : Using [0]em1:10.193.84.3<0> [1]tunl0:10.227.47.12<0>\n" +
			host + ":93569:93569 [0] NCCL INFO Using network Socket\n"
	}
	const h = "ai-vtraining-prd-10-193-84-3"
	tests := []struct {
		name, text string
		verdict    string
		ids        []string
		note       string
	}{
		{"both ranks on one host", head + rank(0, h) + rank(1, h) + log(h), "healthy", nil, "one node (all ranks on " + h + ")"},
		{"ranks on two hosts", head + rank(0, h) + rank(1, "other") + log(h), "warning", []string{"nccl.socket_fallback"}, ""},
		{"rank list on another host than the log", head + rank(0, "other") + rank(1, "other") + log(h), "warning", []string{"nccl.socket_fallback"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Run([]Input{{Name: "p", Text: tc.text}}, Options{})
			var ids []string
			for _, f := range r.Findings {
				ids = append(ids, f.ID)
			}
			if r.Verdict != tc.verdict || strings.Join(ids, ",") != strings.Join(tc.ids, ",") {
				t.Fatalf("verdict %q findings %v (not judged: %q), want %q %v", r.Verdict, ids, r.NotJudged, tc.verdict, tc.ids)
			}
			if tc.note != "" {
				b, _ := json.Marshal(r)
				if !strings.Contains(string(b), tc.note) {
					t.Errorf("no note %q in %s", tc.note, b)
				}
			}
		})
	}
}
