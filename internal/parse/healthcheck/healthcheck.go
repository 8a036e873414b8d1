// Package healthcheck reads the verdict lines node health-check programs
// print per check: LBNL NHC's die() and its success report
// (github.com/mej/nhc, "ERROR:  nhc:  Health check failed:  check_hw_ib:
// …", "SUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: …" as
// Azure/azurehpc-health-checks prints them) and gpud's scan
// (github.com/leptonai/gpud, "✔ ibstat ports/rates check passed (at least
// ports: 8, rate: 400)").
package healthcheck

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Check is one check's verdict line.
type Check struct {
	Tool    string `json:"tool"` // "nhc" or "gpud"
	Name    string `json:"name"` // "check_ib_bw_gdr", "ibstat ports/rates"
	Passed  bool   `json:"passed"`
	Message string `json:"message,omitempty"`
	// Fabric says the check tests the RDMA fabric: an NHC check whose
	// name holds "ib" as a word (check_hw_ib, check_ib_bw_gdr,
	// check_ib_link_flapping) or gpud's ibstat check.
	Fabric bool `json:"fabric"`
	// Gbps is a bandwidth the message reports ("IB BW=399.71 Gbps"), 0
	// when none.
	Gbps float64 `json:"gbps,omitempty"`
	Line int     `json:"line"`
	Text string  `json:"text"`
}

var (
	// NHC: "SUCCESS:  nhc:  Health check passed:  NAME: MESSAGE",
	// "ERROR:  nhc:  Health check failed:  NAME:  MESSAGE".
	reNHC = regexp.MustCompile(`^(SUCCESS|ERROR):\s+nhc:\s+Health check (passed|failed):\s+([A-Za-z_][\w-]*):\s*(.*)$`)
	// gpud scan: "✔ ibstat ports/rates check passed (…)", "✘ … check
	// failed (…)".
	reGPUd = regexp.MustCompile(`^(?:✔|✘|⚠)\s*(ibstat ports/rates) check (passed|failed)\s*(.*)$`)
	reGbps = regexp.MustCompile(`\bBW=([0-9]+(?:\.[0-9]+)?) Gbps\b`)
)

// Line reads t (trimmed) when it is a check's verdict line.
func Line(t string) (Check, bool) {
	if m := reNHC.FindStringSubmatch(t); m != nil {
		c := Check{Tool: "nhc", Name: m[3], Passed: m[2] == "passed", Message: strings.TrimSpace(m[4]), Text: t}
		if (m[1] == "SUCCESS") != c.Passed {
			return Check{}, false
		}
		for _, w := range strings.Split(c.Name, "_") {
			if w == "ib" {
				c.Fabric = true
			}
		}
		if g := reGbps.FindStringSubmatch(c.Message); g != nil {
			c.Gbps, _ = strconv.ParseFloat(g[1], 64)
		}
		return c, true
	}
	if m := reGPUd.FindStringSubmatch(t); m != nil {
		return Check{Tool: "gpud", Name: m[1], Passed: m[2] == "passed", Message: strings.TrimSpace(m[3]), Fabric: true, Text: t}, true
	}
	return Check{}, false
}

// Parse reads the verdict lines of r; first is the number of r's first
// line in the file named source. Other lines are skipped; none at all is
// an error.
func Parse(r io.Reader, source string, first int) ([]Check, error) {
	var cs []Check
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := first; sc.Scan(); n++ {
		if c, ok := Line(strings.TrimSpace(sc.Text())); ok {
			c.Line = n
			cs = append(cs, c)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("%s: no health-check verdict line (NHC's \"nhc:  Health check passed:\" or gpud's \"check passed\")", source)
	}
	return cs, nil
}
