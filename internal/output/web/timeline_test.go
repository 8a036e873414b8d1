package web

import (
	"fmt"
	"strconv"
	"strings"
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

// A window with more findings than the chart draws says so, and the
// table still lists every one.
func TestTimelineCapped(t *testing.T) {
	f := newFixture()
	f.tl = nil
	for i := range maxBars + 30 {
		f.tl = append(f.tl, Event{Host: fmt.Sprintf("gpu%04d", i), ID: "port.symbol_errors", Severity: finding.Warning, Opened: t0.Add(-time.Hour)})
	}
	_, body, _ := get(t, testHandler(f, Options{}), "GET", "/timeline")
	if !strings.Contains(body, fmt.Sprintf("The chart draws the first %d of %d", maxBars, maxBars+30)) {
		t.Error("no note that the chart is cut")
	}
	if n := strings.Count(body, `<rect x=`); n != maxBars+1 { // one bar per event drawn, plus the fleet-wide row
		t.Errorf("%d bars, want %d", n, maxBars+1)
	}
	if !strings.Contains(body, ">gpu0429<") {
		t.Error("the table misses the last event")
	}
	if _, err := scan(body); err != nil {
		t.Error(err)
	}
}

// A closed finding may be gone from its node's page, so the timeline links
// only open ones to their anchor; a throttled pair in the matrix shows its
// decimals instead of reading 0.
func TestTimelineAnchorsOpenOnlyAndSlowCellsReadable(t *testing.T) {
	f := newFixture()
	f.tl = []Event{
		{Host: "gpu-a1", ID: "node.port_down", Severity: finding.Critical, Opened: t0.Add(-2 * time.Hour), Closed: t0.Add(-time.Hour)},
		{Host: "gpu-b1", ID: "node.symbol_errors", Severity: finding.Warning, Opened: t0.Add(-time.Hour)},
	}
	_, body, _ := get(t, testHandler(f, Options{}), "GET", "/timeline")
	if strings.Contains(body, `href="/nodes/gpu-a1#finding-node.port_down"`) {
		t.Error("a closed finding links to an anchor its node page may not have")
	}
	if !strings.Contains(body, `href="/nodes/gpu-b1#finding-node.symbol_errors"`) {
		t.Error("an open finding does not link to its anchor")
	}
	for _, c := range []struct {
		gbps float64
		want string
	}{{191.5, "192"}, {7.25, "7.2"}, {0.2, "0.20"}} {
		if got := strconv.FormatFloat(c.gbps, 'f', cellDigits(c.gbps), 64); got != c.want {
			t.Errorf("%v Gb/s shows %q, want %q", c.gbps, got, c.want)
		}
	}
}
