package host

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// NodeVersions are one node's mlx5 driver and HCA firmware versions, the
// input of VersionOutliers. A caller that sees many nodes (check --fleet,
// a hub polling agents) builds one per node, with VersionsOf or from what
// its agents report.
type NodeVersions struct {
	Host string `json:"host"`
	// Driver is the mlx5_core version (sys/module/mlx5_core/version, else
	// its srcversion); "" when unknown.
	Driver string `json:"driver,omitempty"`
	// Firmware are the node's HCAs with a known fw_ver.
	Firmware []DeviceFirmware `json:"firmware,omitempty"`
}

// DeviceFirmware is one HCA's firmware: versions are compared among HCAs of
// one model only (a ConnectX-7 and a BlueField-3 run different lines).
type DeviceFirmware struct {
	Device  string `json:"device"`
	Model   string `json:"model"`
	Version string `json:"fw_ver"`
}

// VersionsOf takes the versions of a node's snapshot.
func VersionsOf(s *snapshot.Snapshot) NodeVersions {
	v := NodeVersions{Host: s.Host, Driver: s.Driver()}
	for i := range s.Devices {
		d := &s.Devices[i]
		if d.FWVersion != "" {
			v.Firmware = append(v.Firmware, DeviceFirmware{Device: d.Name, Model: d.Model(s), Version: d.FWVersion})
		}
	}
	return v
}

// VersionOutliers compares nodes with the majority of the fleet: a node
// whose mlx5_core version differs from the version that more than half of
// the nodes reporting one run is host.driver_outlier; a node whose HCAs of
// a model run another firmware than more than half of the nodes with that
// model is host.fw_outlier (one finding per node and model, naming its
// devices). Without such a majority (a fleet halfway through an upgrade)
// nothing is judged: there is no version to call right. Nodes that report
// no version are not counted. Fewer than three nodes make no majority
// worth the name.
func VersionOutliers(nodes []NodeVersions) []finding.Finding {
	var out []finding.Finding
	drivers := map[string]string{}
	for _, n := range nodes {
		if n.Driver != "" {
			drivers[n.Host] = n.Driver
		}
	}
	if major, count, ok := majority(drivers); ok {
		for _, n := range nodes {
			if v := drivers[n.Host]; v != "" && v != major {
				out = append(out, catalog.New("host.driver_outlier", finding.Subject{Host: n.Host},
					fmt.Sprintf("%s runs mlx5_core %s while %d of %d nodes run %s", n.Host, v, count, len(drivers), major),
					finding.Evidence{Source: n.Host + ": sys/module/mlx5_core/version", Value: v},
					finding.Evidence{Source: "fleet majority", Value: fmt.Sprintf("%s on %d of %d nodes", major, count, len(drivers))}))
			}
		}
	}
	// Firmware per model: a node's version of a model is the one most of
	// its devices of that model run (its own odd devices are
	// port.fw_mismatch, judged on the node).
	type nodeFW struct {
		version string
		devices []string // of that model running another version than the fleet
	}
	byModel := map[string]map[string]*nodeFW{}
	for _, n := range nodes {
		counts := map[string]map[string]int{}
		for _, f := range n.Firmware {
			if counts[f.Model] == nil {
				counts[f.Model] = map[string]int{}
			}
			counts[f.Model][f.Version]++
		}
		for m, vs := range counts {
			best := ""
			for v, c := range vs {
				if best == "" || c > vs[best] || c == vs[best] && cmp.Compare(v, best) > 0 {
					best = v
				}
			}
			if byModel[m] == nil {
				byModel[m] = map[string]*nodeFW{}
			}
			byModel[m][n.Host] = &nodeFW{version: best}
		}
	}
	models := make([]string, 0, len(byModel))
	for m := range byModel {
		models = append(models, m)
	}
	slices.Sort(models)
	for _, m := range models {
		per := map[string]string{}
		for h, f := range byModel[m] {
			per[h] = f.version
		}
		major, count, ok := majority(per)
		if !ok {
			continue
		}
		for _, n := range nodes {
			nf := byModel[m][n.Host]
			if nf == nil {
				continue
			}
			var odd []string
			var ev []finding.Evidence
			for _, f := range n.Firmware {
				if f.Model == m && f.Version != major {
					odd = append(odd, f.Device)
					ev = append(ev, finding.Evidence{Source: n.Host + ": sys/class/infiniband/" + f.Device + "/fw_ver", Value: f.Version})
				}
			}
			if nf.version == major || len(odd) == 0 {
				continue
			}
			subj := finding.Subject{Host: n.Host}
			if len(odd) == 1 {
				subj.Device = odd[0]
			}
			ev = append(ev, finding.Evidence{Source: "fleet majority", Value: fmt.Sprintf("%s %s on %d of %d nodes", m, major, count, len(per))})
			out = append(out, catalog.New("host.fw_outlier", subj,
				fmt.Sprintf("%s: %s (%s) run firmware %s while %d of %d nodes with %s run %s", n.Host, strings.Join(odd, ","), m, nf.version, count, len(per), m, major),
				ev...))
		}
	}
	catalog.Sort(out)
	return out
}

// majority returns the version more than half of the hosts run, with its
// count; ok is false with fewer than three hosts or no such version.
func majority(byHost map[string]string) (string, int, bool) {
	if len(byHost) < 3 {
		return "", 0, false
	}
	counts := map[string]int{}
	for _, v := range byHost {
		counts[v]++
	}
	for v, c := range counts {
		if c*2 > len(byHost) {
			return v, c, true
		}
	}
	return "", 0, false
}
