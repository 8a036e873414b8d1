package host

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// reInitModuleFailed is a line of the RDMA stack's init scripts
// (MLNX_OFED's /etc/init.d/openibd, MLNX_EN's /etc/init.d/mlnx-en.d, the
// rdma service of older distributions) that failed to load a module:
// their "Loading rdma_ucm … [FAILED]" (the Red Hat init-functions
// echo_failure marker), and "Module rdma_cm belong to kernel which is
// not a part of MLNX_OFED, skipping..." when a module the script loads
// is the kernel's own, not one built for the driver package (after a
// kernel update whose ABI the package's weak-updates links do not fit).
// The terminal's "[FAILED]" column may overwrite the line's end
// ("…not a part of MLNX[FAILED]kipping...").
var (
	reInitLoadFailed  = regexp.MustCompile(`^(?:Loading|Unloading|Starting)\s+(?:module\s+)?(.+?)[\s:.]*\[\s*FAILED\s*\]`)
	reInitNotOfModule = regexp.MustCompile(`^Module (\S+) belongs? to kernel which is not a part of`)
)

// rdmaStackModule matches a module of the RDMA stack an init script
// loads, or its "HCA driver" step.
var rdmaStackModule = regexp.MustCompile(`^(?:rdma_\w+|ib_\w+|iw_\w+|mlx[45]_\w+|mlx_compat|mlxfw|mlxdevm|knem|xpmem|nvme_rdma|nvmet_rdma|rpcrdma|svcrdma|xprtrdma|ib_ipoib|HCA driver\b.*)$`)

// reGPFSVerbsShutdown is IBM Storage Scale's (GPFS) mmfs log message
// when it gives up its verbs RDMA transport: "VERBS RDMA Shutdown because
// pagepool could not be registered to Infiniband." The daemon goes on
// over TCP.
var reGPFSVerbsShutdown = regexp.MustCompile(`\bVERBS RDMA [Ss]hut ?down because (.+?)\.?\s*$`)

// reVerifyBadLink is the report of Oracle Exadata's verify-topology
// (the InfiniBand cabling topology verification tool of the database
// machine) for a link it found wrong: "Bad link:Switch 0x21283a8371a0a0
// Port 11A - Sun Port 11B", with "Reason : 2.5 Gbps Speed found. Could be
// 10 Gbps" and "Possible cause : Cable isn't fully seated in" under it.
var (
	reVerifyBadLink = regexp.MustCompile(`^Bad link:\s*(\S.*?)\s*$`)
	reVerifyReason  = regexp.MustCompile(`^(Reason|Possible cause)\s*:\s*(\S.*?)\s*$`)
)

// KnownFailure returns the finding of failure lines whose program and
// meaning are known although `ibdoctor analyze` reads no output of that
// program: a module of the RDMA stack an init script failed to load, GPFS
// shutting its RDMA transport down, verify-topology's bad links. ls are
// the lines of the unread output, starting at line start of file; only
// the first sample of them are searched. nil when none is there.
func KnownFailure(file string, ls []string, start, sample int) *finding.Finding {
	var mods []string
	var ev []finding.Evidence
	for i, l := range ls[:min(len(ls), sample)] {
		t := strings.TrimSpace(l)
		if m := reGPFSVerbsShutdown.FindStringSubmatch(t); m != nil {
			return gpfsVerbsShutdown(file, start+i, t, m[1])
		}
		if reVerifyBadLink.MatchString(t) {
			return verifyTopology(file, ls, start)
		}
		mod := ""
		if m := reInitNotOfModule.FindStringSubmatch(t); m != nil {
			mod = m[1]
		} else if m := reInitLoadFailed.FindStringSubmatch(t); m != nil {
			mod = strings.TrimSpace(m[1])
		}
		if mod == "" || !rdmaStackModule.MatchString(mod) {
			continue
		}
		if len(ev) < 4 {
			ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, start+i), Value: t})
		}
		mods = append(mods, mod)
	}
	if len(mods) == 0 {
		return nil
	}
	sum := fmt.Sprintf("the RDMA stack's init script failed to load %s: without them the RDMA services they provide are missing (rdma_cm/rdma_ucm: no RDMA connection manager, so rdma_cm-based applications, MPI over UCX with RoCE, NVMe-oF and iSER cannot connect)", strings.Join(mods, ", "))
	f := catalog.New("kmsg.module_load_failed", finding.Subject{File: file}, sum, ev...)
	f.Severity = finding.Critical
	f.Causes = append([]string{"the driver package (MLNX_OFED, MLNX_EN) was built for another kernel: after a kernel or errata update its modules have no weak-updates links for the new kernel, so the script finds the kernel's own module (\"belong to kernel which is not a part of\") or none it can load"}, f.Causes...)
	f.Remedy = append([]string{"ofed_info -s and uname -r, then reinstall the driver package for the running kernel (its installer with --add-kernel-support), and restart the driver: /etc/init.d/openibd restart (or mlnx-en.d restart) must print [  OK  ] for every module"}, f.Remedy...)
	return &f
}

// gpfsVerbsShutdown is the finding of GPFS's "VERBS RDMA Shutdown
// because …" line.
func gpfsVerbsShutdown(file string, line int, text, why string) *finding.Finding {
	sum := fmt.Sprintf("IBM Storage Scale (GPFS) shut its verbs RDMA transport down because %s: the daemon goes on over TCP sockets, much slower and with more CPU, until RDMA is started again", why)
	f := catalog.New("rdma.transport_unavailable", finding.Subject{File: file}, sum,
		finding.Evidence{Source: fmt.Sprintf("%s:%d", file, line), Value: text})
	f.Severity = finding.Critical
	if strings.Contains(why, "pagepool") {
		f.Causes = []string{"the HCA cannot register the whole page pool: on ConnectX-3 (mlx4) the memory translation table (MTT) is too small for it (mlx4_core module options log_num_mtt and log_mtts_per_seg), or the page pool is larger than the adapter can map"}
		f.Remedy = []string{
			"mlx4: raise the MTT size (options mlx4_core log_num_mtt=… log_mtts_per_seg=… in /etc/modprobe.d, so that 2^log_num_mtt x 2^log_mtts_per_seg x 4 KiB is at least twice the memory), reload the driver and restart GPFS",
			"or reduce the page pool (mmchconfig pagepool=…) and restart GPFS on the node",
			"mmfsadm test verbs status: VERBS RDMA status must say started",
		}
	}
	return &f
}

// verifyTopology is the finding of verify-topology's "Bad link" reports:
// a link of the database machine's InfiniBand fabric trained slower than
// it should (a QDR link at 2.5 Gb/s per lane, SDR) or cabled wrong.
func verifyTopology(file string, ls []string, start int) *finding.Finding {
	var links, reasons []string
	var ev []finding.Evidence
	for i, l := range ls {
		t := strings.TrimSpace(l)
		if m := reVerifyBadLink.FindStringSubmatch(t); m != nil {
			links = append(links, m[1])
			if len(ev) < 4 {
				ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, start+i), Value: t})
			}
		} else if m := reVerifyReason.FindStringSubmatch(t); m != nil && len(links) > 0 {
			if r := m[1] + ": " + m[2]; !slices.Contains(reasons, r) {
				reasons = append(reasons, r)
			}
			if len(ev) < 6 && m[1] == "Reason" {
				ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, start+i), Value: t})
			}
		}
	}
	sum := fmt.Sprintf("verify-topology reports %s: %s", plural(len(links), "bad link", "bad links"), strings.Join(links, "; "))
	if len(reasons) > 0 {
		sum += " (" + strings.Join(reasons, "; ") + ")"
	}
	sum += ": a link trained below its speed, or cabled to the wrong place, carries less or none of the traffic the database machine's fabric plans for it"
	f := catalog.New("fabric.link_degraded", finding.Subject{File: file}, sum, ev...)
	f.Severity = finding.Critical
	f.Causes = []string{"a cable not fully seated in its port (the connector latched on one side only), which trains at the lowest speed (2.5 Gb/s per lane, SDR)", "a damaged cable or a failing switch port", "a cable connected to the wrong switch or port"}
	f.Remedy = []string{"reseat the cable named at both ends (switch port and server port), then run verify-topology again: no Bad link", "iblinkinfo (the link's width and speed after reseating: 4X 10.0 Gbps for QDR)", "replace the cable if the link stays slow after reseating"}
	return &f
}
