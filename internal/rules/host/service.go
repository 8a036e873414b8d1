package host

import (
	"fmt"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/systemctl"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// serviceRole names what a unit does on an RDMA or GPU node, and the
// severity of its loss; ok is false for any other unit (summarised, not
// judged).
func serviceRole(unit string) (role string, sev finding.Severity, ok bool) {
	n := strings.TrimSuffix(unit, ".service")
	switch {
	case n == "nvidia-fabricmanager" || n == "nvidia-fabricmanager-start" || n == "fabricmanager":
		return "the NVSwitch fabric manager: while it is down the GPUs of an NVSwitch system cannot run CUDA jobs", finding.Critical, true
	case n == "nvidia-persistenced":
		return "the NVIDIA persistence daemon (keeps the GPUs initialised between jobs)", finding.Warning, true
	case n == "nvidia-dcgm" || n == "dcgm" || n == "nv-hostengine":
		return "DCGM's host engine (GPU health monitoring)", finding.Warning, true
	case n == "opensm" || strings.HasPrefix(n, "opensm@"):
		return "the OpenSM subnet manager: if it was the subnet's only SM, no port of the subnet gets a LID", finding.Warning, true
	case n == "openibd":
		return "MLNX_OFED's driver loader (the RDMA modules)", finding.Warning, true
	case n == "rdma" || n == "rdma-load-modules@rdma" || strings.HasPrefix(n, "rdma-load-modules@") || n == "rdma-ndd" || n == "rdma-hw":
		return "rdma-core's RDMA stack service", finding.Warning, true
	case n == "ibacm" || strings.HasPrefix(n, "srp_daemon") || n == "srpd":
		return "an RDMA address or storage service of rdma-core", finding.Warning, true
	case n == "nv_peer_mem" || n == "nvidia-peermem":
		return "the GPUDirect RDMA peer-memory module's service", finding.Warning, true
	case strings.HasPrefix(n, "mlnx") || strings.HasPrefix(n, "ufm"):
		return "a Mellanox/NVIDIA networking service", finding.Warning, true
	}
	return "", "", false
}

// CheckServices judges the units of a pasted `systemctl status`: a unit an
// RDMA or GPU node depends on that failed, keeps restarting or is stopped
// is host.service_failed (critical for the fabric manager); healthy ones
// and other units are summarised in notes.
func CheckServices(units []systemctl.Unit, file string) (out []finding.Finding, notes []string) {
	for i := range units {
		u := &units[i]
		role, sev, ok := serviceRole(u.Name)
		state := u.State
		if u.Sub != "" {
			state += " (" + u.Sub + ")"
		}
		switch {
		case u.State == "":
			notes = append(notes, fmt.Sprintf("%s:%d: %s: no Active: line (cut short), not judged", file, u.Head.N, u.Name))
			continue
		case !ok:
			notes = append(notes, fmt.Sprintf("%s:%d: %s is %s: not a unit of the RDMA or GPU stack, not judged", file, u.Active.N, u.Name, state))
			continue
		case u.Healthy():
			continue
		}
		if strings.HasPrefix(u.Loaded, "not-found") || strings.HasPrefix(u.Loaded, "masked") {
			notes = append(notes, fmt.Sprintf("%s:%d: %s is %s and its unit is %s: not installed or masked here, not judged", file, u.Active.N, u.Name, state, u.Loaded))
			continue
		}
		what := "failed"
		switch {
		case u.State == "activating" && u.Sub == "auto-restart":
			what = "keeps failing and restarting"
		case u.State == "inactive":
			what = "is stopped"
			if sev == finding.Critical {
				sev = finding.Warning // stopped by hand, maybe on a system without NVSwitches
			}
		case u.State != "failed":
			what = "is " + state
		}
		sum := fmt.Sprintf("%s %s: %s", u.Name, what, role)
		if n, ok := nothingToDo(u); ok && sev == finding.Critical {
			// nv-fabricmanager exits so on a system without NVSwitches
			// (PCIe GPUs, NVLink bridges): nothing for it to manage.
			sev = finding.Info
			sum = fmt.Sprintf("%s %s, but its journal says NV_WARN_NOTHING_TO_DO (line %d): the fabric manager found no NVSwitch to manage, as on a system of PCIe GPUs or NVLink bridges, where it is not needed (disable the unit there); on an HGX system it means the NVSwitch driver sees no switch", u.Name, what, n)
		}
		if u.Result != "" {
			sum += "; result " + u.Result
		}
		if u.Exit != "" {
			sum += "; main process " + u.Exit
		}
		f := catalog.New("host.service_failed", finding.Subject{}, sum,
			finding.Evidence{Source: fmt.Sprintf("%s:%d", file, u.Active.N), Value: strings.TrimSpace(u.Active.Text)})
		f.Severity = sev
		out = append(out, f)
	}
	return out, notes
}

// nothingToDo finds the fabric manager's NV_WARN_NOTHING_TO_DO ("request
// to query NVSwitch device information from NVSwitch driver failed with
// error:WARNING Nothing to do") in the journal lines under the unit.
func nothingToDo(u *systemctl.Unit) (int, bool) {
	for _, l := range u.Journal {
		if strings.Contains(l.Text, "NV_WARN_NOTHING_TO_DO") {
			return l.N, true
		}
	}
	return 0, false
}
