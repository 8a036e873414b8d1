package pairwise

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseHosts(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     []Host
		wantLine int
		wantErr  string
	}{
		{name: "file", in: readTestdata(t, "hosts.txt"), want: []Host{
			{Addr: "10.0.12.1:9464", Name: "gpu001", Line: 2},
			{Addr: "10.0.12.2:9464", Name: "gpu002", Line: 3},
			{Addr: "gpu003.cluster.local:9464", Name: "gpu003.cluster.local", Line: 5},
			{Addr: "[fd00::12:4]:9464", Name: "gpu004", Line: 6},
		}},
		{name: "loopback", in: "127.0.0.2:80\n127.0.0.3:00080\n", want: []Host{
			{Addr: "127.0.0.2:80", Name: "127.0.0.2", Line: 1},
			{Addr: "127.0.0.3:80", Name: "127.0.0.3", Line: 2},
		}},
		{name: "empty", in: "# nothing\n\n", want: nil},
		{name: "no port", in: "10.0.0.1\n", wantLine: 1, wantErr: "missing port"},
		{name: "port range", in: "# c\n10.0.0.1:70000\n", wantLine: 2, wantErr: "port \"70000\""},
		{name: "port zero", in: "10.0.0.1:0\n", wantLine: 1, wantErr: "port \"0\""},
		{name: "shell", in: "a;rm -rf /:80\n", wantLine: 1, wantErr: "fields"},
		{name: "bad host", in: "$(id):80\n", wantLine: 1, wantErr: "not an IP address or DNS name"},
		{name: "too many fields", in: "a:1 b c\n", wantLine: 1, wantErr: "3 fields"},
		{name: "bad name", in: "a:1 `x`\n", wantLine: 1, wantErr: "node name"},
		{name: "dup addr", in: "a:1\nb:1\na:1\n", wantLine: 3, wantErr: "already listed on line 1"},
		{name: "dup name", in: "a:1 n\nb:1 n\n", wantLine: 2, wantErr: "already used on line 1"},
		{name: "long line", in: strings.Repeat("a", 5000) + "\n", wantLine: 1, wantErr: "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHosts(strings.NewReader(tt.in), "hosts.txt")
			if tt.wantErr != "" {
				var pe *ParseError
				if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) {
					t.Fatalf("err = %v, want a ParseError wrapping ErrMalformed", err)
				}
				if pe.Line != tt.wantLine || pe.Source != "hosts.txt" || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v (line %d), want line %d containing %q", err, pe.Line, tt.wantLine, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestParseTopology(t *testing.T) {
	got, err := ParseTopology(strings.NewReader(readTestdata(t, "topology.txt")), "topology.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := &Topology{Hosts: map[string]Placement{
		"gpu001":               {Leaf: "leaf01"},
		"gpu002":               {Leaf: "leaf01", Rail: "0", Spine: "spine-a"},
		"gpu003.cluster.local": {Leaf: "leaf02", Rail: "1"},
		"gpu004":               {Leaf: "leaf02", Spine: "spine-b"},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	bad := []struct{ in, want string }{
		{"gpu001\n", "want `host leaf`"},
		{"gpu001 leaf01 leaf02\n", "bare leaf name"},
		{"gpu001 leaf=a leaf=b\n", "leaf given twice"},
		{"gpu001 pod=a\n", "unknown key \"pod\""},
		{"gpu001 leaf=\n", "leaf name \"\""},
		{"gpu001 a\ngpu001 b\n", "already placed on line 1"},
		{"g;id a\n", "host name"},
	}
	for _, b := range bad {
		_, err := ParseTopology(strings.NewReader(b.in), "t.txt")
		if err == nil || !strings.Contains(err.Error(), b.want) || !strings.HasPrefix(err.Error(), "t.txt line ") {
			t.Errorf("ParseTopology(%q) = %v, want error with %q", b.in, err, b.want)
		}
	}
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzParseHosts checks that any input either fails with a ParseError or
// yields hosts whose addresses split and re-parse to the same list.
func FuzzParseHosts(f *testing.F) {
	f.Add(readTestdata(f, "hosts.txt"))
	f.Add("127.0.0.1:1\n[::1]:2 x\n")
	f.Add("a:1\na:1\n")
	f.Fuzz(func(t *testing.T, in string) {
		hosts, err := ParseHosts(strings.NewReader(in), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		var b strings.Builder
		for _, h := range hosts {
			if h.Name == "" || h.IP() == "" {
				t.Fatalf("host without name or address: %+v", h)
			}
			b.WriteString(h.Addr + " " + h.Name + "\n")
		}
		again, err := ParseHosts(strings.NewReader(b.String()), "again")
		if err != nil {
			t.Fatalf("round trip of %q: %v", b.String(), err)
		}
		if d := cmp.Diff(hosts, again, cmpopts.IgnoreFields(Host{}, "Line"), cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("round trip (-first +second)\n%s", d)
		}
	})
}

// FuzzParseTopology checks that any input either fails with a ParseError or
// yields placements that print and re-parse to the same topology.
func FuzzParseTopology(f *testing.F) {
	f.Add(readTestdata(f, "topology.txt"))
	f.Add("h leaf=a rail=b spine=c\n")
	f.Fuzz(func(t *testing.T, in string) {
		topo, err := ParseTopology(strings.NewReader(in), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		var b strings.Builder
		for h, p := range topo.Hosts {
			b.WriteString(h)
			if p.Leaf != "" {
				b.WriteString(" leaf=" + p.Leaf)
			}
			if p.Rail != "" {
				b.WriteString(" rail=" + p.Rail)
			}
			if p.Spine != "" {
				b.WriteString(" spine=" + p.Spine)
			}
			b.WriteString("\n")
		}
		again, err := ParseTopology(strings.NewReader(b.String()), "again")
		if err != nil {
			t.Fatalf("round trip of %q: %v", b.String(), err)
		}
		if d := cmp.Diff(topo, again); d != "" {
			t.Fatalf("round trip (-first +second)\n%s", d)
		}
	})
}
