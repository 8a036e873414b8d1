package host

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/topo"
)

// Entry points for `ibdoctor analyze`: the same rules over pasted tool
// output, without a node to map devices to. Events name the PCI addresses
// found in the text; findings carry the file as subject.

// AnalyzeKernelLog judges a kernel log on its own (Xid, fallen off the bus,
// AER, link flaps, module and health events). since and window restrict
// the events as doctor's --since does; zero for the whole log.
func CheckPastedKernelLog(l *kmsg.Log, since time.Time, window time.Duration) []finding.Finding {
	in := &Input{Snap: &snapshot.Snapshot{}, Kernel: l, Since: since, Window: window, standalone: true}
	var out []finding.Finding
	for _, check := range kernelFindingChecks {
		out = append(out, check(in)...)
	}
	out = append(out, driverErrors(in, out)...)
	return fileSubjects(out, l.Source)
}

// kernelFindingChecks are the rules that judge a kernel log on its own;
// driverErrors runs after them, on the lines none of them classified.
var kernelFindingChecks = []func(*Input) []finding.Finding{checkAER, checkXid, checkGPUResetRequired, checkGPUInitFailed, checkGSPTimeout, checkGPUFault, checkPeerMemSymbol, checkFlaps, checkBonds, checkModules, checkHealth, checkCQ, checkTxTimeout, checkRDMAPeer, checkPCIeBandwidth, checkSlotPower, checkDeviceGone, checkModuleLoad, checkCrashes, checkMemory, checkOopsAndPanics, checkMCE, checkOOM}

// AnalyzeEthtool judges `ethtool -S` outputs on their own (PFC storms,
// pause load, PHY errors, receive drops; ECN needs the RDMA counters of a node).
func CheckPastedEthtool(stats ...*ethtool.Stats) []finding.Finding {
	in := &Input{Snap: &snapshot.Snapshot{}, Ethtool: stats, standalone: true}
	var out []finding.Finding
	for _, check := range []func(*Input) []finding.Finding{checkPFCStorm, checkPauseHeavy, checkPHY, checkRxDrops} {
		out = append(out, check(in)...)
	}
	src := ""
	if len(stats) == 1 {
		src = stats[0].Source
	}
	return fileSubjects(out, src)
}

// CheckPastedGIDs judges pasted GID tables (show_gids): a RoCE port
// without a RoCE v2 GID, or whose only v2 GIDs are link-local. cut is the
// port whose rows end a table pasted without show_gids' closing
// "n_gids_found=N" line (nil when the table is whole): if the paste shows
// it a single RoCE v1 GID, its v2 twin may have been cut (CutGIDPort), so
// it is not judged.
func CheckPastedGIDs(s *snapshot.Snapshot, cut *snapshot.Port) []finding.Finding {
	if _, ok := CutGIDPort(cut); !ok {
		cut = nil
	}
	return checkGIDv2(&Input{Snap: s, standalone: true, gidsCut: cut})
}

// CheckPastedGIDIndex judges NCCL_IB_GID_INDEX, as env sets it (lines
// of the same paste: an export, a launcher flag, NCCL's "set by
// environment"), against a pasted GID table (show_gids): an index that
// names a RoCE v1 GID or an empty slot is nccl.gid_index_wrong, as on a
// live node, naming the routable RoCE v2 GID to use. open says the table
// lacks show_gids' closing n_gids_found line (cut, or filtered by grep):
// an index it does not list is then not judged.
func CheckPastedGIDIndex(s *snapshot.Snapshot, env *ncclenv.Env, open bool) []finding.Finding {
	return checkGIDIndex(&Input{Snap: s, Env: env, standalone: true, gidsOpen: open})
}

// CutGIDPort says whether p, the port whose rows end a GID table pasted
// without its closing line, ends at a RoCE v1 row whose v2 twin is not
// there while every earlier v1 GID of the port has its twin: the kernel
// adds a RoCE port's GIDs per address in pairs, the v1 entry and then the
// v2 one (at the next free index) when the device supports RoCE v2
// (drivers/infiniband/core/roce_gid_mgmt.c: one entry per GID type of
// the port's mask), so a table cut after that row hides whether the v2
// twin exists (NVIDIA/nccl#1573 ends at a port's first row, v1;
// NVIDIA/nccl#1538 at the v1 row of its IPv4 address, after the
// link-local pair). The note says so.
func CutGIDPort(p *snapshot.Port) (string, bool) {
	if p == nil || len(p.GIDs) == 0 {
		return "", false
	}
	last := p.GIDs[len(p.GIDs)-1]
	if last.Type != ib.GIDTypeIBRoCEv1 {
		return "", false
	}
	for _, g := range p.GIDs[:len(p.GIDs)-1] {
		twin := func(h snapshot.GIDEntry) bool { return h.Type == ib.GIDTypeRoCEv2 && h.GID == g.GID }
		if g.Type == ib.GIDTypeIBRoCEv1 && !slices.ContainsFunc(p.GIDs, twin) {
			return "", false // a v1 GID without its twin: the device makes none
		}
		if g.Type == ib.GIDTypeRoCEv2 && g.GID == last.GID {
			return "", false // the last row's twin is there (listed out of order)
		}
	}
	if len(p.GIDs) == 1 {
		return fmt.Sprintf("%s port %d: the table ends at its first row (GID index %d, RoCE v1) without show_gids' closing n_gids_found line, so the paste was cut before the RoCE v2 GID that follows a v1 one: the port is not judged", p.Device, p.Number, last.Index), true
	}
	return fmt.Sprintf("%s port %d: the table ends at a RoCE v1 row (GID index %d) without show_gids' closing n_gids_found line, while each earlier v1 GID of the port has its v2 twin, so the paste was cut before the RoCE v2 GID that follows it: the port is not judged", p.Device, p.Number, last.Index), true
}

// AnalyzeNvidiaSMI judges an `nvidia-smi topo -m` matrix on its own: a GPU
// whose nearest NIC is PHB or farther while another GPU has one at PIX or
// PXB is topo.gpu_nic_far.
func CheckPastedNvidiaSMI(m *nvsmi.Matrix, source string) []finding.Finding {
	nearest := make([]topo.Level, len(m.GPUs))
	best := topo.LevelUnknown
	for g, row := range m.Dist {
		for _, l := range row {
			if l != topo.LevelUnknown && (nearest[g] == topo.LevelUnknown || l < nearest[g]) {
				nearest[g] = l
			}
		}
		if nearest[g] != topo.LevelUnknown && (best == topo.LevelUnknown || nearest[g] < best) {
			best = nearest[g]
		}
	}
	if best == topo.LevelUnknown || best == topo.PHB {
		// No NIC columns, or every GPU reaches a NIC through its host
		// bridge at best (a server without PCIe switches, a VM that
		// hides them): nothing to compare.
		return nil
	}
	// With no NIC at PIX/PXB for any GPU, a GPU whose nearest NIC is NODE
	// or SYS sends all its network traffic through the CPU interconnect.
	absolute := best > topo.PHB
	var out []finding.Finding
	for g, name := range m.GPUs {
		if nearest[g] < topo.PHB || absolute && nearest[g] <= topo.PHB {
			continue
		}
		var row []string
		for n, nic := range m.NICs {
			row = append(row, fmt.Sprintf("%s=%s", nic, m.Dist[g][n]))
		}
		sum := fmt.Sprintf("%s: nearest NIC is %s while other GPUs have one at %s", name, nearest[g], best)
		if absolute {
			sum = fmt.Sprintf("%s: nearest NIC is %s and no GPU has a NIC at PIX or PXB: its RDMA traffic crosses the CPU's interconnect (%s), which limits GPUDirect RDMA; NICs under the GPUs' PCIe switches avoid it", name, nearest[g], map[bool]string{true: "between sockets", false: "between PCIe host bridges"}[nearest[g] == topo.SYS])
		}
		out = append(out, catalog.New("topo.gpu_nic_far", finding.Subject{GPU: strings.TrimPrefix(name, "GPU"), File: source}, sum,
			finding.Evidence{Source: source, Value: name + ": " + strings.Join(row, " ")}))
	}
	return out
}

func fileSubjects(fs []finding.Finding, source string) []finding.Finding {
	for i := range fs {
		if fs[i].Subject.File == "" {
			fs[i].Subject.File = source
		}
	}
	catalog.Sort(fs)
	return fs
}
