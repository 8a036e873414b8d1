// Package testenv lets integration tests demand the real parts they run
// against (ibsim, opensm, infiniband-diags, promtool, prometheus, chromium):
// on CI (CI=true) a missing tool fails the test; elsewhere it skips it.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// OnCI reports whether the tests run under CI (CI=true), where nothing may
// be skipped for a missing tool.
func OnCI() bool { return os.Getenv("CI") == "true" }

// NeedTool returns the path of an executable, failing the test on CI and
// skipping it elsewhere when the tool is missing.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if OnCI() {
			t.Fatalf("%s is required on CI (make test installs it via scripts/install-deps.sh): %v", name, err)
		}
		t.Skipf("%s not installed: %v (run scripts/install-deps.sh)", name, err)
	}
	return p
}
