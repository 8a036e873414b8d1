package analyze

import (
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/daosnet"
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

// diagnoseDAOSNet reads DAOS's network scan devices: the interfaces and
// providers DAOS sees: an RDMA provider (ofi+verbs, ucx+) listed is a
// working RDMA setup as DAOS sees it; without one nothing is judged.
func diagnoseDAOSNet(seg *Segment, file, text string) error {
	ds, err := daosnet.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	var names []string
	for _, d := range ds {
		s := d.Device + " (" + d.Provider + ")"
		if !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	seg.Summary = "DAOS network scan: " + strings.Join(names, ", ")
	if !slices.ContainsFunc(ds, func(d daosnet.Device) bool {
		return strings.Contains(d.Provider, "verbs") || strings.HasPrefix(d.Provider, "ucx+")
	}) {
		// ofi+tcp or ofi+sockets alone: whether RDMA was meant is not said.
		seg.Empty = "DAOS lists no RDMA provider (ofi+verbs, ucx+…): whether RDMA was meant is not in the scan"
	}
	return nil
}
