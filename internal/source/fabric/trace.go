package fabric

import (
	"bytes"
	"context"
	"strconv"
	"strings"
)

// Trace is what ibtracert said about one pair of LIDs.
type Trace struct {
	// Reached: ibtracert printed the destination ("To ca ...").
	Reached bool
	// Broken: ibtracert followed the tables and found the entry that
	// breaks the route; Line is its own words ("Bad forwarding table
	// entry found at: node ... lid entry 4 is 255").
	Broken bool
	Line   string
	// Err is why the trace said neither (it could not reach the source
	// from this node, the tool is missing...).
	Err string
	// Args are the command line, for the evidence.
	Args []string
}

// TraceRoute runs `ibtracert -f SRC DST` from the collecting node: -f
// makes it follow the forwarding tables even when the destination does not
// answer, so a broken route ends in the entry that breaks it.
func TraceRoute(ctx context.Context, o CollectOptions, src, dst int) Trace {
	if err := o.Validate(); err != nil {
		return Trace{Err: err.Error()}
	}
	o = o.withDefaults()
	var sel []string
	if o.CA != "" {
		sel = append(sel, "-C", o.CA)
	}
	if o.Port > 0 {
		sel = append(sel, "-P", strconv.Itoa(o.Port))
	}
	out := run(ctx, o, step{"ibtracert", "ibtracert", append(sel, "-f", strconv.Itoa(src), strconv.Itoa(dst))})
	return parseTrace(out.Stdout, out.Stderr, out.Err, out.Args)
}

// parseTrace reads ibtracert's output (infiniband-diags 44).
func parseTrace(stdout, stderr []byte, runErr string, args []string) Trace {
	t := Trace{Args: args}
	for _, l := range strings.Split(string(stderr), "\n") {
		if _, rest, ok := strings.Cut(l, "Bad forwarding table entry found at: "); ok {
			t.Broken, t.Line = true, "bad forwarding table entry found at: "+strings.TrimSpace(rest)
			return t
		}
		if strings.Contains(l, "loop detected") || strings.Contains(l, "Loop detected") {
			t.Broken, t.Line = true, strings.TrimSpace(trimIbwarn(l))
			return t
		}
	}
	if runErr == "" {
		for _, l := range strings.Split(string(stdout), "\n") {
			if strings.HasPrefix(l, "To ") {
				t.Reached, t.Line = true, strings.TrimSpace(l)
				return t
			}
		}
	}
	for _, l := range strings.Split(string(stderr), "\n") {
		if _, msg, ok := strings.Cut(l, "get_route: "); ok {
			t.Err = "ibtracert: " + strings.TrimSpace(msg)
			return t
		}
	}
	t.Err = runErr
	if last := lastLine(stderr); last != "" && !strings.Contains(runErr, last) {
		t.Err = strings.TrimSpace(t.Err + ": " + last)
	}
	if t.Err == "" {
		t.Err = "ibtracert printed no destination"
	}
	return t
}

func trimIbwarn(l string) string {
	// "ibwarn: [19596] find_route: text"
	if strings.HasPrefix(l, "ibwarn: [") {
		if _, rest, ok := strings.Cut(l, "] "); ok {
			if _, msg, ok := strings.Cut(rest, ": "); ok {
				return msg
			}
			return rest
		}
	}
	return l
}

func lastLine(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(string(lines[i]))
		if l != "" && !strings.Contains(l, "sim_connect") {
			return trimIbwarn(l)
		}
	}
	return ""
}
