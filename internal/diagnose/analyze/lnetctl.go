package analyze

import (
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/ganesha"
	"github.com/ibdoctor/ibdoctor/internal/parse/lnetctl"
	"github.com/ibdoctor/ibdoctor/internal/rules/lnet"
	"github.com/ibdoctor/ibdoctor/internal/rules/nfs"
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

// diagnoseGanesha judges NFS-Ganesha's RDMA transport lines.
func diagnoseGanesha(seg *Segment, file, text string) error {
	ls, err := ganesha.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Summary = plural(len(ls), "NFS-Ganesha RDMA transport line", "NFS-Ganesha RDMA transport lines")
	seg.Findings = append(seg.Findings, nfs.CheckGanesha(file, ls)...)
	return nil
}
