package wclog

import (
	"strconv"
	"strings"
)

// SourceHCCL is Huawei's collective library on Ascend NPUs.
const SourceHCCL Source = "HCCL"

// hcclRoCECQE is the name HCCL gives an error completion on an NPU's
// RoCE NIC (error code EI0013 of CANN's HCCL error codes).
const hcclRoCECQE = "_ROCE_CQE("

// hcclLine reads HCCL's report of an error CQE on the RoCE NIC of an
// Ascend NPU, as PyTorch's watchdog re-raises it (torch_npu's
// ProcessGroupHCCL, worded as ProcessGroupNCCL's "watchdog thread
// terminated with exception"): "[rank11]:[E313 06:55:06.502248200
// compiler_depend.ts:1693] [Rank 1] HCCL watchdog thread terminated with
// exception: [PID: 335] 2026-03-13-06:55:06.896.485
// Execution_Error_ROCE_CQE(EI0013): An error CQE occurred during operator
// execution. Local information: server xx.xx.xx.199, device ID 3, device
// IP 10.20.13.9. Peer information: server xx.xx.xx.195, device ID 3,
// device IP 10.20.13.5." HCCL prints no ibv_wc_status: Status stays -1.
// Lines without "_ROCE_CQE(" are refused by one substring test.
func hcclLine(l string) (Error, bool) {
	i := strings.Index(l, hcclRoCECQE)
	if i < 0 {
		return Error{}, false
	}
	// The error's name runs back to a blank ("Execution_Error_ROCE_CQE"),
	// its code to the closing parenthesis ("EI0013").
	start := strings.LastIndexAny(l[:i], " \t:]") + 1
	end := strings.IndexByte(l[i:], ')')
	if end < 0 || !strings.Contains(l[start:i], "Error") {
		return Error{}, false
	}
	e := Error{Text: l, Source: SourceHCCL, Status: -1, Rank: -1, GroupRank: -1}
	e.What = l[start : i+end+1]
	if rest, ok := strings.CutPrefix(l[i+end+1:], ": "); ok {
		if j := strings.Index(rest, ". "); j > 0 {
			rest = rest[:j]
		}
		e.What += ": " + strings.TrimSpace(rest)
	}
	if loc, ok := hcclSide(l, "Local information:"); ok {
		e.LocalNIC, e.LocalIP = loc.device, loc.ip
		e.Host = loc.server
	}
	if peer, ok := hcclSide(l, "Peer information:"); ok {
		e.PeerNIC, e.Peer = peer.device, peer.ip
		e.PeerHost = peer.server
	}
	e.Rank = taggedRank(l, "[rank", "]")
	e.GroupRank = taggedRank(l, "[Rank ", "]")
	return e, true
}

type hcclEnd struct{ server, device, ip string }

// hcclSide reads "server S, device ID D, device IP A." after head: the
// NPU is named "NPU D".
func hcclSide(l, head string) (hcclEnd, bool) {
	_, rest, ok := strings.Cut(l, head)
	if !ok {
		return hcclEnd{}, false
	}
	if j := strings.Index(rest, "information:"); j >= 0 {
		rest = rest[:j]
	}
	var out hcclEnd
	for _, f := range strings.Split(rest, ",") {
		f = strings.TrimSpace(f)
		f = strings.TrimSuffix(f, ".")
		switch {
		case strings.HasPrefix(f, "server "):
			out.server = strings.TrimSpace(f[len("server "):])
		case strings.HasPrefix(f, "device ID "):
			out.device = "NPU " + strings.TrimSpace(f[len("device ID "):])
		case strings.HasPrefix(f, "device IP "):
			ip := strings.TrimSpace(f[len("device IP "):])
			if k := strings.IndexAny(ip, " "); k > 0 {
				ip = ip[:k]
			}
			out.ip = strings.TrimSuffix(ip, ".")
		}
	}
	return out, out.device != "" || out.ip != ""
}

// taggedRank reads the number right after open and before close
// ("[rank11]:" is PyTorch's global rank, "[Rank 1]" the rank in the
// process group); -1 when absent.
func taggedRank(l, open, close string) int {
	i := strings.Index(l, open)
	if i < 0 {
		return -1
	}
	rest := l[i+len(open):]
	j := strings.Index(rest, close)
	if j <= 0 {
		return -1
	}
	n, err := strconv.Atoi(rest[:j])
	if err != nil || n < 0 {
		return -1
	}
	return n
}
