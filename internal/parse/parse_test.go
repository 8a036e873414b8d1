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
