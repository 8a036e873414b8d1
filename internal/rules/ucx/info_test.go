package ucx

import (
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxinfo"
)

func TestCheckInfo(t *testing.T) {
	tcpOnly := &ucxinfo.Listing{Context: true, Transports: []ucxinfo.Transport{
		{Name: "posix", Device: "memory", Line: 20}, {Name: "tcp", Device: "ib0", Line: 23}, {Name: "tcp", Device: "enp225s0f0", Line: 24}}}
	v := CheckInfo(tcpOnly, "p.txt")
	if len(v.Findings) != 1 || v.Findings[0].ID != "mpi.rdma_not_used" || v.Findings[0].Severity != finding.Warning ||
		v.Findings[0].Evidence[0].Source != "p.txt:23" || v.Findings[0].Subject.NetDev != "ib0" {
		t.Errorf("tcp on ib0 only: %+v", v.Findings)
	}
	rc := &ucxinfo.Listing{MDs: []ucxinfo.MD{{Name: "mlx5_0", Component: "ib"}}, Transports: []ucxinfo.Transport{{Name: "rc_verbs", Device: "mlx5_0:1"}, {Name: "tcp", Device: "ib0"}}}
	if v := CheckInfo(rc, "d.txt"); len(v.Findings) != 0 || len(v.RDMA) != 1 || v.NoRDMA {
		t.Errorf("rc_verbs: %+v", v)
	}
	// An ib memory domain alone (a partial listing) is RDMA too.
	md := &ucxinfo.Listing{MDs: []ucxinfo.MD{{Name: "mlx5_0", Component: "ib"}}, Transports: []ucxinfo.Transport{{Name: "tcp", Device: "ib0"}}}
	if v := CheckInfo(md, "d.txt"); len(v.Findings) != 0 {
		t.Errorf("ib md: %+v", v.Findings)
	}
	eth := &ucxinfo.Listing{Transports: []ucxinfo.Transport{{Name: "tcp", Device: "eth0"}, {Name: "self", Device: "memory"}}}
	if v := CheckInfo(eth, "e.txt"); len(v.Findings) != 0 || !v.NoRDMA {
		t.Errorf("tcp on eth0: %+v", v)
	}
	fail := &ucxinfo.Listing{Transports: []ucxinfo.Transport{{Name: "rc_mlx5", Device: "mlx5_1:1", Line: 18, Failed: "< failed to open interface >", FailedLine: 20}}}
	if v := CheckInfo(fail, "f.txt"); len(v.Findings) != 1 || v.Findings[0].ID != "mpi.rdma_not_used" || v.Findings[0].Evidence[0].Source != "f.txt:20" {
		t.Errorf("failed interface: %+v", v.Findings)
	}
}
