package perf

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
)

const perftestData = "../../parse/perftest/testdata/"

func runAnalyze(t *testing.T, args ...string) (string, int) {
	t.Helper()
	f, out, _ := testFactory(nil)
	cmd := NewCmd(f)
	cmd.SetArgs(append([]string{"analyze"}, args...))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), exitCode(err)
}

func TestAnalyzeCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"ndr session at 400G", []string{"--line-rate", "400", perftestData + "ndr-cx7-session.txt"}, 1,
			[]string{"RDMA_Write BW Test", "392.3 Gb/s at 65536 B (98% of line rate)", "1.27 us at 2 B (limit 1.50 us)",
				"WARNING  perf.bw_low", "RDMA_Read BW Test on mlx5_0 reached 328.6 of 400 Gb/s (82%)"}},
		{"no line rate", []string{perftestData + "ndr-cx7-session.txt"}, 0, []string{"HEALTHY", "bandwidth not judged: give --line-rate"}},
		{"latency limit", []string{"--max-latency", "2", perftestData + "rxe-send-lat.txt"}, 1, []string{"perf.lat_high", "2.95 us for 2 B"}},
		{"tiny messages", []string{perftestData + "perftest273-postlist-8b.txt"}, 0, []string{"INFO     perf.test_invalid", "largest message is 8 B"}},
		{"missing file degrades one result", []string{perftestData + "rxe-send-lat.txt", "missing.txt"}, 1, []string{"not analysed:", "missing.txt"}},
		{"nothing readable", []string{"missing.txt"}, 3, nil},
		{"stdin without input", []string{"-"}, 3, []string{"no standard input"}},
		{"negative line rate", []string{"--line-rate", "-1", "x"}, 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runAnalyze(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit = %d, want %d\n%s", code, tt.code, out)
			}
			for _, c := range tt.contains {
				if !strings.Contains(out, c) {
					t.Errorf("output lacks %q:\n%s", c, out)
				}
			}
		})
	}
}

func TestAnalyzeJSON(t *testing.T) {
	out, code := runAnalyze(t, "--format", "json", "--line-rate", "400", perftestData+"ndr-cx7-session.txt")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	var doc struct {
		Verdict string `json:"verdict"`
		Results []struct {
			Test string `json:"test"`
			BW   []struct {
				AvgGbps float64 `json:"avg_gbps"`
			} `json:"bw"`
		} `json:"results"`
		Findings []struct {
			ID       string `json:"id"`
			Evidence []struct {
				Source string `json:"source"`
			} `json:"evidence"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Verdict != "warning" || len(doc.Results) != 4 || doc.Results[3].BW[0].AvgGbps != 392.34 ||
		len(doc.Findings) != 1 || doc.Findings[0].Evidence[0].Source != perftestData+"ndr-cx7-session.txt:74" {
		t.Errorf("doc = %+v", doc)
	}
}

var updateAnalyze = flag.Bool("update-analyze", false, "rewrite the perf analyze golden files")

// TestAnalyzeGolden pins the text report; -update-analyze rewrites it.
func TestAnalyzeGolden(t *testing.T) {
	got, _ := runAnalyze(t, "--line-rate", "400", perftestData+"ndr-cx7-session.txt", perftestData+"perftest273-postlist-8b.txt")
	path := filepath.Join("testdata", "analyze-ndr-400.txt")
	if *updateAnalyze {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-analyze to create it)", err)
	}
	if string(want) != got {
		t.Errorf("report differs from %s:\n%s", path, got)
	}
}

// The banner's device (mlx5_0) is looked up on a simulated H100 node where
// it runs at 400 Gb/s 4X NDR: the read test falls short of that rate.
func TestAnalyzeRoot(t *testing.T) {
	n, err := simnode.Build(simnode.Options{Host: "gpu017"})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "root")
	if err := n.Write(root); err != nil {
		t.Fatal(err)
	}
	out, code := runAnalyze(t, "--root", root, perftestData+"ndr-cx7-session.txt")
	if code != 1 || !strings.Contains(out, "RDMA_Read BW Test on mlx5_0 reached 328.6 of 400 Gb/s, the rate of mlx5_0 port 1 (82%)") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if _, code := runAnalyze(t, "--root", filepath.Join(t.TempDir(), "nope.tar.gz"), perftestData+"ndr-cx7-session.txt"); code != 3 {
		t.Errorf("unusable root: exit %d, want 3", code)
	}
}

// A perftest output without a result row judged nothing: exit 3, never
// HEALTHY, and the JSON document says what was missing.
func TestAnalyzeNoResultRow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "banner.txt")
	banner := "---------------------------------------------------------------------------------------\n                    RDMA_Write BW Test\n Dual-port       : OFF\t\tDevice         : mlx5_0\n Number of qps   : 1\t\tTransport type : IB\n---------------------------------------------------------------------------------------\n"
	if err := os.WriteFile(p, []byte(banner), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runAnalyze(t, p)
	if code != 3 || strings.Contains(out, "HEALTHY") || !strings.Contains(out, "no result row") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	out, code = runAnalyze(t, "--format", "json", p)
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 3 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if doc["verdict"] != "not_judged" || doc["exit_code"] != 3.0 || !strings.Contains(doc["not_judged"].(string), "no result row") {
		t.Errorf("document %s", out)
	}
}
