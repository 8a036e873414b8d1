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
