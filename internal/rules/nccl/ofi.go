package nccl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// ofiHostUnreach is FI_EHOSTUNREACH (EHOSTUNREACH): aws-ofi-nccl's AWS
// platform (src/platform-aws.cpp, PlatformAWS::log_cq_error) says the
// EFA provider returns it only when a security group dropped the packets.
const ofiHostUnreach = 113

// efaSetupDoc is AWS's guide whose security-group step EFA needs.
const efaSetupDoc = "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start-nccl.html"

// ofiCompletionFindings reports the completion errors of the aws-ofi-nccl
// net plugin (Event.Net "OFI"): a transfer over libfabric (EFA, CXI …)
// failed, the OFI analogue of an IB work-completion error, so
// nccl.ibv_error. The code is a libfabric error number, not an
// ibv_wc_status.
func ofiCompletionFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	var errs []nccllog.Event
	for _, e := range lg.Events {
		if e.Kind == nccllog.EventCompletion && e.Net == "OFI" {
			errs = append(errs, e)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	first := errs[0]
	where := ""
	if first.Host != "" {
		where = " on " + first.Host
	}
	what := fmt.Sprintf("RC %d", first.RC)
	if first.RC == 0 {
		what = "an error completion" // "Fatal: rx buffer recv completed with error" prints no code
	}
	if first.Error != "" {
		what += " (" + first.Error + ")"
	}
	if first.Req != "" {
		what += " on a " + first.Req + " request"
	}
	summary := fmt.Sprintf("NCCL's OFI net plugin (aws-ofi-nccl over libfabric) got a completion error%s: %s, %d time(s): a transfer to or from the peer failed and the collective cannot complete", where, what, weight(errs))
	if first.RC == ofiHostUnreach {
		summary += "; error 113 (host unreachable) is how EFA reports packets a security group dropped"
	} else {
		summary += "; on EFA the usual cause is a security group that does not pass the EFA traffic between the instances, else a peer that died"
	}
	f := catalog.New("nccl.ibv_error", subj, summary, finding.Evidence{Source: at(first.Source, first.Line), Value: first.Text})
	f.Subject.Host = first.Host
	f.Causes = []string{
		"EFA: the security group of this instance or of its peer does not allow all inbound and outbound traffic to and from the security group itself",
		"the peer process died or closed its endpoint (its own log shows the first error)",
		"a fault of the network device (dmesg on both nodes for the efa driver's errors)",
	}
	f.Remedy = []string{
		"allow all inbound and outbound traffic to and from the security group itself on every instance of the job (" + efaSetupDoc + ")",
		"fi_pingpong -p efa -e rdm on one node, then fi_pingpong -p efa -e rdm <its IP> on the other: EFA between the two without NCCL",
		"dmesg | grep -i efa on both nodes; rerun with FI_LOG_LEVEL=warn NCCL_DEBUG=INFO for libfabric's own reason",
	}
	return []finding.Finding{f}
}

// ofiResource fills the causes and remedies of a nccl.resource_error for
// a libfabric call of the aws-ofi-nccl plugin (Event.Net "OFI"): the
// catalogue's are written for verbs.
func ofiResource(f *finding.Finding) {
	f.Causes = []string{
		"the EFA devices are not visible where the job runs: a container without /dev/infiniband/uverbs*, a pod that does not request vpc.amazonaws.com/efa, or the efa kernel module not loaded",
		"the libfabric in the image (EFA installer) does not match the plugin or the efa kernel driver",
		"the device ran out of resources (protection domains, address vectors, queues): too many processes or communicators per EFA device; dmesg shows the efa driver's failed command",
	}
	f.Remedy = []string{
		"fi_info -p efa -t FI_EP_RDM on the node and inside the container: it must list the EFA devices",
		"pass the EFA devices into the container (docker run --device=/dev/infiniband/uverbs0 … for each, or request vpc.amazonaws.com/efa in the pod's resources)",
		"dmesg | grep -i efa; cat /opt/amazon/efa_installed_packages for the EFA software versions",
		"rerun with FI_LOG_LEVEL=warn NCCL_DEBUG=INFO for libfabric's own reason",
	}
}

// ofiHint reads a failed libfabric call of the aws-ofi-nccl plugin.
func ofiHint(call, errText string) string {
	if call == "fi_getinfo" {
		return "libfabric found no provider that offers what aws-ofi-nccl asks for (No data available is FI_ENODATA): the EFA devices are not visible where the job runs (a container or pod without them, the efa module not loaded) or the libfabric in the image is too old for them; the plugin does not start, so NCCL has no EFA network and falls back to sockets or aborts"
	}
	e := strings.ToLower(errText)
	if strings.Contains(e, "cannot allocate memory") || strings.Contains(e, "no space") {
		return "the device or host ran out of resources for the plugin's " + call + ": too many processes or communicators per device, or memlock too low"
	}
	return "libfabric refused the plugin's " + call + ": the plugin cannot open its endpoints, so the job hangs or aborts; a device out of resources (dmesg shows the efa driver's failed command) or a libfabric that does not match the plugin or the kernel driver"
}

// ofiInitSkipped turns the libfabric.provider_unavailable of fi_getinfo into a
// warning when every host that printed it shows NCCL using its own IB
// transport: the OFI plugin, shipped in many containers, found no
// libfabric provider (no EFA on an InfiniBand cluster) and NCCL went on
// without it. It stays critical when a process of such a host says
// nothing of its network or uses sockets.
func (c *logCheck) ofiInitSkipped(fs []finding.Finding) {
	i := slices.IndexFunc(fs, func(f finding.Finding) bool {
		return f.ID == "libfabric.provider_unavailable" && strings.HasPrefix(f.Summary, "fi_getinfo ")
	})
	if i < 0 || len(c.socketProcs) > 0 {
		return
	}
	var hosts []string
	for _, e := range c.lg.Events {
		if e.Kind == nccllog.EventResource && e.Call == "fi_getinfo" && !slices.Contains(hosts, e.Host) {
			hosts = append(hosts, e.Host)
		}
	}
	for _, h := range hosts {
		n := 0
		for _, p := range c.all {
			if p.Host != h {
				continue
			}
			if net, _ := p.EffectiveNetwork(); net != "IB" || len(p.IBDevices) == 0 {
				return
			}
			n++
		}
		if n == 0 {
			return
		}
	}
	f := &fs[i]
	f.Severity = finding.Warning
	f.Summary = "aws-ofi-nccl's fi_getinfo found no libfabric provider, but NCCL uses its IB transport instead: the OFI plugin (shipped in many containers) has no EFA device to drive here; nothing to do unless the job was meant to run over EFA"
}

// efaNICs is how many EFA interfaces an EC2 instance type has, one per
// network card (AWS EC2 User Guide, "Elastic Fabric Adapter": supported
// instance types and their network cards; aws-ofi-nccl's
// topology/p4d-24xl-topo.xml and p4de-24xl-topo.xml list 4 EFA PCI
// functions). aws-ofi-nccl's 2020 releases name a p4d.24xlarge "P4d".
var efaNICs = map[string]int{
	"p4d.24xlarge":   4,
	"P4d":            4,
	"p4de.24xlarge":  4,
	"p5.48xlarge":    32,
	"p5e.48xlarge":   32,
	"p5en.48xlarge":  16,
	"trn1.32xlarge":  8,
	"trn1n.32xlarge": 16,
}

// checkOFIFewNICs reports hosts where aws-ofi-nccl's libfabric provider
// found fewer NICs ("Selected provider is efa, fabric is efa (found 1
// nics)") than the instance type it names ("Running on p4d.24xlarge
// platform") has EFA interfaces: NCCL spreads its inter-node traffic
// over the NICs it finds, so the node gets that fraction of its network
// bandwidth. Judged only where the log names the instance type.
func (c *logCheck) checkOFIFewNICs() {
	type short struct {
		p, plat *nccllog.Proc
		want    int
	}
	var found []short
	var hosts []string
	for _, p := range c.all {
		if p.OFINICs == 0 || p.OFIProvider == "" || nccllog.SocketProvider(p.OFIProvider) {
			continue
		}
		// The platform line of any process of the same host and log.
		i := slices.IndexFunc(c.all, func(q *nccllog.Proc) bool {
			return q.OFIPlatform != "" && q.Host == p.Host && q.Source == p.Source
		})
		if i < 0 {
			continue
		}
		plat := c.all[i]
		want := efaNICs[plat.OFIPlatform]
		if want == 0 || p.OFINICs >= want {
			continue
		}
		found = append(found, short{p, plat, want})
		if !slices.Contains(hosts, p.Host) {
			hosts = append(hosts, p.Host)
		}
	}
	if len(found) == 0 {
		return
	}
	s := found[0]
	var procs []*nccllog.Proc
	for _, x := range found {
		procs = append(procs, x.p)
	}
	where := ""
	if len(hosts) > 0 && hosts[0] != "" {
		where = " on " + strings.Join(firstN(hosts, 4), ", ")
	}
	sum := fmt.Sprintf("aws-ofi-nccl's %s provider found %d NIC(s)%s, but a %s has %d EFA interfaces: NCCL spreads its inter-node traffic over the NICs it finds, so this node gets about %d/%d of its network bandwidth (the instance was launched, or the container given, fewer EFA devices than the instance type has)",
		s.p.OFIProvider, s.p.OFINICs, where, s.plat.OFIPlatform, s.want, s.p.OFINICs, s.want)
	evs := []finding.Evidence{
		{Source: evidenceAt(s.p.Source, s.p.OFIProviderLine), Value: s.p.Name() + ": found " + fmt.Sprint(s.p.OFINICs) + " nics, provider " + s.p.OFIProvider},
		{Source: evidenceAt(s.plat.Source, s.plat.OFIPlatformLine), Value: s.plat.Name() + ": Running on " + s.plat.OFIPlatform + " platform"},
	}
	if one := c.oneNode(procs); one != "" {
		c.a.Notes = append(c.a.Notes, fmt.Sprintf("%s:%d: aws-ofi-nccl found %d of a %s's %d EFA NICs, but the job runs on one node (%s): no traffic crosses the network; a multi-node run would get about %d/%d of the node's network bandwidth",
			s.p.Source, s.p.OFIProviderLine, s.p.OFINICs, s.plat.OFIPlatform, s.want, one, s.p.OFINICs, s.want))
		return
	}
	c.a.Findings = append(c.a.Findings, catalog.New("nccl.efa_nics_missing", c.subj, sum, evs...))
}
