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
	var failed []ucxinfo.Transport
	for i, t := range l.Transports {
		s := t.Name + "/" + t.Device
		if ucxinfo.RDMA(t.Name) && t.Failed != "" {
			failed = append(failed, t)
			continue
		}
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
	if len(failed) > 0 {
		v.Findings = append(v.Findings, openFailed(failed, len(v.RDMA), source))
		return v
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

// openFailed reports RDMA transports whose interface ucx_info could not
// open or query (tl_info.c print_iface_info: "< failed to open interface
// >"): UCX cannot use that device port; with no other RDMA transport open
// MPI over this UCX has no RDMA path. mpi.rdma_not_used, a warning.
func openFailed(failed []ucxinfo.Transport, opened int, source string) finding.Finding {
	var names []string
	for _, t := range failed {
		names = append(names, t.Name+" on "+t.Device)
	}
	sum := fmt.Sprintf("ucx_info could not open the interface of %s: UCX cannot send over that RDMA device port", strings.Join(names, ", "))
	if opened == 0 {
		sum += "; no RDMA transport opened, so MPI over this UCX has no RDMA path"
	} else {
		sum += fmt.Sprintf("; %d other RDMA transport(s) opened", opened)
	}
	t := failed[0]
	f := catalog.New("mpi.rdma_not_used", finding.Subject{File: source}, sum,
		finding.Evidence{Source: fmt.Sprintf("%s:%d", source, t.FailedLine), Value: t.Failed},
		finding.Evidence{Source: fmt.Sprintf("%s:%d", source, t.Line), Value: "Transport: " + t.Name + ", Device: " + t.Device})
	f.Causes = []string{
		"the HCA port is not usable: PORT_DOWN, no GID for RoCE, or a device that the UCX transport does not support",
		"locked-memory limit too low for the transport's queues (ulimit -l), or no access to /dev/infiniband in a container",
	}
	f.Remedy = []string{
		"UCX_LOG_LEVEL=debug ucx_info -d: the reason the interface did not open is logged before the line",
		"ibv_devinfo -d " + strings.SplitN(t.Device, ":", 2)[0] + ": the port must be PORT_ACTIVE; ulimit -l must be unlimited",
	}
	return f
}
