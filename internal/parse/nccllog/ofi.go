package nccllog

import (
	"strconv"
	"strings"
)

// ofiPrefix starts every message of the aws-ofi-nccl net plugin: its
// NCCL_OFI_WARN and NCCL_OFI_INFO macros (include/nccl_ofi_log.h) hand
// NCCL's logger "NET/OFI " fmt.
const ofiPrefix = "NET/OFI "

// noOptimalProvider is aws-ofi-nccl 1.x's warning that libfabric offers
// no provider for its endpoints (find_ofi_provider, src/nccl_ofi_net.c).
const noOptimalProvider = "Couldn't find any optimal provider"

// ofiCalls names the libfabric call behind each "Couldn't … . RC: %d,
// ERROR: %s" warning of aws-ofi-nccl (src/nccl_ofi_net.cpp,
// src/nccl_ofi_ofiutils.cpp, src/nccl_ofi_rdma.cpp,
// src/nccl_ofi_sendrecv.cpp; create_nccl_ofi_component in
// src/nccl_ofi_net.c of the 2019 releases).
var ofiCalls = []struct{ what, call string }{
	{"open a fabric provider", "fi_fabric"},
	{"open a fabric access domain", "fi_domain"},
	{"allocate endpoint", "fi_endpoint"},
	{"bind EP-CQ", "fi_ep_bind"},
	{"bind EP-AV", "fi_ep_bind"},
	{"enable endpoint", "fi_enable"},
	{"open AV", "fi_av_open"},
	{"open CQ", "fi_cq_open"},
	{"create fabric", "fi_fabric"},
	{"create domain", "fi_domain"},
	{"create completion queue", "fi_cq_open"},
	{"register memory region", "fi_mr_regattr"},
}

// ofiWarn reads a WARN of aws-ofi-nccl that ibdoctor judges:
//
//   - "NET/OFI OFI fi_getinfo() call failed: No data available"
//     (nccl_net_ofi_rdma_init, nccl_net_ofi_sendrecv_init): libfabric
//     found no provider that fits, so the plugin does not start. An
//     EventResource, Call "fi_getinfo", Error the fi_strerror text.
//   - "NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument" and
//     its siblings for the fabric, domain, endpoint, CQ (see ofiCalls):
//     an EventResource, Call the libfabric call, Error its text.
//   - a completion error read from the CQ (ofi_process_cq of 1.x:
//     "Request 0x7fbb944701b8 completed with error. RC: 20. Error:
//     unknown error. Completed length: 0, …"; Platform::log_cq_error of
//     later releases: "Request %p (%s) completed with error: err: %d,
//     flags: %ld, prov_errno: %d, strerror: %s, len: %ld"; the RDMA
//     protocol's "Remote write completed with error. RC: %d. Flags: %ld.
//     Error: %d (%s). …"): an EventCompletion with Net "OFI", RC the
//     libfabric error number (fi_cq_err_entry.err, an errno) and Error
//     the provider's text.
//
// Lines without the plugin's prefix are answered at once.
func ofiWarn(msg string) (Event, bool) {
	rest, ok := strings.CutPrefix(msg, ofiPrefix)
	if !ok {
		return Event{}, false
	}
	if e, ok := strings.CutPrefix(rest, "OFI fi_getinfo() call failed: "); ok {
		return Event{Kind: EventResource, Net: "OFI", Call: "fi_getinfo", Error: strings.TrimSpace(e), Rank: -1}, true
	}
	if strings.HasPrefix(rest, noOptimalProvider) {
		// find_ofi_provider of the 1.x releases (src/nccl_ofi_net.c)
		// warns so when fi_getinfo returned -FI_ENODATA both for the
		// GPUDirect hints and for the plain ones: the same failure as
		// the later "OFI fi_getinfo() call failed: No data available".
		return Event{Kind: EventResource, Net: "OFI", Call: "fi_getinfo", Error: "No data available", Rank: -1}, true
	}
	if what, ok := strings.CutPrefix(rest, "Couldn't "); ok {
		what, tail, ok := strings.Cut(what, ". RC: ")
		if !ok {
			return Event{}, false
		}
		call := ""
		for _, c := range ofiCalls {
			if strings.HasPrefix(what, c.what) {
				call = c.call
				break
			}
		}
		if call == "" {
			return Event{}, false
		}
		ev := Event{Kind: EventResource, Net: "OFI", Call: call, Rank: -1}
		if _, e, ok := strings.Cut(tail, ", ERROR: "); ok {
			ev.Error = strings.TrimSpace(e)
		}
		ev.RC, _ = leadingInt(tail)
		return ev, true
	}
	i := strings.Index(rest, "completed with error")
	if i < 0 {
		return Event{}, false
	}
	ev := Event{Kind: EventCompletion, Net: "OFI", Rank: -1}
	after := rest[i+len("completed with error"):]
	switch {
	case strings.HasPrefix(after, ". RC: "):
		ev.RC, _ = leadingInt(after[len(". RC: "):])
	case strings.HasPrefix(after, ": err: "):
		ev.RC, _ = leadingInt(after[len(": err: "):])
	}
	for _, k := range []struct{ from, to string }{{"strerror: ", ", len: "}, {". Error: ", ". Completed length"}} {
		if _, e, ok := strings.Cut(after, k.from); ok {
			if j := strings.Index(e, k.to); j >= 0 {
				e = e[:j]
			}
			ev.Error = strings.TrimSpace(e)
			break
		}
	}
	if strings.Contains(after, "direction: SEND") {
		ev.Req = "SEND"
	} else if strings.Contains(after, "direction: RECV") {
		ev.Req = "RECV"
	}
	return ev, true
}

// leadingInt reads the (signed) decimal number s starts with.
func leadingInt(s string) (int, bool) {
	end := 0
	if end < len(s) && s[end] == '-' {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(s[:end])
	return n, err == nil
}

// ofiTestLine reads a line of the logger of aws-ofi-nccl's own test
// programs (tests/test-common.h of its 2019-2020 releases: printf
// "WARN: Function: %s Line: %d: " then the message, "INFO: …" and
// "TRACE: …" alike): "WARN: Function: create_nccl_ofi_component Line:
// 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument".
// Level is WARN, INFO or TRACE, msg the message ("NET/OFI …"). Only the
// plugin's messages are read. A test started on several hosts by mpirun
// through a pdsh-like runner carries that runner's "HOST: " label
// ("10.3.35.83: WARN: Function: find_ofi_provider Line: 543: NET/OFI
// Couldn't find any optimal provider", aws/aws-ofi-nccl#67): it is
// skipped.
func ofiTestLine(line string) (level, msg string, ok bool) {
	t := strings.TrimLeft(line, " \t")
	if i := strings.Index(t, ": "); i > 0 && !strings.ContainsAny(t[:i], " \t") {
		r := t[i+2:]
		for _, lv := range []string{"WARN", "INFO", "TRACE"} {
			if strings.HasPrefix(r, lv+": Function: ") {
				t = r
				break
			}
		}
	}
	for _, lv := range []string{"WARN", "INFO", "TRACE"} {
		rest, found := strings.CutPrefix(t, lv)
		if !found {
			continue
		}
		rest, found = strings.CutPrefix(rest, ": Function: ")
		if !found {
			return "", "", false
		}
		_, rest, found = strings.Cut(rest, " Line: ")
		if !found {
			return "", "", false
		}
		_, rest, found = strings.Cut(rest, ": ")
		if !found || !strings.HasPrefix(rest, ofiPrefix) {
			return "", "", false
		}
		return lv, strings.TrimSpace(rest), true
	}
	return "", "", false
}

// OFITestLine says whether line is a WARN or INFO line of aws-ofi-nccl's
// test programs (see ofiTestLine): a line of an NCCL net plugin's log.
func OFITestLine(line string) bool {
	lv, _, ok := ofiTestLine(line)
	return ok && lv != "TRACE"
}

// ofiProvider returns the libfabric provider of aws-ofi-nccl's "NET/OFI
// Selected Provider is %s" (v1.x src/nccl_ofi_net.c, the provider's
// fabric_attr->prov_name; later releases "Selected provider is %s,
// fabric is %s (found %d nics)"), "" for another line.
func ofiProvider(msg string) string {
	rest, ok := strings.CutPrefix(msg, ofiPrefix)
	if !ok || len(rest) < len("Selected provider is ") || !strings.EqualFold(rest[:len("Selected provider is ")], "Selected provider is ") {
		return ""
	}
	prov := rest[len("Selected provider is "):]
	if i := strings.IndexAny(prov, ", ("); i >= 0 {
		prov = prov[:i]
	}
	return prov
}

// ofiNICs returns N of "(found N nics)" at the end of aws-ofi-nccl's
// "Selected provider is efa, fabric is efa (found 4 nics)" (src/
// nccl_ofi_net.cpp nccl_net_ofi_query_provider_capabilities; 2023
// releases "Selected Provider is efa (found 4 nics)"), 0 without it.
func ofiNICs(msg string) int {
	_, rest, ok := strings.Cut(msg, "(found ")
	if !ok {
		return 0
	}
	num, after := digits(rest)
	if !strings.HasPrefix(after, " nic") {
		return 0
	}
	k, err := strconv.Atoi(num)
	if err != nil {
		return 0
	}
	return k
}

// ofiPlatform returns the instance type of aws-ofi-nccl's "NET/OFI
// Running on p4d.24xlarge platform, topology file …" (also "…, Setting
// NCCL_TOPO_FILE environment variable to …" and "…, NCCL_TOPO_FILE
// environment variable is already set to …"; src/platform-aws.cpp, the
// product name from DMI), "" for another line.
func ofiPlatform(msg string) string {
	rest, ok := strings.CutPrefix(msg, ofiPrefix)
	if !ok {
		return ""
	}
	rest, ok = strings.CutPrefix(rest, "Running on ")
	if !ok {
		return ""
	}
	name, tail, ok := strings.Cut(rest, " ")
	if !ok || !strings.HasPrefix(tail, "platform") || name == "" {
		return ""
	}
	return name
}

// SocketProvider says whether a libfabric provider (as aws-ofi-nccl
// names it) carries its messages over the host's IP stack rather than a
// fabric NIC: the tcp, sockets and udp core providers, alone or under
// the ofi_rxm/ofi_rxd utility providers ("tcp;ofi_rxm").
func SocketProvider(prov string) bool {
	core, _, _ := strings.Cut(prov, ";")
	switch strings.ToLower(core) {
	case "tcp", "sockets", "udp", "net":
		return true
	}
	return false
}
