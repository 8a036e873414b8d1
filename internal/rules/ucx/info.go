package ucx

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdev2netdev"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxinfo"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// InfoVerdict is what CheckInfo found in a ucx_info listing.
type InfoVerdict struct {
	Findings []finding.Finding
	// RDMA are the RDMA transports listed ("rc_verbs on mlx5_0:1").
	RDMA []string
	// Other are the other transports listed ("tcp/ib0", "posix/memory").
	Other []string
	// NoRDMA says the listing names no RDMA transport or memory domain
	// and no IPoIB interface either: whether RDMA was meant is not in it.
	NoRDMA bool
}

// CheckInfo judges a ucx_info listing (-d, or the UCP context of -p): UCX
// lists a transport for every device it can drive, so a listing whose tcp
// transport runs on an IPoIB interface (tcp/ib0: the host has an
// InfiniBand port) while no memory domain of the ib component and no rc,
// ud or dc transport appears says UCX was built or started without its
// verbs support (no ib module in the UCX build, rdma-core's libibverbs or
// the HCA's provider not found, UCX_TLS excluding them): MPI over this
// UCX carries its messages over TCP on IPoIB. That is mpi.rdma_not_used,
// a warning (the job runs, at a fraction of the port's bandwidth).
func CheckInfo(l *ucxinfo.Listing, source string) InfoVerdict {
	var v InfoVerdict
	rdma := false
	for _, md := range l.MDs {
		if ucxinfo.RDMA(md.Component) || strings.HasPrefix(md.Name, "mlx") && md.Component == "" {
			rdma = true
		}
	}
	var ipoib *ucxinfo.Transport
	for i, t := range l.Transports {
		s := t.Name + "/" + t.Device
		if ucxinfo.RDMA(t.Name) {
			rdma = true
			v.RDMA = append(v.RDMA, fmt.Sprintf("%s on %s", t.Name, t.Device))
			continue
		}
		v.Other = append(v.Other, s)
		if t.Name == "tcp" && ipoib == nil && ibdev2netdev.IPoIB(t.Device) {
			ipoib = &l.Transports[i]
		}
	}
	if rdma {
		return v
	}
	if ipoib == nil {
		v.NoRDMA = true
		return v
	}
	sum := fmt.Sprintf("ucx_info lists no RDMA transport (no ib memory domain, no rc, ud or dc transport) while its tcp transport runs on the IPoIB interface %s: UCX on this host carries MPI messages over TCP on IPoIB, not over verbs (transports listed: %s)", ipoib.Device, strings.Join(v.Other, ", "))
	f := catalog.New("mpi.rdma_not_used", finding.Subject{File: source, NetDev: ipoib.Device}, sum,
		finding.Evidence{Source: fmt.Sprintf("%s:%d", source, ipoib.Line), Value: ipoib.Name + "/" + ipoib.Device})
	f.Causes = []string{
		"a UCX build without verbs support (configured without rdma-core's headers, or the ib module libuct_ib.so missing from its ucx/ module directory)",
		"libibverbs or the HCA's user-space provider (libmlx5) not found by UCX at run time: a different LD_LIBRARY_PATH, a container without rdma-core, no /dev/infiniband in it",
		"UCX_TLS or UCX_NET_DEVICES set so that the ib transports are left out (UCX_TLS=tcp, UCX_NET_DEVICES=ib0)",
	}
	f.Remedy = []string{
		"ucx_info -v: its configure line says whether verbs support was built in; the ucx module directory next to libucp must hold libuct_ib.so",
		"ibv_devinfo on the same host and in the same environment: the HCA must be listed with a PORT_ACTIVE port",
		"ucx_info -d | grep -E 'Transport|Device': rc_mlx5, ud_mlx5 or dc_mlx5 on mlx5_0:1 must appear; unset UCX_TLS and UCX_NET_DEVICES and look again",
	}
	v.Findings = append(v.Findings, f)
	return v
}
