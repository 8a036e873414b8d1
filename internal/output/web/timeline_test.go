package web

import (
	"fmt"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

func TestOverlap(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 11, 30, h, m, 0, 0, time.UTC) }
	for _, c := range []struct {
		name   string
		events []Event
		want   string
	}{
		{"none", nil, "[]"},
		{"one open", []Event{{Severity: finding.Warning, Opened: at(10, 0)}}, "[10:00-12:00 1 warning]"},
		{"overlapping", []Event{
			{Severity: finding.Critical, Opened: at(10, 0), Closed: at(11, 0)},
			{Severity: finding.Warning, Opened: at(10, 30)},
		}, "[10:00-10:30 1 critical 10:30-11:00 2 critical 11:00-12:00 1 warning]"},
		{"gap between", []Event{
			{Severity: finding.Info, Opened: at(9, 0), Closed: at(9, 30)},
			{Severity: finding.Critical, Opened: at(11, 0), Closed: at(11, 15)},
		}, "[09:00-09:30 1 info 11:00-11:15 1 critical]"},
		{"closed after the end, or before it opened", []Event{
			{Severity: finding.Warning, Opened: at(11, 0), Closed: at(13, 0)},
			{Severity: finding.Critical, Opened: at(11, 0), Closed: at(10, 0)},
		}, "[11:00-12:00 1 warning]"},
	} {
		var got []string
		for _, s := range overlap(c.events, at(12, 0)) {
			got = append(got, fmt.Sprintf("%s-%s %d %s", s.from.Format("15:04"), s.to.Format("15:04"), s.open, s.worst))
		}
		if g := fmt.Sprintf("%v", got); g != c.want {
			t.Errorf("%s: %s, want %s", c.name, g, c.want)
		}
	}
}
