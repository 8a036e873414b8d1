package hostlist

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

func TestExpand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"gpu01", []string{"gpu01"}, false},
		{"gpu[001-003,010]", []string{"gpu001", "gpu002", "gpu003", "gpu010"}, false},
		{"gpu[08-11]", []string{"gpu08", "gpu09", "gpu10", "gpu11"}, false},
		{"a,b[1-2],c", []string{"a", "b1", "b2", "c"}, false},
		{"r[1-2]n[1-2]", []string{"r1n1", "r1n2", "r2n1", "r2n2"}, false},
		{"gpu[1-2]-ib", []string{"gpu1-ib", "gpu2-ib"}, false},
		{"node-[9-10]", []string{"node-9", "node-10"}, false},
		{"gpu[3-1]", nil, true},
		{"gpu[1-", nil, true},
		{"gpu[]", nil, true},
		{"gpu[a-b]", nil, true},
		{"gpu]1", nil, true},
		{"n[0-99999999]", nil, true},
		{"", nil, true},
	}
	for _, tt := range tests {
		got, err := Expand(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("Expand(%q) error = %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Errorf("Expand(%q): %v does not wrap ErrSyntax", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Expand(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseFile(t *testing.T) {
	in := "# the job\ngpu001 slots=8\ngpu[002-003] max_slots=8\n\n  gpu010   # spare\n"
	got, err := Parse(strings.NewReader(in), "hosts")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"gpu001", "gpu002", "gpu003", "gpu010"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	_, err = Parse(strings.NewReader("gpu1\ngpu[2-\n"), "hosts")
	var pe *parse.Error
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Source != "hosts" {
		t.Errorf("error %v does not name hosts line 2", err)
	}
	if _, err := Parse(strings.NewReader("# nothing\n"), "hosts"); err == nil {
		t.Error("a file without hosts was accepted")
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"gpu[001-128,130]", "r[1-2]n[01-04]", "a,b,c", "x[9-10]y", "[1-3]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		names, err := Expand(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		if len(names) == 0 || len(names) > MaxHosts {
			t.Fatalf("%d names", len(names))
		}
		for _, n := range names {
			if strings.ContainsAny(n, "[],") {
				t.Fatalf("unexpanded name %q", n)
			}
		}
	})
}

func BenchmarkExpand(b *testing.B) {
	for b.Loop() {
		if _, err := Expand("gpu[0001-4096]"); err != nil {
			b.Fatal(err)
		}
	}
}
