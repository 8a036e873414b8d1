// Package lnetctl reads the YAML that Lustre's `lnetctl net show`
// prints (lnet/utils/lnetctl.c, lnetconfig/liblnetconfig.c): one
// "- net type: o2ib" block per LNet network, and under its "local
// NI(s):" one "- nid: 10.0.0.1@o2ib" block per network interface with
// its "status: up" (or down) and "interfaces:" ("0: ib0").
package lnetctl

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoNI is returned when the text holds no NI block.
var ErrNoNI = errors.New("no LNet NI ('- nid: …') found")

// NI is one local network interface of an LNet network.
type NI struct {
	// Line is 1-based: the "- nid:" line; Text that line as read.
	Line int
	Text string
	// Net is the network type ("o2ib", "tcp", "lo"); NID the NI's id
	// ("10.0.0.1@o2ib"); Status "up" or "down" ("" when not shown);
	// StatusLine its line. Interfaces are the network devices it runs
	// on ("ib0", "bond0").
	Net, NID, Status string
	StatusLine       int
	StatusText       string
	Interfaces       []string
}

// Header says whether a line starts an `lnetctl net show` network block:
// "- net type: o2ib" (indented in the YAML, as printed).
func Header(t string) bool {
	t = strings.TrimSpace(t)
	v, ok := strings.CutPrefix(t, "- net type:")
	return ok && strings.TrimSpace(v) != "" && !strings.ContainsAny(strings.TrimSpace(v), " \t")
}

// Parse reads the NIs of `lnetctl net show`; ErrNoNI (as a parse.Error)
// when there is none.
func Parse(rd io.Reader, source string) ([]NI, error) {
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil, &parse.Error{Source: source, Err: err}
	}
	var nis []NI
	net := ""
	inIf := false
	n := 0
	for l := range strings.Lines(string(b)) {
		n++
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "- net type:"):
			net = strings.TrimSpace(strings.TrimPrefix(t, "- net type:"))
			inIf = false
		case strings.HasPrefix(t, "- nid:"):
			nid := strings.TrimSpace(strings.TrimPrefix(t, "- nid:"))
			if nid == "" {
				return nil, &parse.Error{Source: source, Line: n, Err: fmt.Errorf("NI line without a NID: %q", t)}
			}
			nis = append(nis, NI{Line: n, Text: t, Net: net, NID: nid})
			inIf = false
		case len(nis) == 0:
		case strings.HasPrefix(t, "status:"):
			if nis[len(nis)-1].StatusLine == 0 {
				ni := &nis[len(nis)-1]
				ni.Status = strings.TrimSpace(strings.TrimPrefix(t, "status:"))
				ni.StatusLine, ni.StatusText = n, t
			}
			inIf = false
		case t == "interfaces:":
			inIf = true
		case inIf:
			k, v, ok := strings.Cut(t, ":")
			if !ok || strings.TrimSpace(v) == "" || strings.TrimLeft(k, "0123456789") != "" {
				inIf = false
				continue
			}
			ni := &nis[len(nis)-1]
			ni.Interfaces = append(ni.Interfaces, strings.TrimSpace(v))
		}
	}
	if len(nis) == 0 {
		return nil, &parse.Error{Source: source, Err: ErrNoNI}
	}
	return nis, nil
}
