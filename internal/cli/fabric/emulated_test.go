package fabric

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

// TestEmulatedFabric moves real bytes through an emulated fat-tree
// (bench/emulated-fabric.sh: network namespaces for the hosts and switches,
// veth links shaped by tc, routes from the forwarding tables OpenSM
// programmed under ibsim) and checks that `fabric job`'s prediction for a
// congested placement and for its proposed order agree with the measured
// throughput within 15%: the per-flow fraction of the flows predicted
// slowest, and the ratio between the two placements. It needs root and
// network namespaces, and skips only without them.
func TestEmulatedFabric(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the emulated fabric creates network namespaces and shapes links with tc")
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("no network namespaces: ip (iproute2) is not installed")
	}
	probe := fmt.Sprintf("ibem-probe-%d", os.Getpid())
	if out, err := exec.Command(ip, "netns", "add", probe).CombinedOutput(); err != nil {
		t.Skipf("no network namespaces: ip netns add: %v: %s", err, bytes.TrimSpace(out))
	}
	_ = exec.Command(ip, "netns", "del", probe).Run()
	for _, tool := range []string{"tc", "curl", "awk"} {
		testenv.NeedTool(t, tool)
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "ibdoctor")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go not found to build ibdoctor: %v", err)
	}
	build := exec.Command(goTool, "build", "-o", bin, "./cmd/ibdoctor")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	// One retry: the machine the tests run on may be busy enough to starve
	// a flow for a moment in every repetition.
	var last string
	for attempt := 1; attempt <= 2; attempt++ {
		got, out, err := runEmulation(t, root, bin)
		if err != nil {
			t.Fatalf("bench/emulated-fabric.sh: %v\n%s", err, out)
		}
		last = out
		bad := got.disagreements(0.15)
		if len(bad) == 0 {
			t.Logf("attempt %d: %+v", attempt, got)
			return
		}
		t.Logf("attempt %d: %s\n%s", attempt, strings.Join(bad, "; "), out)
	}
	t.Errorf("measured and predicted differ by more than 15%% twice; last run:\n%s", last)
}

// emulation is the script's RESULT line.
type emulation struct {
	PredictedA, MeasuredA, PredictedB, MeasuredB, PredictedRatio, MeasuredRatio float64
}

var resultLine = regexp.MustCompile(`(?m)^RESULT (.*)$`)

func runEmulation(t *testing.T, root, bin string) (emulation, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "bench/emulated-fabric.sh"), "--seconds", "2", "--reps", "3")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "IBDOCTOR="+bin)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	// The script tears the namespaces down on SIGTERM too.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 20 * time.Second
	if err := cmd.Run(); err != nil {
		return emulation{}, buf.String(), err
	}
	m := resultLine.FindStringSubmatch(buf.String())
	if m == nil {
		return emulation{}, buf.String(), errors.New("no RESULT line")
	}
	kv := map[string]float64{}
	for _, f := range strings.Fields(m[1]) {
		k, v, _ := strings.Cut(f, "=")
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return emulation{}, buf.String(), fmt.Errorf("RESULT %s: %v", f, err)
		}
		kv[k] = x
	}
	e := emulation{kv["predicted_a"], kv["measured_a"], kv["predicted_b"], kv["measured_b"], kv["predicted_ratio"], kv["measured_ratio"]}
	if e.PredictedA <= 0 || e.PredictedB <= 0 || e.MeasuredA <= 0 {
		return e, buf.String(), fmt.Errorf("incomplete RESULT line: %s", m[0])
	}
	return e, buf.String(), nil
}

// disagreements lists the figures that differ from their prediction by
// more than tol, and a placement (a) not predicted congested.
func (e emulation) disagreements(tol float64) []string {
	var out []string
	if e.PredictedA >= 0.75 || e.PredictedB <= e.PredictedA {
		out = append(out, fmt.Sprintf("(a) should be predicted congested and (b) better: %.2f, %.2f", e.PredictedA, e.PredictedB))
	}
	for _, f := range []struct {
		name      string
		pred, got float64
	}{
		{"(a) per-flow fraction", e.PredictedA, e.MeasuredA},
		{"(b) per-flow fraction", e.PredictedB, e.MeasuredB},
		{"ratio (b)/(a)", e.PredictedRatio, e.MeasuredRatio},
	} {
		if d := f.got/f.pred - 1; d > tol || d < -tol {
			out = append(out, fmt.Sprintf("%s: measured %.3f, predicted %.3f", f.name, f.got, f.pred))
		}
	}
	return out
}
