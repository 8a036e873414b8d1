package cli

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

// ibOnly are the commands and words that mean nothing on an Ethernet
// (RoCE) port: management datagrams, LIDs and the subnet manager.
var ibOnly = regexp.MustCompile(`\b(ibportstate|perfquery|ibqueryerrors|iblinkinfo|ibnetdiscover|ibtracert|sminfo|saquery|smpquery|opensm|subnet manager|ibdoctor fabric)\b`)

// remedyProblems returns what makes a finding's remedies not runnable as
// printed for its subject.
func remedyProblems(f finding.Finding) []string {
	var bad []string
	s := f.Subject
	has := map[string]bool{
		"dev": s.Device != "", "port": s.Port > 0, "pci": s.PCI != "", "netdev": s.NetDev != "",
		"host": s.Host != "", "gpu": s.GPU != "", "lid": s.LID > 0, "guid": s.NodeGUID != "",
	}
	for _, r := range f.Remedy {
		for name := range finding.Placeholders {
			if strings.Contains(r, "<"+name+">") {
				bad = append(bad, "unfilled <"+name+"> (an unknown value must be explained in words): "+r)
			}
			meta := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
			if has[name] && strings.Contains(r, meta+": "+finding.Placeholders[name]) {
				bad = append(bad, "the subject knows "+name+" but the remedy says "+meta+": "+r)
			}
		}
		if strings.HasPrefix(r, "IB: ") || strings.HasPrefix(r, "RoCE: ") {
			if s.LinkLayer != "" {
				bad = append(bad, "link-layer marker left on a port of known link layer: "+r)
			}
		}
		switch s.LinkLayer {
		case "Ethernet":
			if m := ibOnly.FindString(r); m != "" {
				bad = append(bad, "InfiniBand-only "+m+" on an Ethernet port: "+r)
			}
		case "InfiniBand":
			if strings.Contains(r, "ip link set") {
				bad = append(bad, "RoCE remedy on an InfiniBand port (its netdev is IPoIB): "+r)
			}
		}
		// A command that acts on a local port names the device: without
		// -C/-P the tools take the first HCA's first port.
		if s.Device != "" && (strings.Contains(r, "perfquery") || strings.Contains(r, "ibportstate")) &&
			!(strings.Contains(r, "-C "+s.Device) && strings.Contains(r, "-P ")) {
			bad = append(bad, "does not name "+s.Device+" with -C/-P: "+r)
		}
	}
	if s.LinkLayer == "Ethernet" {
		for _, c := range f.Causes {
			if m := ibOnly.FindString(c); m != "" {
				bad = append(bad, "InfiniBand-only cause ("+m+") on an Ethernet port: "+c)
			}
		}
	}
	return bad
}

// trendFindings runs the rules over time on two samples five minutes apart:
// the healthy node, then the node with the fault.
func trendFindings(t *testing.T, profile string, fault string) []finding.Finding {
	t.Helper()
	var hist []trend.Sample
	for i, faults := range [][]string{nil, {fault}} {
		dir := simBundle(t, profile, faults...)
		rt, err := rootfs.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC).Add(time.Duration(i) * 5 * time.Minute)
		snap, err := sysfs.Read(context.Background(), rt.FS(), sysfs.Options{Root: dir, Now: func() time.Time { return at }})
		rt.Close()
		if err != nil {
			t.Fatal(err)
		}
		hist = append(hist, trend.FromSnapshot(snap, nil))
	}
	return trend.Check(trend.Input{Host: "gpu017", History: hist}, trend.Defaults())
}

// Every finding the node, host and trend rules raise on every simulated
// fault, on InfiniBand and on RoCE ports, has remedies that run as
// printed: no <placeholder> where the subject has the value, the device
// named where a command touches one, and nothing of the other link layer.
func TestRemediesRunnableOnSimulatedFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a simulated node per fault")
	}
	seen := map[string]bool{}
	for _, profile := range []string{"h100-ndr", "roce-400g"} {
		for _, k := range simnode.Faults() {
			spec := k.Example
			if profile == "roce-400g" && !strings.Contains(spec, "mlx5_") {
				continue // the node-wide faults are judged on the first profile
			}
			f, err := simnode.ParseFault(spec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := simnode.Build(simnode.Options{Profile: profile, Faults: []simnode.Fault{f}}); err != nil {
				continue // the example names a netdev this profile lacks
			}
			stdout, stderr, _ := run(t, "doctor", "--root", simBundle(t, profile, spec), "--format", "json")
			var doc struct {
				Findings []finding.Finding `json:"findings"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("%s %s: %v (stderr %s)", profile, spec, err, stderr)
			}
			fs := append(doc.Findings, trendFindings(t, profile, spec)...)
			for _, fd := range fs {
				seen[fd.ID+"/"+fd.Subject.LinkLayer] = true
				for _, b := range remedyProblems(fd) {
					t.Errorf("%s --fault %s: %s (%s %s port %d): %s", profile, spec, fd.ID, fd.Subject.LinkLayer, fd.Subject.Device, fd.Subject.Port, b)
				}
			}
		}
	}
	// The faults must reach the port findings on both link layers, or the
	// checks above prove nothing.
	for _, want := range []string{"port.down/InfiniBand", "port.disabled/InfiniBand", "port.disabled/Ethernet", "port.width_degraded/Ethernet", "port.symbol_errors/Ethernet",
		"port.width_degraded/InfiniBand", "port.symbol_errors/InfiniBand", "port.counter_saturated/InfiniBand", "pcie.acs_redirect/"} {
		if !seen[want] {
			t.Errorf("no %s finding on the simulated faults; seen %v", want, seen)
		}
	}
}

// The priority the evidence names is filled into the ECN remedy.
func TestECNRemedyNamesThePriority(t *testing.T) {
	stdout, _, _ := run(t, "doctor", "--root", simBundle(t, "h100-ndr", "ethtool:ens1f0np0/rx_prio3_pause=250000"), "--format", "json")
	var doc struct {
		Findings []finding.Finding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range doc.Findings {
		if f.ID != "roce.ecn_not_effective" {
			continue
		}
		if !strings.Contains(strings.Join(f.Remedy, "\n"), "/sys/class/net/ens1f0np0/ecn/roce_np/enable/3") {
			t.Errorf("ECN remedy does not name prio 3 of ens1f0np0: %q", f.Remedy)
		}
		return
	}
	t.Errorf("no roce.ecn_not_effective finding: %s", stdout)
}

// Remedies that point at ibdoctor itself name a command that exists (not
// a group such as `ibdoctor perf`, which only prints its help) with flags
// that command has.
func TestRemediesNameRealIbdoctorCommands(t *testing.T) {
	root := NewRootCmd(&cmdutil.Factory{Version: "test"})
	n := 0
	for _, m := range catalog.Default.All() {
		for _, r := range m.Remedy {
			toks := strings.Fields(r)
			for i, tok := range toks {
				if strings.Trim(tok, "(`'\",;:") != "ibdoctor" {
					continue
				}
				var args []string
				for _, a := range toks[i+1:] {
					a = strings.Trim(a, "(`'\",;:)")
					if a == "" || a == "|" || a == "ibdoctor" {
						break
					}
					args = append(args, a)
				}
				n++
				cmd, rest, err := root.Find(args)
				if err != nil || cmd == root {
					t.Errorf("%s: remedy %q: no ibdoctor command %v (%v)", m.ID, r, args, err)
					continue
				}
				if !cmd.Runnable() || cmd.HasSubCommands() {
					t.Errorf("%s: remedy %q: %q is a group, not a command", m.ID, r, cmd.CommandPath())
				}
				for _, a := range rest {
					if name, ok := strings.CutPrefix(a, "--"); ok {
						name, _, _ = strings.Cut(name, "=")
						if cmd.Flags().Lookup(name) == nil && cmd.InheritedFlags().Lookup(name) == nil {
							t.Errorf("%s: remedy %q: %s has no flag --%s", m.ID, r, cmd.CommandPath(), name)
						}
					}
				}
			}
		}
	}
	if n < 10 {
		t.Errorf("found only %d ibdoctor commands in the remedies", n)
	}
}
