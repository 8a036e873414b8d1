package proc

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseLimits(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "limits-8mib.txt"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseLimits(strings.NewReader(string(b)), "proc/4242/limits")
	if err != nil {
		t.Fatal(err)
	}
	if l.Soft != 8388608 || l.Hard != 8388608 || l.SoftUnlimited || l.HardUnlimited {
		t.Errorf("limits = %+v", l)
	}
	l, err = ParseLimits(strings.NewReader("Max locked memory         unlimited            unlimited            bytes\n"), "x")
	if err != nil || !l.SoftUnlimited || !l.HardUnlimited {
		t.Errorf("unlimited = %+v, %v", l, err)
	}
	for _, bad := range []string{"", "Max cpu time unlimited unlimited seconds\n", "Max locked memory         lots            unlimited            bytes\n", "Max locked memory\n"} {
		if _, err := ParseLimits(strings.NewReader(bad), "x"); err == nil {
			t.Errorf("ParseLimits(%q) accepted", bad)
		}
	}
}

func TestParseModules(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "modules.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseModules(strings.NewReader(string(b)), "proc/modules")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(m, "nvidia_peermem") || !slices.Contains(m, "mlx5_ib") || len(m) != 8 {
		t.Errorf("modules = %v", m)
	}
	if _, err := ParseModules(strings.NewReader("mlx5_ib x 0 - Live 0x0\n"), "proc/modules"); err == nil || !strings.Contains(err.Error(), "proc/modules line 1") {
		t.Errorf("bad size err = %v", err)
	}
}

func FuzzParseLimits(f *testing.F) {
	b, _ := os.ReadFile(filepath.Join("testdata", "limits-8mib.txt"))
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLimits(strings.NewReader(s), "fuzz")
		if err == nil && l.SoftUnlimited && l.Soft != 0 {
			t.Fatalf("unlimited with a value: %+v", l)
		}
	})
}

func FuzzParseModules(f *testing.F) {
	b, _ := os.ReadFile(filepath.Join("testdata", "modules.txt"))
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseModules(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		for _, n := range m {
			if n == "" || strings.ContainsAny(n, " \t\n") {
				t.Fatalf("bad module name %q", n)
			}
		}
	})
}

// TestParseErrors: every refusal is a ParseError naming the source and,
// where there is one, the line, and wraps ErrMalformed.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		parse func(string) error
		in    string
		want  string
	}{
		{"limits: no memlock line", limits, "Max cpu time unlimited unlimited seconds\n", `x: malformed input: no "Max locked memory" line`},
		{"limits: one value", limits, "Max open files 1024 4096 files\nMax locked memory 64\n", `x line 2: malformed input: "Max locked memory 64"`},
		{"limits: bad value", limits, "Max locked memory         lots            unlimited            bytes\n", `x line 1: malformed input: limit "lots"`},
		{"modules: short line", modules, "mlx5_ib 1\n", "x line 1: malformed input: want name size refcount …"},
		{"modules: bad size", modules, "mlx5_core 2 0 - Live 0x0\nmlx5_ib x 0 - Live 0x0\n", `x line 2: malformed input: size "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse(tt.in)
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) || err.Error() != tt.want {
				t.Errorf("got %v, want the ParseError %q", err, tt.want)
			}
		})
	}
}

func limits(s string) error {
	_, err := ParseLimits(strings.NewReader(s), "x")
	return err
}

func modules(s string) error {
	_, err := ParseModules(strings.NewReader(s), "x")
	return err
}

func TestParseBootTime(t *testing.T) {
	tests := []struct {
		in   string
		want int64 // seconds; 0: an error
	}{
		{"cpu  1 2 3\nintr 5\nctxt 9\nbtime 1732860000\nprocesses 7\n", 1732860000},
		{"btime 1732860000", 1732860000},
		{"btime x\nbtime 1700000000\n", 1700000000},
		{"btime 0\n", 0},
		{"btime -5\n", 0},
		{"cpu  1 2 3\n", 0},
		{"", 0},
	}
	for _, tt := range tests {
		got, err := ParseBootTime([]byte(tt.in), "proc/stat")
		switch {
		case tt.want == 0 && (err == nil || !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), "proc/stat: ")):
			t.Errorf("%q: %v, %v; want an error naming proc/stat", tt.in, got, err)
		case tt.want != 0 && (err != nil || !got.Equal(time.Unix(tt.want, 0)) || got.Location() != time.UTC):
			t.Errorf("%q: %v, %v; want %d UTC", tt.in, got, err, tt.want)
		}
	}
}

func TestParseUptime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration // -1: an error
	}{
		{"350735.47 234388.90\n", 350735470 * time.Millisecond},
		{"0.00 0.00\n", 0},
		{"12", 12 * time.Second},
		{"", -1},
		{"-1.00 0.00\n", -1},
		{"1e10 0\n", -1},
		{"up 0\n", -1},
	}
	for _, tt := range tests {
		got, err := ParseUptime([]byte(tt.in), "proc/uptime")
		switch {
		case tt.want < 0 && (err == nil || !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), "proc/uptime")):
			t.Errorf("%q: %v, %v; want an error naming proc/uptime", tt.in, got, err)
		case tt.want >= 0 && (err != nil || got.Round(time.Millisecond) != tt.want):
			t.Errorf("%q: %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}
