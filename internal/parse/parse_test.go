package parse

import (
	"errors"
	"strings"
	"testing"
)

func TestError(t *testing.T) {
	bad := errors.New("malformed line")
	tests := []struct {
		e    *Error
		want string
	}{
		{&Error{Source: "dmesg.txt", Err: bad}, "dmesg.txt: malformed line"},
		{&Error{Source: "dmesg.txt", Line: 7, Err: bad}, "dmesg.txt line 7: malformed line"},
		{&Error{Source: "dmesg.txt", Line: 7, Input: "x\ty", Err: bad}, `dmesg.txt line 7: malformed line: "x\ty"`},
		{&Error{Source: "s", Line: 1, Input: strings.Repeat("é", 200), Err: bad}, `s line 1: malformed line: "` + strings.Repeat("é", 120) + `…"`},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.e, bad) {
			t.Error("errors.Is must find the reason")
		}
		var pe *Error
		if !errors.As(error(tt.e), &pe) || pe.Line != tt.e.Line {
			t.Error("errors.As")
		}
	}
}

// TestLines: accepted lines are kept with their numbers (a CR dropped);
// none kept is the given error, as an *Error naming the source.
func TestLines(t *testing.T) {
	type row struct {
		text string
		n    int
	}
	keep := func(l string) (row, bool) { return row{text: l}, strings.HasPrefix(l, "x") }
	num := func(r *row, n int) { r.n = n }
	got, err := Lines(strings.NewReader("a\nx1\r\nb\nx2\n"), "t.txt", keep, num, errors.New("none"))
	if err != nil || len(got) != 2 || got[0] != (row{"x1", 2}) || got[1] != (row{"x2", 4}) {
		t.Fatalf("got %+v, %v", got, err)
	}
	none := errors.New("no rows")
	_, err = Lines(strings.NewReader("a\nb\n"), "t.txt", keep, num, none)
	var pe *Error
	if !errors.Is(err, none) || !errors.As(err, &pe) || pe.Source != "t.txt" {
		t.Errorf("nothing kept: err %v", err)
	}
}
