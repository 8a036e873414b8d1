package analyze

import (
	"os"
	"strings"
	"testing"
)

// findingIDs lists the IDs of a file's findings with their severities.
func findingIDs(fr File) []string {
	var out []string
	for _, s := range fr.Segments {
		for _, f := range s.Findings {
			out = append(out, f.ID+"/"+string(f.Severity))
		}
	}
	return out
}

// TestSilentLaunch: a 2-rank mpirun of all_reduce_perf with no output
// under it, beside a 1-rank run that printed its table
// (NVIDIA/nccl-tests#26, testdata/realworld-fresh65), is
// nccl.tests_no_output; a launch whose table follows it is not.
func TestSilentLaunch(t *testing.T) {
	b, err := os.ReadFile("testdata/realworld-fresh65/nccl-tests-nccltests26-mpirun-np2-hang-np1-ok.txt")
	if err != nil {
		t.Fatal(err)
	}
	fr := AnalyzeText("t.txt", string(b), Options{})
	if got := strings.Join(findingIDs(fr), ","); got != "nccl.tests_no_output/warning" {
		t.Errorf("findings %s, want nccl.tests_no_output/warning", got)
	}
	// The same launch with its table right below, noise between.
	ls := strings.Split(string(b), "\n")
	var keep []string
	for i, l := range ls {
		if i >= 3 && i < 17 && i != 3 {
			continue // drop the hang comment, top and prose: line 4 is followed by noise and a table
		}
		keep = append(keep, l)
	}
	text := strings.Join(keep, "\n")
	text = strings.Replace(text, "ubuntu@ip-172-32-45-72:~/latest-drivers/nccl-tests$ /opt/amazon/openmpi/bin/mpirun -np 1 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 1\n", "Warning: Permanently added 'ip-172-32-45-72' to the list of known hosts.\n", 1)
	fr = AnalyzeText("t.txt", text, Options{})
	for _, id := range findingIDs(fr) {
		if strings.HasPrefix(id, "nccl.tests_no_output") {
			t.Errorf("a launch followed by its table: %s", id)
		}
	}
	for l, want := range map[string]int{
		"$ mpirun -np 2 -x NCCL_DEBUG=INFO ./build/all_reduce_perf -b 8": 2,
		"srun --ntasks=16 /opt/nccl-tests/build/all_gather_perf -b 1G":   16,
		"mpirun -np 1 ./build/all_reduce_perf":                           1,
	} {
		if n, _, ok := perfLaunch(l); !ok || n != want {
			t.Errorf("perfLaunch(%q) = %d %v, want %d", l, n, ok, want)
		}
	}
	// The launch right above its own table, a launcher line between
	// (testdata/realworld-fresh38, an OCI tutorial's 16-rank run).
	b, err = os.ReadFile("testdata/realworld-fresh38/nccl-tests-ocitutorial-a100-2node-16gpu-10g-191gbs.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range findingIDs(AnalyzeText("t.txt", string(b), Options{})) {
		if strings.HasPrefix(id, "nccl.tests_no_output") {
			t.Errorf("a launch above its own table: %s", id)
		}
	}
	if isLaunchLine("# Collective test starting: all_reduce_perf") || !isLaunchLine("root@h:/# NCCL_DEBUG=INFO ./build/all_reduce_perf -g 8") {
		t.Error("isLaunchLine: a banner read as a launch, or a plain launch not read")
	}
	if _, _, ok := perfLaunch("mpirun -np 2 hostname"); ok {
		t.Error("a launch of no nccl-tests binary read as one")
	}
}

// TestTrailingFailures: the SHARP client's ERROR lines pasted after a
// blank line and prose under `systemctl status sharp_am` (NVIDIA/nccl#1219,
// testdata/realworld-fresh65) are failure lines, a warning.
func TestTrailingFailures(t *testing.T) {
	b, err := os.ReadFile("testdata/realworld-fresh65/systemctl-nccl1219-sharp-am-active-port-used-by-sm.txt")
	if err != nil {
		t.Fatal(err)
	}
	fr := AnalyzeText("t.txt", string(b), Options{})
	if got := strings.Join(findingIDs(fr), ","); got != "paste.failure_lines/warning" {
		t.Errorf("findings %s, want paste.failure_lines/warning", got)
	}
}
