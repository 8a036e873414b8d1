package analyze

import (
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/lnetctl"
	"github.com/ibdoctor/ibdoctor/internal/rules/lnet"
)

// diagnoseLnetctl judges `lnetctl net show`: its NIs, up or down.
func diagnoseLnetctl(seg *Segment, file, text string) error {
	nis, err := lnetctl.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	var ids []string
	for _, ni := range nis {
		if ni.Net != "lo" {
			ids = append(ids, ni.NID+" "+ni.Status)
		}
	}
	seg.Summary = "lnetctl net show: " + plural(len(ids), "LNet NI", "LNet NIs")
	if len(ids) > 0 {
		seg.Summary += " (" + strings.Join(ids, ", ") + ")"
	}
	seg.Findings = append(seg.Findings, lnet.CheckNIs(file, nis)...)
	return nil
}
