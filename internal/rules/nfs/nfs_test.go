package nfs

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ganesha"
)

func TestCheckGanesha(t *testing.T) {
	const (
		event = "2026-03-05 22:00:45 : epoch 00010015 : fscc-sr665-11 : gpfs.ganesha.nfsd-733868[svc_42] rpc :TIRPC :EVENT :xdr_rdma_reg_mr: total_rdma_reg_mem 138412032 registered\n"
		warn  = "2026-03-05 22:00:46 : epoch 1 : h : ganesha.nfsd-1[svc_1] rpc :TIRPC :WARN :rpc_rdma_recv_cb() rdma_xprt 0x1 status 5\n"
		crit  = "2026-03-05 22:00:47 : epoch 1 : h : ganesha.nfsd-1[svc_1] rpc :TIRPC :CRIT :rpc_rdma_create_qp() failed\n"
	)
	for _, tt := range []struct {
		text string
		n    int
		sev  finding.Severity
	}{{event, 0, ""}, {event + warn, 1, finding.Warning}, {warn + crit, 1, finding.Critical}} {
		ls, err := ganesha.Parse(strings.NewReader(tt.text), "t")
		if err != nil {
			t.Fatal(err)
		}
		fs := CheckGanesha("t", ls)
		if len(fs) != tt.n || tt.n > 0 && (fs[0].ID != "nfs.ganesha_rdma_error" || fs[0].Severity != tt.sev) {
			t.Errorf("%q: got %+v", tt.text, fs)
		}
	}
}
