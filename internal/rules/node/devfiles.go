package node

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckDevFiles judges a listing of /dev/infiniband (ls -l): without any
// uverbsN no process there can open an RDMA device
// (container.uverbs_missing, critical); with uverbs but without rdma_cm,
// librdmacm cannot connect (container.rdma_cm_missing, a warning).
// names are the devices listed (hcatext.ParseDevFiles), first and last
// the file's lines of the listing.
func CheckDevFiles(names []string, file string, first, last int) []finding.Finding {
	has := func(p string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, p) })
	}
	ev := finding.Evidence{Source: fmt.Sprintf("%s:%d-%d", file, first, last), Value: strings.Join(names, " ")}
	subj := finding.Subject{File: file}
	switch {
	case !has("uverbs"):
		return []finding.Finding{catalog.New("container.uverbs_missing", subj,
			"the listing of /dev/infiniband has no uverbsN (it lists "+strings.Join(names[:min(len(names), 6)], ", ")+"): libibverbs cannot open any RDMA device where it was taken, so RDMA programs there fail and NCCL falls back to TCP sockets", ev)}
	case !has("rdma_cm"):
		return []finding.Finding{catalog.New("container.rdma_cm_missing", subj,
			"the listing of /dev/infiniband has uverbs but no rdma_cm: programs that connect through librdmacm (MPI, UCX, perftest -R) cannot connect there", ev)}
	}
	return nil
}

// CheckMadClass judges a listing of /sys/class/infiniband_mad: a umadN
// without the issmN of the same number leaves no subnet manager able to
// run on that port (fabric.sm_issm_missing), a warning, critical when
// smFail (a line of the paste saying OpenSM fails) is set. names are the
// umadN and issmN listed (hcatext.ParseMadClass), first and last the
// file's lines of the listing.
func CheckMadClass(names []string, file string, first, last int, smFail *finding.Evidence) []finding.Finding {
	var missing []string
	for _, n := range names {
		if num, ok := strings.CutPrefix(n, "umad"); ok && !slices.Contains(names, "issm"+num) {
			missing = append(missing, "issm"+num)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	ev := []finding.Evidence{{Source: fmt.Sprintf("%s:%d-%d", file, first, last), Value: strings.Join(names, " ")}}
	msg := fmt.Sprintf("/sys/class/infiniband_mad lists %s but not %s: ib_umad gave those ports no issm device, so OpenSM cannot set the IsSM bit and no subnet manager can run on them here", strings.Join(names, ", "), strings.Join(missing, ", "))
	f := catalog.New("fabric.sm_issm_missing", finding.Subject{File: file}, msg, ev...)
	if smFail != nil {
		f.Summary += fmt.Sprintf("; the paste says OpenSM fails (%q): with no SM the ports stay Initializing and InfiniBand on the fabric does not come up", smFail.Value)
		f.Evidence = append(f.Evidence, *smFail)
		f.Severity = finding.Critical
	}
	return []finding.Finding{f}
}
