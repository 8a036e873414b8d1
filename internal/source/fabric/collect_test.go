package fabric

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
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
	for _, bad := range []CollectOptions{{CA: "mlx5_0; rm -rf /"}, {Port: 300}, {Port: -1}, {Parallel: 9}, {Parallel: -1}} {
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

// fakeTools writes shell scripts standing in for the infiniband-diags
// tools: each prints its name and arguments, ibnetdiscover writes its
// --cache file (or fails when discoverFails), and the discovering tools
// sleep a little so that overlaps show.
func fakeTools(t *testing.T, discoverFails bool) func(string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"ibnetdiscover", "iblinkinfo", "ibqueryerrors", "dump_fts", "sminfo", "saquery"} {
		body := "#!/bin/sh\necho \"$0 $*\"\n"
		switch name {
		case "ibnetdiscover":
			body += "sleep 0.3\n"
			if discoverFails {
				body += "exit 1\n"
			}
			body += "while [ $# -gt 0 ]; do if [ \"$1\" = --cache ]; then echo cache > \"$2\"; fi; shift; done\n"
		case "dump_fts":
			body += "sleep 0.3\n"
		case "saquery":
			body += "exit 1\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return func(name string) (string, error) { return filepath.Join(dir, name), nil }
}

// TestCollectConcurrentWithCache: dump_fts runs beside ibnetdiscover;
// iblinkinfo and ibqueryerrors start after it and load its cache, or
// discover again themselves when it failed.
func TestCollectConcurrentWithCache(t *testing.T) {
	for _, tt := range []struct {
		name          string
		discoverFails bool
		cached        bool
	}{
		{"cache", false, true},
		{"discovery failed", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := Collect(context.Background(), CollectOptions{LookPath: fakeTools(t, tt.discoverFails)})
			if err != nil {
				t.Fatal(err)
			}
			disc, fts := raw.Get("ibnetdiscover"), raw.Get("dump_fts")
			discEnd := disc.StartMS + disc.DurationMS
			if fts.StartMS >= discEnd {
				t.Errorf("dump_fts started at %.0f ms, after ibnetdiscover ended (%.0f ms)", fts.StartMS, discEnd)
			}
			for _, name := range []string{"iblinkinfo", "ibqueryerrors"} {
				o := raw.Get(name)
				if o.StartMS < discEnd {
					t.Errorf("%s started at %.0f ms, before ibnetdiscover ended (%.0f ms)", name, o.StartMS, discEnd)
				}
				if got := slices.Contains(o.Args, "--load-cache"); got != tt.cached || o.Err != "" {
					t.Errorf("%s args %q (err %q): --load-cache %v, want %v", name, o.Args, o.Err, got, tt.cached)
				}
			}
			if raw.WallMS <= 0 || raw.WallMS > disc.DurationMS+fts.DurationMS+raw.Get("iblinkinfo").DurationMS+raw.Get("ibqueryerrors").DurationMS+1000 {
				t.Errorf("wall %.0f ms", raw.WallMS)
			}
		})
	}
}
