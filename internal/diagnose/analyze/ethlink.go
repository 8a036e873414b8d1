package analyze

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/ethlink"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethmodule"
	ethlinkrules "github.com/ibdoctor/ibdoctor/internal/rules/ethlink"
)

// diagnoseEthtoolLink reads `ethtool <netdev>` settings (text holds the
// file's lines, those outside the segment blanked) and judges each
// interface's link.
func diagnoseEthtoolLink(seg *Segment, file, text string) error {
	res, err := ethlink.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	r := ethlinkrules.Check(res, file)
	fec := 0
	for _, s := range res.Settings {
		if s.FEC {
			fec++
		}
	}
	switch {
	case fec == len(res.Settings):
		seg.Summary = "ethtool --show-fec, " + plural(fec, "interface", "interfaces")
	case fec > 0:
		seg.Summary = fmt.Sprintf("ethtool settings, %s (%d with a link), FEC of %s", plural(len(res.Settings)-fec, "interface", "interfaces"), r.Up, plural(fec, "interface", "interfaces"))
	default:
		seg.Summary = fmt.Sprintf("ethtool settings, %s (%d with a link)", plural(len(res.Settings), "interface", "interfaces"), r.Up)
	}
	seg.Findings = append(seg.Findings, r.Findings...)
	notes(seg, r.Notes)
	return nil
}

// diagnoseEthModule reads `ethtool -m <netdev>` transceiver blocks (text
// keeps the prompts: the command line names the interface) and
// judges their alarm and warning flags.
func diagnoseEthModule(seg *Segment, file, text string) error {
	res, err := ethmodule.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Findings = append(seg.Findings, ethlinkrules.CheckModules(res, file)...)
	seg.Summary = fmt.Sprintf("ethtool -m, %s", plural(len(res.Modules), "transceiver", "transceivers"))
	return nil
}
