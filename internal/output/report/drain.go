package report

import (
	"fmt"
	"strconv"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// DrainReason renders findings for a scheduler's node-health hook (Slurm
// through NHC): reason is one short line naming the worst finding and where
// it is ("ibdoctor: mlx5_5 port 1 port.polling (+2 more)"), short because
// `sinfo -R` cuts long reasons; lines hold one line per finding, worst
// first, for the log. fs must be sorted (catalog.Sort); reason is "" when
// there are none.
func DrainReason(fs []finding.Finding) (reason string, lines []string) {
	if len(fs) == 0 {
		return "", nil
	}
	w := fs[0]
	reason = "ibdoctor: "
	if where := shortWhere(w.Subject); where != "" {
		reason += where + " "
	}
	reason += w.ID
	if len(fs) > 1 {
		reason += fmt.Sprintf(" (+%d more)", len(fs)-1)
	}
	for _, f := range fs {
		lines = append(lines, fmt.Sprintf("ibdoctor: %s %s %s: %s", f.Severity, f.ID, SubjectString(f.Subject), f.Summary))
	}
	return reason, lines
}

// shortWhere names a subject in a few words: the device and port, else the
// netdev, GPU, PCI function or node description.
func shortWhere(s finding.Subject) string {
	switch {
	case s.Device != "" && s.Port > 0:
		return s.Device + " port " + strconv.Itoa(s.Port)
	case s.Device != "":
		return s.Device
	case s.NetDev != "":
		return s.NetDev
	case s.GPU != "":
		return "GPU " + s.GPU
	case s.PCI != "":
		return s.PCI
	case s.NodeDesc != "":
		return strconv.Quote(s.NodeDesc)
	}
	return ""
}
