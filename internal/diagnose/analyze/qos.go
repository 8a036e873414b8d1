package analyze

import (
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/listlinkup"
	"github.com/ibdoctor/ibdoctor/internal/parse/mlnxqos"
	"github.com/ibdoctor/ibdoctor/internal/parse/onyx"
	ethlinkrules "github.com/ibdoctor/ibdoctor/internal/rules/ethlink"
	"github.com/ibdoctor/ibdoctor/internal/rules/fabric"
)

// diagnoseMlnxQoS judges an mlnx_qos output (text has the file's line
// numbers and the prompts: the command line names the interface).
func diagnoseMlnxQoS(seg *Segment, file, text string) error {
	q, err := mlnxqos.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Summary = ethlinkrules.MlnxQoSSummary(q)
	seg.Findings = append(seg.Findings, ethlinkrules.CheckMlnxQoS(q, file, mlnxQoSIface(text))...)
	return nil
}

// mlnxQoSIface returns the interface of the first "mlnx_qos -i IFACE" (or
// --interface IFACE, --interface=IFACE) command line in text.
func mlnxQoSIface(text string) string {
	for _, l := range strings.Split(text, "\n") {
		i := strings.Index(l, "mlnx_qos")
		if i < 0 {
			continue
		}
		f := strings.Fields(l[i:])
		for k, w := range f {
			if v, ok := strings.CutPrefix(w, "--interface="); ok {
				return v
			}
			if v, ok := strings.CutPrefix(w, "-i"); ok && v != "" && k > 0 {
				return v
			}
			if (w == "-i" || w == "--interface") && k+1 < len(f) {
				return f[k+1]
			}
		}
	}
	return ""
}

// diagnoseOnyxRoCE judges an Onyx switch's show roce (text has the file's
// line numbers).
func diagnoseOnyxRoCE(seg *Segment, file, text string) error {
	o, err := onyx.ParseRoCE(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Summary = ethlinkrules.OnyxRoCESummary(o)
	seg.Findings = append(seg.Findings, ethlinkrules.CheckOnyxRoCE(o, file)...)
	return nil
}

// diagnoseListLinkup judges a Sun Datacenter InfiniBand switch's
// listlinkup (text has the file's line numbers).
func diagnoseListLinkup(seg *Segment, file, text string) error {
	o, err := listlinkup.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Summary = fabric.ListLinkupSummary(o)
	seg.Findings = append(seg.Findings, fabric.CheckListLinkup(o, file)...)
	return nil
}
