package testenv

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// StartPrometheus runs Debian's prometheus with the given configuration
// (YAML) on a free 127.0.0.1 port, for at most 90 s, and returns its
// address. It is stopped, and its log shown if the test failed, at
// cleanup. A missing prometheus fails on CI and skips elsewhere.
func StartPrometheus(t testing.TB, config string) string {
	t.Helper()
	prom := NeedTool(t, "prometheus")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	pl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pl.Addr().String()
	pl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	cmd := exec.CommandContext(ctx, prom, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		cancel()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("prometheus log:\n%s", b)
		}
	})
	return addr
}
