package fabric

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJobCommand(t *testing.T) {
	out, _, code := run(t, "job", "--from", capture, "--hosts", "h[1-4]")
	if code != 0 || !strings.Contains(out, "ring over 4 hosts, 1 rail(s): 4 flows") || !strings.Contains(out, "predicted: 100%") || !strings.Contains(out, "HEALTHY") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// A host file, a missing host, another pattern, the proposed order
	// written out, JSON.
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts")
	os.WriteFile(hosts, []byte("# job 17\nh1 slots=8\nh3\nh2\nh4\nnothere\n"), 0o644)
	better := filepath.Join(dir, "better")
	out, _, code = run(t, "job", "--from", capture, "--hosts", hosts, "--pattern", "alltoall", "--out-hostfile", better, "--format", "json", "--bisections", "5")
	var rep JobReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if rep.Given.Pattern != "alltoall" || rep.Given.Flows != 12 || len(rep.Missing) != 1 || rep.Missing[0] != "nothere" || rep.Bisection == nil || rep.Bisection.Ports != 4 {
		t.Errorf("report %+v", rep)
	}
	if b, err := os.ReadFile(better); err != nil || strings.Count(string(b), "\n") != 4 {
		t.Errorf("out-hostfile: %q %v", b, err)
	}
	for _, args := range [][]string{
		{"job", "--from", capture},                                        // no --hosts
		{"job", "--from", capture, "--hosts", "h[1-2]", "--pattern", "x"}, // bad pattern
		{"job", "--from", capture, "--hosts", "gpu[1-"},                   // bad hostlist
		{"job", "--from", capture, "--hosts", "x[1-3]"},                   // no host in the fabric
	} {
		if _, _, code := run(t, args...); code != 3 {
			t.Errorf("%v: exit %d, want 3", args, code)
		}
	}
}

// fabric check reports the effective bisection bandwidth of the routes,
// and --bisections -1 leaves it out.
func TestCheckBisection(t *testing.T) {
	out, _, _ := run(t, "check", "--from", capture, "--format", "json")
	var doc Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Bisection == nil || doc.Bisection.Ports != 4 || doc.Bisection.Samples != 20 || doc.Bisection.Mean <= 0 {
		t.Errorf("bisection %+v", doc.Bisection)
	}
	out, _, _ = run(t, "check", "--from", capture, "--bisections", "-1")
	if strings.Contains(out, "bisection") {
		t.Errorf("--bisections -1 still reports it:\n%s", out)
	}
}
