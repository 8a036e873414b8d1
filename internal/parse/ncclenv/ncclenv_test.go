package ncclenv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseList(t *testing.T) {
	tests := []struct {
		in   string
		want List
	}{
		{"mlx5_0,mlx5_1", List{Entries: []Entry{{"mlx5_0", -1}, {"mlx5_1", -1}}}},
		{"^mlx5_4", List{Exclude: true, Entries: []Entry{{"mlx5_4", -1}}}},
		{"=mlx5_0:1,mlx5_3:1", List{Exact: true, Entries: []Entry{{"mlx5_0", 1}, {"mlx5_3", 1}}}},
		{"^=mlx5_1", List{Exclude: true, Exact: true, Entries: []Entry{{"mlx5_1", -1}}}},
		// NCCL's atoi: ":x" is port 0, ":1:2" port 1; empty names dropped.
		{"mlx5_0:x,,:1,mlx5_2:1:2", List{Entries: []Entry{{"mlx5_0", 0}, {"mlx5_2", 1}}}},
		// No trimming: the space is part of the name.
		{"mlx5_0, mlx5_1", List{Entries: []Entry{{"mlx5_0", -1}, {" mlx5_1", -1}}}},
		{"", List{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			tt.want.Raw = tt.in
			if diff := cmp.Diff(tt.want, ParseList(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	long := strings.Repeat("mlx5_0,", 40)
	if n := len(ParseList(long).Entries); n != 32 {
		t.Errorf("entries kept = %d, want NCCL's 32", n)
	}
}

func TestSelects(t *testing.T) {
	tests := []struct {
		list, dev string
		port      int
		want      bool
	}{
		{"mlx5_1", "mlx5_1", 1, true},
		{"mlx5_1", "mlx5_10", 1, true}, // prefix match: the ambiguity rule's case
		{"=mlx5_1", "mlx5_10", 1, false},
		{"=mlx5_1", "mlx5_1", 1, true},
		{"mlx5_1:1", "mlx5_1", 2, false},
		{"mlx5_1:1", "mlx5_1", 1, true},
		{"^mlx5_1", "mlx5_10", 1, false},
		{"^=mlx5_1", "mlx5_10", 1, true},
		{"^mlx5_1", "mlx5_2", 1, true},
		{"", "anything", 1, true},
		{"mlx5", "mlx5_7", 1, true},
		{"ib", "mlx5_0", 1, false},
		{"eth0", "eth0", -1, true},
	}
	for _, tt := range tests {
		if got := ParseList(tt.list).Selects(tt.dev, tt.port); got != tt.want {
			t.Errorf("ParseList(%q).Selects(%s, %d) = %v, want %v", tt.list, tt.dev, tt.port, got, tt.want)
		}
	}
}

func TestParseEnv(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "job.env"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Parse(strings.NewReader(string(b)), "job.env")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"NCCL_IB_HCA":        "mlx5_0,mlx5_1",
		"NCCL_SOCKET_IFNAME": "=eth9",
		"NCCL_IB_GID_INDEX":  "3",
		"NCCL_DEBUG":         "INFO",
		"NCCL_IB_DISABLE":    "0",
	} {
		if got, ok := e.Get(name); !ok || got != want {
			t.Errorf("%s = %q, %v; want %q", name, got, ok, want)
		}
	}
	c := Read(e)
	if c.IBDisable == nil || *c.IBDisable != 0 || c.GIDIndex == nil || *c.GIDIndex != 3 {
		t.Errorf("config = %+v", c)
	}
	if c.IBHCA == nil || len(c.IBHCA.Entries) != 2 || c.SocketIfname == nil || !c.SocketIfname.Exact {
		t.Errorf("lists = %+v %+v", c.IBHCA, c.SocketIfname)
	}

	environ, err := Parse(strings.NewReader("NCCL_IB_DISABLE=1\x00PATH=/bin\x00NCCL_IB_DISABLE=0\x00"), "/proc/42/environ")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := environ.Get("NCCL_IB_DISABLE"); v != "1" {
		t.Errorf("environ NCCL_IB_DISABLE = %q, want the first (1)", v)
	}
}

func TestReadConfig(t *testing.T) {
	c := Read(FromList("t", []string{"NCCL_IB_DISABLE=yes", "NCCL_SOCKET_IFNAME=e", "NCCL_IB_GID_INDEX=0x3"}))
	if c.IBDisable != nil || len(c.Problems) != 1 || !strings.Contains(c.Problems[0], "NCCL_IB_DISABLE") {
		t.Errorf("IBDisable=yes: %+v", c)
	}
	if c.SocketIfname != nil {
		t.Errorf("one-character NCCL_SOCKET_IFNAME is ignored by NCCL, got %+v", c.SocketIfname)
	}
	if c.GIDIndex == nil || *c.GIDIndex != 3 {
		t.Errorf("GIDIndex = %v", c.GIDIndex)
	}
}

func TestParseEnvErrors(t *testing.T) {
	for _, in := range []string{"NCCL_IB_HCA\n", "1BAD=x\n", "# ok\nnot an assignment\n", "A-B=1\n"} {
		_, err := Parse(strings.NewReader(in), "x.env")
		var pe *ParseError
		if !errors.Is(err, ErrMalformed) || !errors.As(err, &pe) || pe.Line < 1 || !strings.HasPrefix(err.Error(), "x.env line ") {
			t.Errorf("Parse(%q) err = %v", in, err)
		}
	}
}

func FuzzParseList(f *testing.F) {
	for _, s := range []string{"mlx5_0,mlx5_1", "^=mlx5_1:1", "mlx5_0:x,,:1", "=eth0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l := ParseList(s)
		if len(l.Entries) > maxListEntries {
			t.Fatalf("%d entries", len(l.Entries))
		}
		for _, e := range l.Entries {
			if e.Prefix == "" || strings.ContainsAny(e.Prefix, ",:") {
				t.Fatalf("bad entry %+v", e)
			}
			// An entry always selects its own name unless excluded.
			if got := l.Selects(e.Prefix, e.Port); got == l.Exclude {
				t.Fatalf("%q: entry %+v does not select itself", s, e)
			}
		}
	})
}

func FuzzParseEnv(f *testing.F) {
	b, _ := os.ReadFile(filepath.Join("testdata", "job.env"))
	f.Add(string(b))
	f.Add("A=1\x00B=2\x00")
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		for i, v := range e.Vars {
			if i > 0 && e.Vars[i-1].Name >= v.Name {
				t.Fatalf("vars not sorted/unique: %v", e.Vars)
			}
		}
		Read(e)
	})
}

// TestInlineSetting: settings of a variable on the lines of a paste
// (NVIDIA/nccl#1510: "export NCCL_IB_GID_INDEX=4" on both nodes), and
// lines that set nothing.
func TestInlineSetting(t *testing.T) {
	for _, tc := range []struct {
		line, want string
		ok         bool
	}{
		{"export NCCL_IB_GID_INDEX=4", "4", true},
		{"NCCL_IB_GID_INDEX=3 NCCL_DEBUG=INFO torchrun --nnodes 2 train.py", "3", true},
		{"mpirun -np 16 -x NCCL_IB_GID_INDEX=3 -x NCCL_DEBUG=INFO ./all_reduce_perf", "3", true},
		{`docker run -e NCCL_IB_GID_INDEX="5" image`, "5", true},
		{"export NCCL_IB_GID_INDEX=4;", "4", true},
		{"node013:37715:38896 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.", "3", true},
		{"# export NCCL_IB_GID_INDEX=3", "", false},
		{"export MY_NCCL_IB_GID_INDEX=3", "", false},
		{"I tried NCCL_IB_GID_INDEX=3 and NCCL_IB_GID_INDEX=5, both hang", "", false},
		{"export NCCL_IB_GID_INDEX=", "", false},
		{"export NCCL_IB_HCA=mlx5", "", false},
	} {
		got, ok := InlineSetting(tc.line, "NCCL_IB_GID_INDEX")
		if got != tc.want || ok != tc.ok {
			t.Errorf("InlineSetting(%q) = %q, %v; want %q, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}
