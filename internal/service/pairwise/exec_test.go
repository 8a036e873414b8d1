package pairwise

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// fakePerftest is an ib_write_bw stand-in for TestOSExecutorPerftest: as a
// server (no peer argument) it prints perftest's listening banner and
// lingers, as a client it prints a real ib_write_bw result. It runs as its
// own program through exec, never through a shell started by ibdoctor.
const fakePerftest = `#!/bin/sh
last=""
for a in "$@"; do last="$a"; done
case "$last" in
127.*) cat "$FAKE_PERFTEST_DIR/perftest/ib_write_bw_bnxt_D10.txt" ;;
*) cat "$FAKE_PERFTEST_DIR/perftest/server_waiting.txt"; sleep 1 ;;
esac
`

// TestOSExecutorPerftest runs the perftest backend through the real
// OSExecutor (pipes, exit status) with a stand-in program on PATH.
func TestOSExecutorPerftest(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for the stand-in program")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ib_write_bw"), []byte(fakePerftest), 0o755); err != nil {
		t.Fatal(err)
	}
	td, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_PERFTEST_DIR", td)
	opts := ServerOptions{Token: testToken, Backends: []string{BackendPerftest}}
	a := startAgent(t, "127.0.0.2", opts)
	b := startAgent(t, "127.0.0.3", opts)
	r := &Runner{Token: testToken, Hosts: []Host{a, b}, Test: Test{Backend: BackendPerftest, Kind: KindBW, DurationMS: 1000,
		Perftest: &PerftestParams{Device: "bnxt_re0"}}}
	m, err := r.Run(context.Background(), RoundRobin(2))
	if err != nil {
		t.Fatal(err)
	}
	p := m.Pairs[0]
	if p.Result == nil {
		t.Fatalf("pair failed: %s", p.Error)
	}
	if p.Result.BitsPerSecond != 363.47e9 || p.Result.Samples != 4159603 {
		t.Errorf("result %+v, want 363.47 Gb/s over 4159603 iterations", p.Result)
	}
}
