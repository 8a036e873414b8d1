package ganesha

import (
	"errors"
	"strings"
	"testing"
)

// NFS-Ganesha (GPFS build) ntirpc EVENT lines of an NFS/RDMA transport
// (nfs-ganesha/ntirpc#376).
const events = "2026-03-05 22:00:45 : epoch 00010015 : fscc-sr665-11 : gpfs.ganesha.nfsd-733868[svc_42] rpc :TIRPC :EVENT :xdr_rdma_reg_mr: total_rdma_reg_mem 138412032 registered, registering for xprt 0x7f53cc043070 mr 0x7f52f80016f0 buffer_aligned 0x7f5399fff000 buffer_total 33554432\n" +
	"2026-03-05 22:00:45 : epoch 00010015 : fscc-sr665-11 : gpfs.ganesha.nfsd-733868[svc_42] rpc :TIRPC :EVENT :xdr_rdma_update_io_bufs() io bufs count 9 io_buf 0x7f52f8001740 rdma_xprt 0x7f53cc043070\n" +
	"2026-03-05 22:00:45 : epoch 00010015 : fscc-sr665-11 : gpfs.ganesha.nfsd-733868[main] nfs_Init :NFS STARTUP :EVENT :NFS server up\n"

func TestParse(t *testing.T) {
	ls, err := Parse(strings.NewReader(events), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls[0].Line != 1 || ls[0].Level != "EVENT" || ls[0].Failure() || !strings.HasPrefix(ls[1].Msg, "xdr_rdma_update_io_bufs()") {
		t.Errorf("got %+v", ls)
	}
	crit := "2026-03-05 22:00:45 : epoch 1 : h : ganesha.nfsd-1[svc_1] rpc :TIRPC :CRIT :rpc_rdma_cq_event_handler() cq completion failed status: 5"
	if g, ok := RDMALine(crit); !ok || g.Level != "CRIT" || !g.Failure() {
		t.Errorf("RDMALine(crit) = %+v, %v", g, ok)
	}
	if _, err := Parse(strings.NewReader("hello\n"), "x"); !errors.Is(err, ErrNoLine) {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(events)
	f.Add(" : epoch  :TIRPC : :rdma")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Parse(strings.NewReader(s), "f")
	})
}
