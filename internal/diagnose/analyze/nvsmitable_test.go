package analyze

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestNvsmiTableAndUCXPerf: the plain nvidia-smi table and ucx_perftest
// tables are found inside a paste (with the rule, date and banner above
// their first recognised line) and judged: healthy tables exit 0 with a
// summary naming GPUs, driver and CUDA (or the test and its bandwidth),
// ERR! and uncorrectable ECC are findings, a ucx table without a Final row
// is not judged, a bandwidth short of --line-rate is perf.bw_low.
func TestNvsmiTableAndUCXPerf(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name     string
		text     string
		rate     float64
		kind     Kind
		start    int // the segment's first line
		exit     int
		ids      []string
		summary  string
		notJudge string
	}{
		{"384 table after prose", read("testdata/realworld-fresh23/nvidia-smi-pai1396-quadro-p5000-ecc-0-cntk.txt"), 0,
			KindNvsmiTable, 3, finding.ExitHealthy, nil, "nvidia-smi, 1 GPU (driver 384.111): Quadro P5000, 1 process", ""},
		{"535 table with MIG, ECC and ERR!", "$ nvidia-smi\n" + read("../../parse/nvsmi/testdata/table-r535-a100-mig-err.txt"), 0,
			KindNvsmiTable, 1, finding.ExitCritical, []string{"gpu.ecc_uncorrectable", "gpu.nvml_error"},
			"nvidia-smi, 3 GPUs (driver 535.104.05, CUDA 12.2): NVIDIA A100-SXM4-80GB, ERR!, 2 MIG devices, no running processes", ""},
		{"470 table, fan sensor", "see:\n\n" + read("../../parse/nvsmi/testdata/table-r470-2gpu-fan-err.txt"), 0,
			KindNvsmiTable, 3, finding.ExitWarning, []string{"gpu.nvml_error"}, "nvidia-smi, 2 GPUs (driver 470.82.01, CUDA 11.4)", ""},
		{"driver unreachable", "after the kernel update:\n$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n", 0,
			KindNvsmiTable, 2, finding.ExitCritical, []string{"gpu.smi_failed"}, "nvidia-smi failed: NVIDIA-SMI has failed", ""},
		{"no devices", "No devices were found\n", 0,
			KindNvsmiTable, 1, finding.ExitCritical, []string{"gpu.smi_failed"}, "nvidia-smi failed: No devices were found", ""},
		{"ucx tag_bw", read("testdata/realworld-fresh23/ucx-perftest-ucx10649-bond-tag-bw-46gbs.txt"), 0,
			KindUCXPerf, 3, finding.ExitHealthy, nil, "ucx_perftest: tag_bw 46743.62 MB/s overall (373.9 Gb/s), 1000 iterations; tag_sync_bw without a Final row", ""},
		{"ucx tag_bw short of 800G", read("testdata/realworld-fresh23/ucx-perftest-ucx10649-bond-tag-bw-46gbs.txt"), 800,
			KindUCXPerf, 3, finding.ExitCritical, []string{"perf.bw_low"}, "tag_bw", ""},
		{"ucx old layout, latency", read("../../parse/ucxperf/testdata/old-layout-put-lat.txt"), 0,
			KindUCXPerf, 1, finding.ExitHealthy, nil, "ucp_put_lat 0.853 usec overall latency", ""},
		{"ucx cut before Final", read("../../parse/ucxperf/testdata/cut-am-bw.txt"), 0,
			KindUCXPerf, 5, finding.ExitCannot, nil, "am_bw without a Final row", "no Final row"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Run([]Input{{Name: "p.txt", Text: tc.text}}, Options{LineRateGbps: tc.rate})
			var seg *Segment
			for i, s := range r.Files[0].Segments {
				if s.Kind == tc.kind {
					seg = &r.Files[0].Segments[i]
					break
				}
			}
			if seg == nil {
				t.Fatalf("no %s segment: %+v", tc.kind, r.Files[0].Segments)
			}
			if seg.Start != tc.start {
				t.Errorf("segment starts at %d, want %d", seg.Start, tc.start)
			}
			if !strings.Contains(seg.Summary, tc.summary) {
				t.Errorf("summary %q lacks %q", seg.Summary, tc.summary)
			}
			var ids []string
			for _, f := range r.Findings {
				ids = append(ids, f.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(tc.ids) || r.ExitCode != tc.exit {
				t.Errorf("findings %v exit %d, want %v exit %d", ids, r.ExitCode, tc.ids, tc.exit)
			}
			if tc.notJudge != "" && !strings.Contains(r.NotJudged, tc.notJudge) {
				t.Errorf("not judged %q, want %q", r.NotJudged, tc.notJudge)
			}
		})
	}
}
