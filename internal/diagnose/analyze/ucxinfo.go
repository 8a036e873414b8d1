package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/fabtests"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxinfo"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	ucxrules "github.com/ibdoctor/ibdoctor/internal/rules/ucx"
)

// diagnoseUCXInfo reads a ucx_info listing (-d, -p, -v) and judges the
// transports it names.
func diagnoseUCXInfo(seg *Segment, file, text string) error {
	l, err := ucxinfo.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	v := ucxrules.CheckInfo(l, file)
	var parts []string
	if len(v.RDMA) > 0 {
		parts = append(parts, "RDMA: "+strings.Join(firstN(v.RDMA, 6), ", "))
	}
	if len(v.Other) > 0 {
		parts = append(parts, "other: "+strings.Join(firstN(v.Other, 8), ", "))
	}
	if len(parts) == 0 {
		parts = append(parts, plural(len(l.MDs), "memory domain", "memory domains"))
	}
	if l.Version != "" {
		parts = append(parts, "version "+l.Version)
	}
	seg.Summary = "ucx_info, " + plural(len(l.Transports), "transport", "transports") + " (" + strings.Join(parts, "; ") + ")"
	if len(l.Failures) > 0 {
		seg.Summary += fmt.Sprintf("; %q at line %d", l.Failures[0].Text, l.Failures[0].Line)
	}
	seg.Findings = append(seg.Findings, v.Findings...)
	if v.NoRDMA && len(l.Transports) > 0 && len(v.Findings) == 0 {
		seg.Empty = "ucx_info lists no RDMA transport and no IPoIB interface: whether RDMA was meant on this host is not in the listing"
	}
	return nil
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("… %d more", len(s)-n))
	}
	return s
}

// diagnoseFabtests reads fi_pingpong and fabtests benchmark tables: a
// table that completed is summarised (the default 10 iterations a size
// make its rates a smoke test, not a measurement); an error line is
// perf.test_invalid, the first one being the cause.
func diagnoseFabtests(seg *Segment, file, text string) error {
	res, err := fabtests.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	rows := 0
	var peak fabtests.Row
	for _, t := range res.Tables {
		rows += len(t.Rows)
		for _, r := range t.Rows {
			if r.MBps > peak.MBps {
				peak = r
			}
		}
	}
	seg.Summary = fmt.Sprintf("libfabric pingpong, %s, %s", plural(len(res.Tables), "table", "tables"), plural(rows, "row", "rows"))
	if peak.Line > 0 {
		seg.Summary += fmt.Sprintf(", peak %.2f MB/sec at %d B", peak.MBps, peak.Size)
	}
	if len(res.Errors) > 0 {
		m := res.Errors[0]
		what := "failed: " + m.Text
		if m.Call != "" && m.Ret < 0 {
			what = fmt.Sprintf("failed: %s() returned %d", m.Call, m.Ret)
		}
		sum := "the libfabric pingpong " + what
		if rows == 0 {
			sum += "; nothing was measured"
		} else {
			sum += fmt.Sprintf("; %s measured before it", plural(rows, "row was", "rows were"))
		}
		f := catalog.New("perf.test_invalid", finding.Subject{File: file}, sum,
			finding.Evidence{Source: fmt.Sprintf("%s:%d", file, m.Line), Value: m.Text})
		f.Remedy = []string{
			"fi_info -p PROVIDER (the provider of -p) on both hosts: it must list the device's domain and the endpoint type of -e",
			"rerun the server and the client with FI_LOG_LEVEL=debug to see the provider's reason",
			"ibv_devinfo and ip -br addr on both hosts: the RDMA port PORT_ACTIVE, the control connection's interface up with an address",
		}
		seg.Findings = append(seg.Findings, f)
	}
	return nil
}
