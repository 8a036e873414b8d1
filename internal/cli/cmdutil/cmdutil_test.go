package cmdutil

import (
	"bytes"
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

func TestColorEnabled(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		tty  bool
		env  map[string]string
		want bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"NO_COLOR": ""}, true}, // set but empty does not count (no-color.org)
		{true, map[string]string{"TERM": "dumb"}, false},
	}
	for _, tt := range tests {
		if got := ColorEnabled(tt.tty, env(tt.env)); got != tt.want {
			t.Errorf("ColorEnabled(%v, %v) = %v", tt.tty, tt.env, got)
		}
	}
}

func TestFormatFlagAndExit(t *testing.T) {
	var f Format
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	AddFormatFlag(cmd, &f, "csv")
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	for in, want := range map[string]Format{"json": FormatJSON, "text": FormatText, "csv": "csv"} {
		cmd.SetArgs([]string{"--format", in})
		if err := cmd.Execute(); err != nil || f != want {
			t.Errorf("--format %s: %v %v", in, f, err)
		}
	}
	cmd.SetArgs([]string{"--format", "yaml"})
	if err := cmd.Execute(); err == nil {
		t.Error("--format yaml accepted")
	}
	if Exit(0) != nil {
		t.Error("Exit(0) must be nil")
	}
	var ee *ExitError
	if err := Exit(2); !errors.As(err, &ee) || ee.Code != 2 || ee.Err != nil {
		t.Errorf("Exit(2) = %v", err)
	}
	if err := CannotRun(errors.New("boom")); !errors.As(err, &ee) || ee.Code != 3 || err.Error() != "boom" {
		t.Errorf("CannotRun = %v", err)
	}
	if CannotRun(nil) != nil {
		t.Error("CannotRun(nil) must be nil")
	}
	// An ExitError passes through CannotRun unchanged.
	if err := CannotRun(Exit(1)); !errors.As(err, &ee) || ee.Code != 1 {
		t.Errorf("CannotRun(Exit(1)) = %v", err)
	}
}
