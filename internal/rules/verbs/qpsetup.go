package verbs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// errnoNames are the names of the error numbers ibv_modify_qp returns
// (Linux asm-generic/errno-base.h and errno.h).
var errnoNames = map[int]string{
	1: "EPERM", 2: "ENOENT", 11: "EAGAIN", 12: "ENOMEM", 19: "ENODEV", 22: "EINVAL",
	61: "ENODATA", 95: "EOPNOTSUPP", 101: "ENETUNREACH", 110: "ETIMEDOUT", 113: "EHOSTUNREACH",
}

// errnoKeys start the catalogue's lines written for one error number;
// otherKey those for the numbers none of them names.
var errnoKeys = map[int]string{
	110: "ETIMEDOUT (110): ", 22: "EINVAL (22): ",
	101: "ENETUNREACH (101), EHOSTUNREACH (113): ", 113: "ENETUNREACH (101), EHOSTUNREACH (113): ",
}

const otherKey = "other error numbers: "

// causeKeys are every key a catalog line may start with.
var causeKeys = []string{"ETIMEDOUT (110): ", "EINVAL (22): ", "ENETUNREACH (101), EHOSTUNREACH (113): ", otherKey}

// forErrnos keeps, of a catalog list, the lines for every error and
// those written for the error numbers seen, dropping the others; with no
// number seen it keeps them all.
func forErrnos(lines []string, errnos []int) []string {
	if len(errnos) == 0 {
		return lines
	}
	want := map[string]bool{}
	for _, e := range errnos {
		if k, ok := errnoKeys[e]; ok {
			want[k] = true
		} else {
			want[otherKey] = true
		}
	}
	var out []string
	for _, l := range lines {
		keyed, keep := false, false
		for _, k := range causeKeys {
			if strings.HasPrefix(l, k) {
				keyed = true
				keep = keep || want[k]
			}
		}
		if !keyed || keep {
			out = append(out, l)
		}
	}
	return out
}

// errnoWords is "ETIMEDOUT (110, Connection timed out)", or the number
// alone when it has no name here.
func errnoWords(n int, text string) string {
	name := errnoNames[n]
	switch {
	case name != "" && text != "":
		return fmt.Sprintf("%s (%d, %s)", name, n, text)
	case name != "":
		return fmt.Sprintf("%s (%d)", name, n)
	case text != "":
		return fmt.Sprintf("error %d (%s)", n, text)
	}
	return fmt.Sprintf("error %d", n)
}

// CheckQPSetups judges an application's lines that a queue pair could
// not be moved to INIT, RTR or RTS: one verbs.qp_setup_failed, critical
// (that connection never came up), naming the states, the error numbers
// and the devices, with the causes and remedies of the numbers seen.
func CheckQPSetups(source string, qs []wclog.QPSetup) []finding.Finding {
	if len(qs) == 0 {
		return nil
	}
	var states, devs, errs []string
	var errnos []int
	var stalled []wclog.QPSetup
	for _, q := range qs {
		if q.Stalled {
			// Reached its state; the connection still never came up.
			stalled = append(stalled, q)
			if q.Device != "" && !slices.Contains(devs, q.Device) {
				devs = append(devs, q.Device)
			}
			continue
		}
		if q.State != "" && !slices.Contains(states, q.State) {
			states = append(states, q.State)
		}
		if q.Device != "" && !slices.Contains(devs, q.Device) {
			devs = append(devs, q.Device)
		}
		if q.Errno > 0 && !slices.Contains(errnos, q.Errno) {
			errnos = append(errnos, q.Errno)
			errs = append(errs, errnoWords(q.Errno, q.Err))
		} else if q.Errno == 0 && q.Err != "" && !slices.Contains(errs, q.Err) {
			errs = append(errs, q.Err)
		}
	}
	to := "to its next state"
	if len(states) > 0 {
		var named []string
		for _, st := range states {
			named = append(named, stateWords(st))
		}
		to = "to " + strings.Join(named, " and ")
	}
	moved := len(qs) - len(stalled)
	sum := fmt.Sprintf("%s of the application's log say it could not bring its queue pairs %s", plural(moved, "line", "lines"), to)
	if moved == 1 {
		sum = fmt.Sprintf("the application's log says it could not bring a queue pair %s", to)
	}
	if moved > 0 {
		if len(devs) > 0 {
			sum += " on " + strings.Join(devs, ", ")
		}
		if len(errs) > 0 {
			sum += ", failing with " + strings.Join(errs, ", ")
		}
		sum += ": those RDMA connections never came up"
		switch {
		case slices.Contains(errnos, 110):
			sum += "; ETIMEDOUT there is RoCE's address resolution: the peer's GID (an IP address) got no ARP or neighbour answer from the network device of the GID index used"
		case slices.Contains(errnos, 22):
			sum += "; EINVAL there is an attribute the port rejects: a GID index with no entry, a path MTU above the active MTU, or the port not ACTIVE"
		case slices.Contains(errnos, 101) || slices.Contains(errnos, 113):
			sum += "; the host has no route to the peer's address from the GID's network device"
		}
	}
	if len(stalled) > 0 {
		st := stalledWords(stalled)
		if moved > 0 {
			sum += "; " + st
		} else {
			sum = st
		}
	}
	noAddr := roceNoAddr(stalled)
	if noAddr != "" {
		sum += fmt.Sprintf("; port %s is RoCE (link layer Ethernet) and the application lists no IP address on its network device (ifaddrs []): without one the port has no RoCE v2 GID holding an address, so RoCE v2 traffic from the peer cannot reach it", noAddr)
	}
	subj := finding.Subject{File: source}
	if len(devs) > 0 {
		subj.Device = devs[0]
	}
	var ev []finding.Evidence
	for _, q := range qs[:min(len(qs), maxEvidence)] {
		ev = append(ev, lineEvidence(source, q.Line, q.Text))
	}
	f := catalog.New("verbs.qp_setup_failed", subj, sum, ev...)
	f.Causes = forErrnos(f.Causes, errnos)
	f.Remedy = forErrnos(f.Remedy, errnos)
	if moved == 0 {
		// No ibv_modify_qp call failed: no error number's lines apply.
		f.Causes, f.Remedy = unkeyed(f.Causes), unkeyed(f.Remedy)
	}
	if len(stalled) > 0 {
		f.Causes = append([]string{"the peer's first message over the new connection never arrived: on RoCE, the local port's network device has no IP address (so no RoCE v2 GID with one), the two ends use GID indexes of different kinds, or the peer's port or process went away"}, f.Causes...)
	}
	if noAddr != "" {
		dev, port, _ := strings.Cut(noAddr, ":")
		f.Remedy = append([]string{fmt.Sprintf("rdma link show %s/%s names the port's network device; ip -br addr show dev $(ls /sys/class/infiniband/%s/device/net) must list its IPv4 address: give it one and bring it up, check that show_gids %s lists a RoCE v2 GID with that address, then restart the application, which reads the port's addresses when it starts (3FS: IBDevice::open)", dev, port, dev, dev)}, f.Remedy...)
	}
	return []finding.Finding{f}
}

// unkeyed keeps, of a catalog list, the lines written for no one error
// number.
func unkeyed(lines []string) []string {
	var out []string
	for _, l := range lines {
		keyed := strings.HasPrefix(l, otherKey)
		for _, k := range errnoKeys {
			keyed = keyed || strings.HasPrefix(l, k)
		}
		if !keyed {
			out = append(out, l)
		}
	}
	return out
}

// stalledWords is the summary of the lines whose queue pair reached its
// state but whose connection never came up (3FS's accept timeout).
func stalledWords(qs []wclog.QPSetup) string {
	var devs, peers []string
	for _, q := range qs {
		if q.Device != "" && !slices.Contains(devs, q.Device) {
			devs = append(devs, q.Device)
		}
		p := q.Peer
		if q.PeerDevice != "" {
			p += " " + q.PeerDevice
		}
		if p != "" && !slices.Contains(peers, p) {
			peers = append(peers, p)
		}
	}
	s := "the application accepted RDMA connections"
	if len(devs) > 0 {
		s += " on " + strings.Join(devs, ", ")
	}
	if len(peers) > 0 {
		s += " from " + strings.Join(peers, ", ")
	}
	return s + fmt.Sprintf(" whose peer never sent its first message (%s, an accept timeout): their queue pairs reached RTR (Ready To Receive), but those RDMA connections never came up", plural(len(qs), "line", "lines"))
}

// roceNoAddr is the first RoCE port ("mlx5_1:1") a stalled line shows
// without an IP address, "" when none.
func roceNoAddr(qs []wclog.QPSetup) string {
	for _, q := range qs {
		if q.NoAddr && q.LinkLayer == "ETHERNET" && q.Port != "" {
			port, _, _ := strings.Cut(q.Port, ",")
			return port
		}
	}
	return ""
}

// stateWords names a queue pair state for a summary.
func stateWords(st string) string {
	switch st {
	case "RTR":
		return "RTR (Ready To Receive)"
	case "RTS":
		return "RTS (Ready To Send)"
	}
	return st
}
