package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/showgids"
	showgidsrules "github.com/ibdoctor/ibdoctor/internal/rules/showgids"
)

// diagnoseShowGIDs reads a show_gids table (text holds the file's lines,
// those outside the segment blanked) and judges each port's GIDs.
func diagnoseShowGIDs(seg *Segment, file, text string) error {
	tb, err := showgids.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	fs, ports := showgidsrules.Check(tb, file)
	seg.Summary = fmt.Sprintf("show_gids, %s on %s", plural(len(tb.GIDs), "GID", "GIDs"), plural(ports, "port", "ports"))
	seg.Findings = append(seg.Findings, fs...)
	return nil
}
