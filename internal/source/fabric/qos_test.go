package fabric

import (
	"context"
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
