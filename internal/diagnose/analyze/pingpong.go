package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/pingpong"
	pingpongrules "github.com/ibdoctor/ibdoctor/internal/rules/pingpong"
)

// diagnosePingpong reads ibv_*_pingpong runs (text holds the file's
// lines, those outside the segment blanked) and judges their errors.
func diagnosePingpong(seg *Segment, file, text string) error {
	res, err := pingpong.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	r := pingpongrules.Check(res, file)
	seg.Summary = fmt.Sprintf("pingpong, %s (%d completed)", plural(len(res.Runs), "run", "runs"), r.OK)
	seg.Findings = append(seg.Findings, r.Findings...)
	return nil
}
