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
