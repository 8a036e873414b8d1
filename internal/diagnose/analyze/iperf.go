package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/iperf"
)

// diagnoseIPerf reads an iperf or iperf3 segment: the TCP rate it
// measured is not judged alone (the link's rate is not in it), only held
// against a perftest bandwidth test of the same paste.
func diagnoseIPerf(seg *Segment, file, text string) error {
	res, err := iperf.Parse(strings.NewReader(text), file)
	if err != nil {
		seg.Empty = "no result line (the test was cut before its summary)"
		seg.Summary = "iperf, no result"
		return nil
	}
	b, ok := res.Best()
	if !ok {
		seg.Summary = fmt.Sprintf("iperf, %s (interval lines only)", plural(len(res.Rates), "result line", "result lines"))
		return nil
	}
	seg.Summary = fmt.Sprintf("iperf, %s, best %.3g Gbit/s (TCP)", plural(len(res.Rates), "result line", "result lines"), b.Gbps)
	// Not judged alone: the rate is held against a perftest bandwidth
	// test of the same paste, which is judged.
	seg.Empty = "a TCP rate: not judged alone (the link's rate is not in it), only against a perftest bandwidth test in the same paste"
	return nil
}

// addTCP keeps the fastest iperf result of the paste for the perftest
// tests to be held against.
func (c *context) addTCP(file string, d *doc, sp Span) {
	res, err := iperf.Parse(strings.NewReader(segmentText(d, sp)), file)
	if err != nil {
		return
	}
	b, ok := res.Best()
	if !ok || c.tcpOK && b.Gbps <= c.tcp.Gbps {
		return
	}
	tool := "iperf"
	if b.Role != "" {
		tool = "iperf3"
	}
	c.tcp.Gbps, c.tcp.Source, c.tcp.Text, c.tcp.Tool = b.Gbps, fmt.Sprintf("%s:%d", file, b.Line), b.Text, tool
	c.tcpOK = true
}
