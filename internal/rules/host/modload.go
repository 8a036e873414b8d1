package host

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// maxNamedSymbols is how many of a module's symbols a finding names.
const maxNamedSymbols = 3

// checkModuleLoad reports each kernel module the log says failed to load
// because it was built for another kernel or another build of the
// modules it uses (kmsg.module_load_failed, one finding per module): its
// symbols' versions disagree with the running kernel's ("disagrees about
// version of symbol"), it needs symbols nothing loaded exports ("Unknown
// symbol … (err -22)"), or its version magic names another kernel.
// A module whose missing or mismatched symbols are the RDMA core's
// (ib_*, rdma_*: BeeGFS's client, rpcrdma, a storage driver built out of
// tree) is an RDMA consumer built against another RDMA stack: critical.
// Lustre's "Can't load LND o2ib, module ko2iblnd" is evidence of the
// module's finding, or a finding of its own when the module's lines are
// not in the log. Critical for a module of the RDMA, GPU, NIC or NVMe
// stack (kmsg.StackModule) and for LNet's network drivers, a warning for
// another module.
func checkModuleLoad(in *Input) []finding.Finding {
	type tally struct {
		module            string
		symbols           []string
		mismatch, unknown int
		vermagic, lnd, rc string
		ev                []finding.Evidence
		nLines, cited     int
		lndCited          bool
		rdma              bool
	}
	at := map[string]*tally{}
	var keys []string
	for _, e := range in.events() {
		if e.Kind != kmsg.KindModuleLoad {
			continue
		}
		mod := strings.ReplaceAll(e.Driver, "-", "_")
		t, ok := at[mod]
		if !ok {
			t = &tally{module: mod}
			at[mod] = t
			keys = append(keys, mod)
		}
		if e.Interface != "" {
			// Lustre's LNet: the network it could not start.
			t.lnd = e.Interface
			if _, rc, ok := strings.Cut(e.Detail, "(rc="); ok {
				t.rc = strings.TrimSuffix(rc, ")")
			}
			if !t.lndCited && !e.Folded {
				t.lndCited = true
				t.ev = append(t.ev, in.logEvidence(e.Record))
			}
			continue
		}
		t.nLines += e.Weight()
		switch {
		case strings.HasPrefix(e.Detail, "disagrees"):
			t.mismatch += e.Weight()
		case strings.HasPrefix(e.Detail, "Unknown symbol"):
			t.unknown += e.Weight()
		case strings.HasPrefix(e.Detail, "version magic"):
			t.vermagic = e.Detail
		}
		if rdmaCoreSymbol(e.Symbol) {
			t.rdma = true
		}
		if e.Symbol != "" && !slices.Contains(t.symbols, e.Symbol) {
			t.symbols = append(t.symbols, e.Symbol)
		}
		if t.cited < maxEvidence && !e.Folded {
			t.cited++
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	var out []finding.Finding
	for _, mod := range keys {
		t := at[mod]
		var msg string
		if t.nLines == 0 {
			msg = fmt.Sprintf("Lustre's LNet could not load its %s network driver, module %s (modprobe returned %s): LNet has no %s network, so this node cannot reach Lustre over it; the module's own load error is in the kernel log (dmesg | grep %s)", t.lnd, mod, t.rc, t.lnd, mod)
		} else {
			var why []string
			if t.mismatch > 0 {
				why = append(why, "it disagrees with the running kernel about the version of "+plural(countSymbols(t.mismatch, t.symbols), "symbol", "symbols"))
			}
			if t.unknown > 0 && t.mismatch == 0 {
				why = append(why, "it needs "+plural(countSymbols(t.unknown, t.symbols), "symbol", "symbols")+" nothing loaded exports")
			}
			if t.vermagic != "" {
				why = append(why, "its "+t.vermagic)
			}
			msg = fmt.Sprintf("kernel module %s failed to load: %s", mod, strings.Join(why, "; "))
			if len(t.symbols) > 0 {
				named := t.symbols[:min(len(t.symbols), maxNamedSymbols)]
				msg += " (" + strings.Join(named, ", ")
				if len(t.symbols) > len(named) {
					msg += ", …"
				}
				msg += ")"
			}
			msg += ": it was built for another kernel or another RDMA stack (MLNX_OFED against the kernel's own, or another version) than the one running"
			if t.lnd != "" {
				msg += fmt.Sprintf("; Lustre's LNet could not start its %s network on it, so this node cannot reach Lustre over RDMA", t.lnd)
			} else if what, ok := rdmaConsumers[mod]; ok && t.rdma {
				msg += "; " + what + " cannot work without it"
			} else if kmsg.StackModule(mod) {
				msg += ", and what needs it does not work"
			} else if t.rdma {
				msg += "; it uses the kernel's RDMA core (ib_core, rdma_cm), so what it carries over RDMA does not work"
			}
		}
		f := catalog.New("kmsg.module_load_failed", finding.Subject{Host: in.Snap.Host}, msg, t.ev...)
		catalog.Fill(&f, "module", mod)
		if !kmsg.StackModule(mod) && t.lnd == "" && !t.rdma {
			f.Severity = finding.Warning
		}
		if t.lnd != "" || lustreModules[mod] {
			f.Remedy = transportRemedies(f.Remedy, "Lustre: ")
			f.Causes = transportRemedies(f.Causes, "Lustre: ")
		} else {
			f.Remedy = transportRemedies(f.Remedy, "\x00")
			f.Causes = transportRemedies(f.Causes, "\x00")
		}
		out = append(out, f)
	}
	return out
}

// countSymbols is how many symbols lines name: the distinct names kept,
// or the lines when folding dropped names.
func countSymbols(lines int, names []string) int {
	return min(lines, max(len(names), 1))
}

// lustreModules are Lustre's LNet modules: their findings keep the
// catalogue's Lustre remedies.
var lustreModules = map[string]bool{"ko2iblnd": true, "kkfilnd": true, "ksocklnd": true, "lnet": true, "libcfs": true}

// rdmaCoreSymbol reports whether a kernel symbol is exported by the RDMA
// core (ib_core, rdma_cm, iw_cm: drivers/infiniband/core exports
// ib_*, __ib_*, rdma_*, __rdma_*, iw_*), so a module that needs it is an
// RDMA consumer.
func rdmaCoreSymbol(sym string) bool {
	sym = strings.TrimLeft(sym, "_")
	return strings.HasPrefix(sym, "ib_") || strings.HasPrefix(sym, "rdma_") || strings.HasPrefix(sym, "iw_")
}

// rdmaConsumers says what each known RDMA consumer module provides.
var rdmaConsumers = map[string]string{
	"beegfs":   "the BeeGFS client's file system (its mounts and their RDMA connections to the BeeGFS servers)",
	"rpcrdma":  "NFS over RDMA",
	"svcrdma":  "the NFS server's RDMA transport",
	"xprtrdma": "NFS over RDMA",
	"rds_rdma": "RDS over RDMA",
}
