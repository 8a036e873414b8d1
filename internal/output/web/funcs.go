package web

import (
	"fmt"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

var funcs = template.FuncMap{
	"icon":     func(h Health) string { return look(h).Icon },
	"word":     func(h Health) string { return look(h).Word },
	"hc":       func(h Health) string { return string(norm(h)) },
	"sev":      func(s finding.Severity) Health { return HealthOf(s) },
	"nodeURL":  nodeURL,
	"linkURL":  linkURL,
	"leafURL":  leafURL,
	"runURL":   func(id string) string { return "/perf/runs/" + url.PathEscape(id) },
	"findURL":  func(host, id string) string { return nodeURL(host) + "#" + findingAnchor(id, 0) },
	"when":     when,
	"ago":      ago,
	"num":      num,
	"gbps":     func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
	"add":      func(a, b int) int { return a + b },
	"timeline": func(host string) string { return "/timeline?host=" + url.QueryEscape(host) },
}

func nodeURL(host string) string { return "/nodes/" + url.PathEscape(host) }

// linkURL names a link's page. A link ID holds slashes ("0x…/7-0x…/3");
// the route takes the rest of the path, so they stay as they are.
func linkURL(id string) string {
	return "/fabric/links/" + (&url.URL{Path: id}).EscapedPath()
}

func leafURL(id string) string { return "/fabric/leaves/" + url.PathEscape(id) }

// findingAnchor is the fragment of the n-th (from 0) finding of an ID on
// a node page: the first is "finding-<id>", so the fleet page can link
// to it without knowing how many there are.
func findingAnchor(id string, n int) string {
	if n == 0 {
		return "finding-" + id
	}
	return fmt.Sprintf("finding-%s-%d", id, n+1)
}

// when writes a time in UTC to the second; the zero time is "—".
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// ago is a duration rounded for people ("3m", "2h5m", "4d").
func ago(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// num writes a value with an SI prefix and about three significant
// digits ("1.25 G", "830", "0.5").
func num(v float64) string {
	a := math.Abs(v)
	for _, p := range []struct {
		f float64
		s string
	}{{1e12, " T"}, {1e9, " G"}, {1e6, " M"}, {1e3, " k"}} {
		if a >= p.f*0.9995 {
			return sig3(v/p.f) + p.s
		}
	}
	return sig3(v)
}

// sig3 writes x with about three significant digits, without trailing
// zeros.
func sig3(x float64) string {
	a := math.Abs(x)
	var s string
	switch {
	case a == 0:
		return "0"
	case a < 0.01:
		return strconv.FormatFloat(x, 'g', 2, 64)
	case a >= 99.95:
		s = strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 9.995:
		s = strconv.FormatFloat(x, 'f', 1, 64)
	default:
		s = strconv.FormatFloat(x, 'f', 2, 64)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
