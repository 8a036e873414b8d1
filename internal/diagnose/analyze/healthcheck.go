package analyze

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/healthcheck"
)

// passedCheck says whether l is a health-check program's report that a
// check passed (a failed one is read as a tool error or a failure line).
func passedCheck(l string) bool {
	c, ok := healthcheck.Line(strings.TrimSpace(l))
	return ok && c.Passed
}

// diagnoseHealthChecks reads the passed checks of NHC (and the NHC-based
// azurehpc-health-checks) and gpud: a passed check of the fabric (an IB
// port, link or bandwidth check) is the program's own judgement that the
// node's RDMA ports are up at the rate or bandwidth it asks for, and
// nothing to act on. Passed checks of other things (CPU, memory, GPU)
// judge nothing of the fabric: the segment is a note. text has the
// file's line numbers.
func diagnoseHealthChecks(seg *Segment, file, text string) error {
	cs, err := healthcheck.Parse(strings.NewReader(text), file, 1)
	if err != nil {
		return err
	}
	var fabric []healthcheck.Check
	for _, c := range cs {
		if c.Passed && c.Fabric {
			fabric = append(fabric, c)
		}
	}
	if len(fabric) == 0 {
		seg.Summary = plural(len(cs), "passed health check", "passed health checks")
		seg.Empty = "no check of the RDMA fabric among them (an IB port, link or bandwidth check)"
		return nil
	}
	var names []string
	var bw []float64
	for _, c := range fabric {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
		if c.Gbps > 0 {
			bw = append(bw, c.Gbps)
		}
	}
	seg.Summary = fmt.Sprintf("%s of the fabric (%s)", plural(len(fabric), "passed health check", "passed health checks"), strings.Join(names, ", "))
	if len(bw) > 0 {
		seg.Summary += fmt.Sprintf(", bandwidth %.2f-%.2f Gbps", slices.Min(bw), slices.Max(bw))
	}
	return nil
}
