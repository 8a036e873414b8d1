package analyze

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// gidRow is one entry of an `ibv_devinfo -v` GID table pasted in the
// file ("GID[  2]:		::ffff:10.0.0.151, RoCE v2", the value perhaps
// wrapped onto the next line).
type gidRow struct {
	line int
	addr netip.Addr
	text string // the value as printed
	typ  string // "RoCE v2", "RoCE v1", "" when not printed
}

// pastedGIDs reads every "GID[ N]:" row of the file.
func pastedGIDs(d *doc) map[int]gidRow {
	out := map[int]gidRow{}
	for n := 1; n <= d.end(); n++ {
		t := strings.TrimSpace(d.line(n))
		rest, ok := strings.CutPrefix(t, "GID[")
		if !ok {
			continue
		}
		is, v, ok := strings.Cut(rest, "]:")
		if !ok {
			continue
		}
		idx, err := strconv.Atoi(strings.TrimSpace(is))
		if err != nil || idx < 0 {
			continue
		}
		at := n
		v = strings.TrimSpace(v)
		if v == "" && n < d.end() {
			at = n + 1 // the value wrapped onto the next line
			v = strings.TrimSpace(d.line(at))
		}
		g, typ, _ := strings.Cut(v, ",")
		a, err := netip.ParseAddr(strings.TrimSpace(g))
		if err != nil {
			continue
		}
		if _, seen := out[idx]; !seen {
			out[idx] = gidRow{line: at, addr: a, text: v, typ: strings.TrimSpace(typ)}
		}
	}
	return out
}

// pingpongGIDIndex returns the GID index a pingpong command of the file
// names ("ibv_rc_pingpong -d rxe0 -g 0", "--gid-idx=3"; the command
// perhaps wrapped onto the next line) and the line, ok false when none
// or when the commands name different indexes.
func pingpongGIDIndex(d *doc) (int, int, bool) {
	idx, at := -1, 0
	for n := 1; n <= d.end(); n++ {
		l := d.line(n)
		if !strings.Contains(l, "_pingpong") {
			continue
		}
		w := strings.Fields(l[strings.Index(l, "_pingpong"):])
		if n < d.end() {
			w = append(w, strings.Fields(d.line(n+1))...)
		}
		for i, f := range w {
			v := ""
			switch {
			case (f == "-g" || f == "--gid-idx") && i+1 < len(w):
				v = w[i+1]
			case strings.HasPrefix(f, "--gid-idx="):
				v = strings.TrimPrefix(f, "--gid-idx=")
			default:
				continue
			}
			g, err := strconv.Atoi(strings.Trim(v, "\"'.,"))
			if err != nil || g < 0 {
				continue
			}
			if idx >= 0 && g != idx {
				return 0, 0, false
			}
			if idx < 0 {
				idx, at = g, n
			}
			break
		}
	}
	return idx, at, idx >= 0
}

// wrongGIDIndex turns a queue pair that could not reach RTR into a
// warning when the paste shows why: the pingpong command used a GID index
// whose entry is the link-local fe80:: GID, while the same GID table
// holds a RoCE v2 entry with the port's IPv4 address. RoCE v2 routes by
// the GID's IP address, and a link-local address does not resolve to the
// peer; the index is a wrong choice, not a broken setup (rdma-core's
// ibv_rc_pingpong(1): "-g, --gid-idx: local port gid index").
func wrongGIDIndex(file string, d *doc, fs []finding.Finding) {
	has := false
	for _, f := range fs {
		if f.ID == "verbs.qp_setup_failed" {
			has = true
		}
	}
	if !has {
		return
	}
	used, cmdLine, ok := pingpongGIDIndex(d)
	if !ok {
		return
	}
	gids := pastedGIDs(d)
	u, ok := gids[used]
	if !ok || !u.addr.IsLinkLocalUnicast() {
		return
	}
	best := -1
	for i, g := range gids {
		if g.addr.Is4In6() && strings.EqualFold(g.typ, "RoCE v2") && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	b := gids[best]
	for i := range fs {
		f := &fs[i]
		if f.ID != "verbs.qp_setup_failed" {
			continue
		}
		f.Severity = finding.Warning
		why := ""
		if inet6, ok := pastedInet6(d); ok && !inet6[u.addr] {
			why = " and not an address of the interface (the ip addr in the paste does not list it)"
		}
		f.Summary += fmt.Sprintf("; the command used GID index %d, the link-local GID %s%s, while index %d holds the port's IPv4 address (%s): the peer is resolved through the GID's IP address, so use the IPv4 RoCE v2 entry: rerun with -g %d on both ends; a wrong GID index, not a broken setup",
			used, u.addr, why, best, b.text, best)
		f.Evidence = append(f.Evidence,
			finding.Evidence{Source: fmt.Sprintf("%s:%d", file, cmdLine), Value: strings.TrimSpace(d.line(cmdLine))},
			finding.Evidence{Source: fmt.Sprintf("%s:%d", file, u.line), Value: fmt.Sprintf("GID[%d]: %s", used, u.text)},
			finding.Evidence{Source: fmt.Sprintf("%s:%d", file, b.line), Value: fmt.Sprintf("GID[%d]: %s", best, b.text)})
	}
}

// pastedInet6 reads the IPv6 addresses of `ip addr` lines ("inet6
// fe80::9bd3:885:53df:9fc4/64 scope link"), ok false when the paste has
// none.
func pastedInet6(d *doc) (map[netip.Addr]bool, bool) {
	out := map[netip.Addr]bool{}
	for n := 1; n <= d.end(); n++ {
		f := strings.Fields(d.line(n))
		if len(f) < 2 || f[0] != "inet6" {
			continue
		}
		if p, err := netip.ParsePrefix(f[1]); err == nil {
			out[p.Addr()] = true
		}
	}
	return out, len(out) > 0
}
