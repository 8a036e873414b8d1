package fabric

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCollectMissingTools(t *testing.T) {
	o := CollectOptions{
		LookPath: func(string) (string, error) { return "", errors.New("executable file not found in $PATH") },
		Now:      func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
	}
	raw, err := Collect(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, out := range raw.Outputs {
		names = append(names, out.Name)
		if !strings.Contains(out.Err, "not found (install infiniband-diags)") || len(out.Stdout) != 0 {
			t.Errorf("%s: err %q, %d bytes of stdout", out.Name, out.Err, len(out.Stdout))
		}
	}
	// Every step is tried although each failed; saquery's failure leaves
	// no SMs to ask, and iblinkinfo's no ports for perfquery.
	if got, want := strings.Join(names, " "), "ibnetdiscover iblinkinfo ibqueryerrors dump_fts sminfo saquery-sm"; got != want {
		t.Errorf("outputs %q, want %q", got, want)
	}
	if raw.Source != "live" || !raw.Taken.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("source %q taken %v", raw.Source, raw.Taken)
	}
}

func TestCollectRejectsBadOptions(t *testing.T) {
	for _, bad := range []CollectOptions{{CA: "mlx5_0; rm -rf /"}, {Port: 300}, {Port: -1}} {
		if _, err := Collect(context.Background(), bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestDescribeRunError(t *testing.T) {
	exit := errors.New("exit status 255")
	tests := []struct {
		err, ctxErr error
		stderr      string
		want        string
	}{
		{exit, context.DeadlineExceeded, "", "ibnetdiscover timed out after 1m0s"},
		{exit, nil, "ibwarn: [1] umad_open_port: can't open UMAD port (mlx5_0:1)\nibnetdiscover: iberror: failed: Failed to open 'mlx5_0' port '1'\n", "cannot open the umad device (permission denied"},
		{exit, nil, "ibwarn: [1] mad_rpc: _do_madrpc failed; dport (Lid 3)\nsminfo: iberror: failed: query\n", "ibnetdiscover: exit status 255: sminfo: iberror: failed: query"},
		{exit, nil, "", "ibnetdiscover: exit status 255"},
	}
	for _, tt := range tests {
		got := describeRunError("ibnetdiscover", tt.err, tt.ctxErr, []byte(tt.stderr), time.Minute)
		if !strings.Contains(got, tt.want) {
			t.Errorf("got %q, want it to contain %q", got, tt.want)
		}
	}
}
