package fabric

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJobCommand(t *testing.T) {
	// The capture's leaf2[5] <-> spine1 link trained at 1X SDR: the ring in
	// host order climbs it (a quarter of the fabric's 4X SDR); the proposed
	// order keeps every flow off it.
	out, _, code := run(t, "job", "--from", capture, "--hosts", "h[1-4]")
	if code != 1 || !strings.Contains(out, "ring over 4 hosts, 1 rail(s): 4 flows") || !strings.Contains(out, "predicted: 25%") ||
		!strings.Contains(out, "proposed order (leaf by leaf): 100% predicted") || !strings.Contains(out, "fabric.job_congested") {
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

// On the ibsim-faults capture h8's link runs DDR (20 Gb/s) in a QDR fabric:
// the ring's slowest flows cross it, the report says so, and names h8 as
// the host whose removal clears it, in text and JSON; the CSV carries each
// link's share and rate.
func TestJobDegradedLink(t *testing.T) {
	const faults = "../../rules/fabric/testdata/ibsim-faults"
	out, _, code := run(t, "job", "--from", faults, "--hosts", "h[2-8]")
	for _, want := range []string{
		"predicted: 50% of a contention-free fabric",
		"leaf4[2] → h8[1]  (h7)",
		"degraded: runs at 20 Gb/s, below the fabric's 40 Gb/s",
		"hosts whose removal clears the hot spot: h8 (the rest, same order: 100% predicted)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in (exit %d):\n%s", want, code, out)
		}
	}
	out, _, _ = run(t, "job", "--from", faults, "--hosts", "h[2-8]", "--format", "json")
	var rep JobReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if r := rep.Given.Relief; r == nil || strings.Join(r.Hosts, ",") != "h8" || r.Fraction != 1 || rep.Given.Hot[0].Gbps != 20 {
		t.Errorf("relief %+v, hot %+v", r, rep.Given.Hot)
	}
	out, _, _ = run(t, "job", "--from", faults, "--hosts", "h[2-8]", "--format", "csv")
	if !strings.HasPrefix(out, "from,to,flows,hosts,share,gbps,degraded\n") || !strings.Contains(out, "leaf4[2],h8[1],1,h7,0.5000,20,") {
		t.Errorf("csv:\n%s", out)
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
