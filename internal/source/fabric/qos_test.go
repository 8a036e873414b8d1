package fabric

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
)

// TestCollectQoSRuns: one sl2vl run per linked switch port (it prints every
// input port's row), one per CA, one vlarb run per linked port; failures
// are counted per output.
func TestCollectQoSRuns(t *testing.T) {
	li, err := os.ReadFile(filepath.Join("..", "..", "parse", "ibdiags", "testdata", "iblinkinfo-spineleaf.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "smpquery")
	// Prints its arguments; fails for LID 3 as an unreachable switch does.
	script := "#!/bin/sh\necho \"$@\"\ncase \"$2\" in 3) exit 255;; esac\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	o := CollectOptions{LookPath: func(string) (string, error) { return fake, nil }, QoS: true}.withDefaults()
	outs := collectQoS(context.Background(), o, &fabricmodel.Output{Name: "iblinkinfo", Stdout: li})
	if len(outs) != 2 {
		t.Fatalf("%d outputs, want 2", len(outs))
	}
	sl, va := string(outs[0].Stdout), string(outs[1].Stdout)
	// spine1 2 linked ports, spine2 2, leaves 4 each, 4 HCAs.
	if n := strings.Count(sl, "sl2vl"); n != 16 {
		t.Errorf("%d sl2vl runs, want 16:\n%s", n, sl)
	}
	for _, want := range []string{"sl2vl 4 5\n", "sl2vl 2\n", "vlarb 2 1\n", "vlarb 6 6\n"} {
		if !strings.Contains(sl+va, want) {
			t.Errorf("no run %q", want)
		}
	}
	if strings.Contains(sl, "sl2vl 4 3\n") {
		t.Error("queried a down port")
	}
	if n := strings.Count(va, "vlarb"); n != 16 {
		t.Errorf("%d vlarb runs, want 16", n)
	}
	if outs[0].Err != "2 of 16 smpquery runs failed" || outs[1].Err != "2 of 16 smpquery runs failed" {
		t.Errorf("errs %q, %q", outs[0].Err, outs[1].Err)
	}
}

// TestCollectPathSLRuns: one saquery run per ordered pair of linked CA
// ports, none to switches; failures counted; above the bound nothing runs
// and the output says why.
func TestCollectPathSLRuns(t *testing.T) {
	li, err := os.ReadFile(filepath.Join("..", "..", "parse", "ibdiags", "testdata", "iblinkinfo-spineleaf.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "saquery")
	// Prints its arguments; fails from LID 2 as without an SA answer.
	script := "#!/bin/sh\necho \"$@\"\ncase \"$2\" in 2:*) exit 1;; esac\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	o := CollectOptions{LookPath: func(string) (string, error) { return fake, nil }, PathSL: true}.withDefaults()
	out := collectPathSL(context.Background(), o, &fabricmodel.Output{Name: "iblinkinfo", Stdout: li})
	if out == nil || out.Name != "saquery-path-sl" {
		t.Fatalf("output %+v", out)
	}
	got := string(out.Stdout)
	// 4 HCAs: 12 ordered pairs.
	if n := strings.Count(got, "--src-to-dst"); n != 12 {
		t.Errorf("%d runs, want 12:\n%s", n, got)
	}
	if out.Err != "3 of 12 saquery runs failed" {
		t.Errorf("err %q", out.Err)
	}
	for _, bad := range []string{":3\n", ":4\n", ":6\n", " 3:", " 4:", " 6:"} { // the switches' LIDs
		if strings.Contains(got, bad) {
			t.Errorf("ran for a switch LID %q:\n%s", bad, got)
		}
	}

	// More CA ports than the bound: no run, the reason in Err.
	var b strings.Builder
	for i := 1; i <= maxPathSLCAs+1; i++ {
		fmt.Fprintf(&b, "CA: h%d:\n      0x%016x %6d    1[  ] ==( 4X           5.0 Gbps Active/  LinkUp)==>       6    %d[  ] \"leaf\" ( )\n", i, 0x1000+i, 100+i, i)
	}
	out = collectPathSL(context.Background(), o, &fabricmodel.Output{Name: "iblinkinfo", Stdout: []byte(b.String())})
	if out == nil || len(out.Stdout) != 0 || !strings.Contains(out.Err, "at most 64") {
		t.Fatalf("over the bound: %+v", out)
	}
}
