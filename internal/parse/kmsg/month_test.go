package kmsg

import (
	"testing"
	"time"
)

// localMonth's quick refusal of tokens not starting with a letter or a
// digit refuses no month of its tables.
func TestLocalMonthQuickRefusal(t *testing.T) {
	for _, tab := range []map[string]time.Month{months, localMonths} {
		for tok, want := range tab {
			if got, ok := localMonth(tok); !ok || got != want {
				t.Errorf("localMonth(%q) = %v %v, want %v", tok, got, ok, want)
			}
		}
	}
	for tok, want := range map[string]bool{"[": false, "": false, "-": false, "Feb": true, "févr.": true, "2月": true, "фев": true, "12월": true} {
		if _, ok := localMonth(tok); ok != want {
			t.Errorf("localMonth(%q) ok = %v, want %v", tok, ok, want)
		}
	}
}

// parseSeconds reads what ParseInt reads, however many digits.
func TestParseSecondsDigits(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    time.Duration
		ok, bad bool
	}{
		{"0.5", 500 * time.Millisecond, true, false},
		{"123.000001", 123*time.Second + time.Microsecond, true, false},
		{"8589934592.999999999", 8589934592*time.Second + 999999999, true, false},
		{"8589934593.0", 0, true, true},
		{"000000000000000000012.5", 12*time.Second + 500*time.Millisecond, true, false},
		{"999999999999999999.0", 0, true, true},
		{"99999999999999999999.0", 0, true, true},
		{"1.0123456789", 0, true, true},
		{"42", 42 * time.Second, true, false},
		{"x1.0", 0, false, false},
	} {
		got, ok, err := parseSeconds(c.in)
		if ok != c.ok || (err != nil) != c.bad || err == nil && got != c.want {
			t.Errorf("parseSeconds(%q) = %v %v %v, want %v %v bad=%v", c.in, got, ok, err, c.want, c.ok, c.bad)
		}
	}
}
