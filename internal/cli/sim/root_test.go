package sim_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli"
	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
)

// TestThroughRoot runs `ibdoctor sim node` through the real command tree:
// the command is wired into the root, and errors reach the user with exit
// code 3.
func TestThroughRoot(t *testing.T) {
	cases := []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"sim", "node", "--list"}, 0, "h100-ndr (default)", ""},
		{[]string{"sim", "node", "--out", t.TempDir(), "--fault", "down:mlx5_3"}, 3, "", "ibdoctor: --fault: bad fault \"down:mlx5_3\": target \"mlx5_3\": want DEVICE/PORT"},
		{[]string{"sim", "node", "--out", t.TempDir(), "--profile", "nope"}, 3, "", `unknown profile "nope"`},
		{[]string{"sim", "node", "--bogus"}, 3, "", "unknown flag: --bogus"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		f := &cmdutil.Factory{Out: &out, ErrOut: &errOut, Now: time.Now, Getenv: func(string) string { return "" }}
		code := cli.Run(f, c.args)
		if code != c.code || !strings.Contains(out.String(), c.out) || !strings.Contains(errOut.String(), c.err) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, code, out.String(), errOut.String(), c.code, c.out, c.err)
		}
	}
}
