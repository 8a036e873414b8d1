// Package lsmod reads lsmod's rows of the RDMA and GPU kernel modules.
package lsmod

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoData: no row of an RDMA or GPU module.
var ErrNoData = errors.New("no lsmod row of an RDMA or GPU module")

// Module is one row of `lsmod` (kmod's tools/lsmod.c prints
// "%-19s %8lu  %d" then the holders joined by ","): "ib_uverbs
// 102296  2 mlx4_ib,rdma_ucm".
type Module struct {
	Name   string   `json:"name"`
	Size   int64    `json:"size"`
	Used   int      `json:"used"`    // the reference count ("-" reads -1)
	UsedBy []string `json:"used_by"` // the modules that hold it
	Line   int      `json:"line"`
}

// rdmaModules are the kernel modules of the RDMA stack and of GPUDirect
// RDMA that an lsmod row is read for: ib_core and its user-space
// interfaces, the connection managers, the HCA drivers (Driver says
// which), the upper layers, and the NVIDIA modules.
var rdmaModules = map[string]bool{
	"ib_core": true, "ib_uverbs": true, "ib_umad": true, "ib_cm": true, "iw_cm": true, "rdma_cm": true,
	"rdma_ucm": true, "ib_ucm": true, "ib_addr": true, "ib_mad": true, "ib_sa": true, "ib_ipoib": true,
	"ib_srp": true, "ib_srpt": true, "ib_iser": true, "ib_isert": true, "rpcrdma": true, "svcrdma": true,
	"xprtrdma": true, "ko2iblnd": true, "rdmavt": true, "mlx_compat": true, "mlx5_core": true, "mlx4_core": true,
	"nvidia": true, "nvidia_peermem": true, "nv_peer_mem": true, "nvidia_uvm": true, "nvidia_drm": true,
	"nvidia_modeset": true, "rdma_rxe": true, "siw": true,
}

// hcaDrivers are the kernel's RDMA hardware drivers, the ones that
// register an ib_device for an adapter (drivers/infiniband/hw); the
// software devices (rdma_rxe, siw) are rdmaModules.
var hcaDrivers = map[string]bool{
	"mlx4_ib": true, "mlx5_ib": true, "ib_qib": true, "hfi1": true, "ib_mthca": true, "bnxt_re": true,
	"irdma": true, "i40iw": true, "efa": true, "qedr": true, "ocrdma": true, "iw_cxgb4": true, "iw_cxgb3": true,
	"usnic_verbs": true, "vmw_pvrdma": true, "hns_roce_hw_v2": true, "erdma": true, "mana_ib": true,
	"ionic_rdma": true, "mthca": true,
}

// Driver says whether a module is an RDMA hardware driver (mlx5_ib,
// ib_qib, bnxt_re, irdma, efa …).
func Driver(name string) bool { return hcaDrivers[name] }

// Line reads one lsmod row of an RDMA or GPU module (the names of
// rdmaModules and Driver), behind a Markdown fence's backticks; rows of
// other modules and the "Module Size Used by" header are not read.
func Line(l string) (Module, bool) {
	f := strings.Fields(strings.TrimLeft(strings.TrimSpace(l), "`"))
	if len(f) < 3 || len(f) > 4 || (!rdmaModules[f[0]] && !hcaDrivers[f[0]]) {
		return Module{}, false
	}
	size, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || size <= 0 {
		return Module{}, false
	}
	m := Module{Name: f[0], Size: size, Used: -1}
	if f[2] != "-" {
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 {
			return Module{}, false
		}
		m.Used = n
	}
	if len(f) == 4 {
		if strings.HasPrefix(f[3], "[") {
			return m, true // "[permanent]"
		}
		for _, h := range strings.Split(strings.TrimSuffix(f[3], ","), ",") {
			if h == "" || strings.Trim(h, "abcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
				return Module{}, false
			}
			m.UsedBy = append(m.UsedBy, h)
		}
	}
	return m, true
}

// Header says whether l is lsmod's header: "Module  Size  Used by".
func Header(l string) bool {
	return strings.Join(strings.Fields(l), " ") == "Module Size Used by"
}

// Parse reads the rows of Line from r (line numbers from 1);
// it fails with ErrNoData (naming source) when r holds none.
func Parse(r io.Reader, source string) ([]Module, error) {
	return parse.Lines(r, source, Line, func(m *Module, n int) { m.Line = n }, ErrNoData)
}
