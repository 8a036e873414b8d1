package metrics

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		file    string
		want    ProcStat
		wantErr string
	}{
		{file: "testdata/proc-self-stat.txt", want: ProcStat{UTime: 0, STime: 0, VSize: 3133440, RSS: 389}},
		{file: "testdata/proc-stat-paren.txt", want: ProcStat{UTime: 12, STime: 34, VSize: 3133440, RSS: 389}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseProcStat(data)
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.file, got, err, tt.want)
		}
	}
	for in, want := range map[string]string{
		"":              "no ')'",
		"1 (x) R 1 2 3": "4 fields",
		"1 (x) R" + strings.Repeat(" 1", 10) + " x" + strings.Repeat(" 1", 20): "field 14",
		"1 (x) R" + strings.Repeat(" 1", 20) + " -5" + strings.Repeat(" 1", 5): "field 24",
	} {
		if _, err := ParseProcStat([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseProcStat(%q) err = %v, want %q", in, err, want)
		}
	}
}

func TestSelfCollector(t *testing.T) {
	c := NewSelfCollector()
	if n := testutil.CollectAndCount(c); n != 4 {
		t.Errorf("%d metrics from /proc/self/stat, want 4", n)
	}
	if v := testutil.ToFloat64(prometheusOnly(c, "ibdoctor_process_resident_memory_bytes")); v < 1<<20 {
		t.Errorf("RSS %v bytes: implausible for a Go test binary", v)
	}
	c.path = "/nonexistent/stat"
	if n := testutil.CollectAndCount(c); n != 1 {
		t.Errorf("unreadable stat: %d metrics, want only ibdoctor_process_stat_up", n)
	}
}

func FuzzParseProcStat(f *testing.F) {
	for _, name := range []string{"testdata/proc-self-stat.txt", "testdata/proc-stat-paren.txt"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseProcStat(data)
		if err != nil {
			return
		}
		// Only what follows the command name counts: any other name gives
		// the same result.
		i := bytes.LastIndexByte(data, ')')
		again, err := ParseProcStat(append([]byte("1 (other name"), data[i:]...))
		if err != nil || again != st {
			t.Fatalf("result depends on the command name: %+v vs %+v (%v)", st, again, err)
		}
	})
}

// prometheusOnly wraps one metric family of a collector for testutil.ToFloat64.
func prometheusOnly(c *SelfCollector, name string) *filtered { return &filtered{c, name} }

// TestSelfAppendText: the text AppendText writes is what the registry and
// expfmt write of Collect, readable stat or not.
func TestSelfAppendText(t *testing.T) {
	for _, path := range []string{"testdata/proc-self-stat.txt", "testdata/proc-stat-paren.txt", "/nonexistent/stat"} {
		c := NewSelfCollector()
		c.path = path
		want, err := clientGolangText(t, c)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.AppendText(nil); string(got) != string(want) {
			t.Errorf("%s: AppendText differs from client_golang:\n%s", path, lineDiff(string(want), string(got)))
		}
	}
}
