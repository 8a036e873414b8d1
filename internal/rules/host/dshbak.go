package host

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/dshbak"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckDshbak compares the blocks "pdsh … | dshbak -c" printed for one
// command: dshbak -c groups the hosts whose output was identical, so one
// block says every host agrees, and more than one that they differ. When
// a command's blocks differ in fw_ver, the hosts of every block but the
// largest are host.fw_outlier; when they differ in the OFED version
// (ofed_info -s, "MLNX_OFED_LINUX-…"), host.driver_outlier (warnings,
// as for a fleet check). Other differences are noted; without a largest
// block (a tie) nothing is judged but noted. agree lists, per command, what
// all its hosts share.
func CheckDshbak(blocks []*dshbak.Block, source string) (out []finding.Finding, agree, notes []string) {
	var order []string
	groups := map[string][]*dshbak.Block{}
	for _, b := range blocks {
		if _, ok := groups[b.Command]; !ok {
			order = append(order, b.Command)
		}
		groups[b.Command] = append(groups[b.Command], b)
	}
	for _, cmd := range order {
		g := groups[cmd]
		if len(g) == 1 {
			b := g[0]
			what := "no output"
			if len(b.Lines) > 0 {
				what = strings.Join(strings.Fields(b.Lines[0].Text), " ")
				if len(b.Lines) > 1 {
					what += fmt.Sprintf(" (+%d lines)", len(b.Lines)-1)
				}
			}
			agree = append(agree, fmt.Sprintf("%s (%s) agree: %s", b.Hosts, hostsCount(b.Count), what))
			continue
		}
		major := g[0]
		tie := false
		for _, b := range g[1:] {
			switch {
			case b.Count > major.Count:
				major, tie = b, false
			case b.Count == major.Count:
				tie = true
			}
		}
		if tie {
			notes = append(notes, fmt.Sprintf("%s:%d: %d groups of hosts print different output for %q, none the majority: not judged", source, g[0].Line, len(g), cmd))
			continue
		}
		for _, b := range g {
			if b == major {
				continue
			}
			id, what, mine, theirs := differ(b, major, cmd)
			if id == "" {
				notes = append(notes, fmt.Sprintf("%s:%d: %s print other output than %s for %q", source, b.Line, b.Hosts, major.Hosts, cmd))
				continue
			}
			f := catalog.New(id, finding.Subject{Host: b.Hosts, File: source},
				fmt.Sprintf("%s (%s) report %s %s where %s (%s) report %s", b.Hosts, hostsCount(b.Count), what, mine.Text, major.Hosts, hostsCount(major.Count), theirs.Text),
				finding.Evidence{Source: fmt.Sprintf("%s:%d", source, mine.Line), Value: mine.Text},
				finding.Evidence{Source: fmt.Sprintf("%s:%d", source, theirs.Line), Value: theirs.Text})
			out = append(out, f)
		}
	}
	return out, agree, notes
}

// differ finds the first fw_ver or OFED version line of b that major
// does not print.
func differ(b, major *dshbak.Block, cmd string) (id, what string, mine, theirs dshbak.Line) {
	for _, l := range b.Lines {
		k, _, ok := dshbak.Field(l.Text)
		ofed := strings.HasPrefix(l.Text, "MLNX_OFED_LINUX-") || strings.HasPrefix(l.Text, "OFED-")
		if !(ok && k == "fw_ver") && !ofed {
			continue
		}
		for _, m := range major.Lines {
			mk, _, mok := dshbak.Field(m.Text)
			switch {
			case ok && mok && mk == k && m.Text != l.Text:
				return "host.fw_outlier", "firmware", l, m
			case ofed && (strings.HasPrefix(m.Text, "MLNX_OFED_LINUX-") || strings.HasPrefix(m.Text, "OFED-")) && m.Text != l.Text:
				return "host.driver_outlier", "the OFED release", l, m
			}
		}
	}
	return "", "", dshbak.Line{}, dshbak.Line{}
}

func hostsCount(n int) string {
	if n == 1 {
		return "1 host"
	}
	if n == 0 {
		return "hosts"
	}
	return fmt.Sprintf("%d hosts", n)
}
