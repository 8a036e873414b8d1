package nccl

import (
	"fmt"
	"net/netip"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// emptyGIDIndex reports whether e is a failed verbs call whose local GID,
// as NCCL read it at the source GID index of the QP (misc/ibvwrap.cc,
// ibvModifyQpLog: wrap_ibv_query_gid, printed by inet_ntop), is all
// zeros: that slot of the port's GID table is empty. The kernel finds no
// GID there when it resolves the address for the RTR transition and
// fails with ENODATA (drivers/infiniband/core/cache.c,
// rdma_get_gid_attr; EINVAL before "RDMA/core: Change
// rdma_get_gid_attr returned error code", Linux 5.10): the GID, not the
// errno, says the slot is empty. RoCE GIDs come from the netdev's addresses, so the
// slot an IP's GID sits in can move when the addresses are re-added.
func emptyGIDIndex(e nccllog.Event) bool {
	if e.Kind != nccllog.EventResource || e.LocalGID == "" {
		return false
	}
	a, err := netip.ParseAddr(e.LocalGID)
	return err == nil && a.IsUnspecified()
}

// gidIndexFindings turns failed QP transitions on an empty GID slot into
// nccl.gid_index_wrong, one per host, device, port and index: the GID
// index NCCL used (NCCL_IB_GID_INDEX, or its own pick before the table
// changed) names no GID, and no connection over that port can come up.
// resourceFindings leaves these events out: one cause, one finding.
func gidIndexFindings(lg *nccllog.Log, subj finding.Subject, at func(string, int) string) []finding.Finding {
	type key struct {
		host, dev string
		port, idx int
	}
	groups := map[key][]nccllog.Event{}
	var order []key
	for _, e := range lg.Events {
		if !emptyGIDIndex(e) {
			continue
		}
		k := key{e.Host, e.HCA, e.Port, e.GIDIndex}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], e)
	}
	var fs []finding.Finding
	for _, k := range order {
		evs := groups[k]
		first := evs[0]
		where := fmt.Sprintf("%s port %d", k.dev, k.port)
		if k.host != "" {
			where += " on " + k.host
		}
		summary := fmt.Sprintf("GID index %d of %s is empty (NCCL read GID %s there): ibv_modify_qp", k.idx, where, first.LocalGID)
		if first.CurrState != "" && first.NextState != "" {
			summary += fmt.Sprintf(" %s→%s", first.CurrState, first.NextState)
		}
		summary += fmt.Sprintf(" failed %d time(s)", weight(evs))
		if first.Error != "" {
			summary += fmt.Sprintf(" (%s)", first.Error)
		}
		if v, ok := gidIndexEnv(lg, k.host); ok {
			summary += fmt.Sprintf("; NCCL_IB_GID_INDEX=%s pins that index", v)
		}
		summary += "; no connection over that port comes up"
		f := catalog.New("nccl.gid_index_wrong", subj, summary,
			finding.Evidence{Source: at(first.Source, first.Line), Value: first.Text},
			finding.Evidence{Source: fmt.Sprintf("%s:%d GID index %d", k.dev, k.port, k.idx), Value: "local GID " + first.LocalGID})
		f.Subject.Host, f.Subject.Device, f.Subject.Port = k.host, k.dev, k.port
		f.Causes = append([]string{"the port's GID table changed (a link flap, reboot or address change re-added the IP's GIDs at other indices) while NCCL_IB_GID_INDEX stayed pinned"}, f.Causes...)
		f.Remedy = []string{
			fmt.Sprintf("show_gids %s (or: grep . /sys/class/infiniband/%s/ports/%d/gids/* /sys/class/infiniband/%s/ports/%d/gid_attrs/types/* 2>/dev/null) and set NCCL_IB_GID_INDEX to the index of the RoCE v2 GID of the port's IP address (::ffff:a.b.c.d)", k.dev, k.dev, k.port, k.dev, k.port),
			"or unset NCCL_IB_GID_INDEX so NCCL picks the RoCE v2 GID itself (NCCL_IB_ADDR_FAMILY, NCCL_IB_ROCE_VERSION_NUM steer its choice)",
			fmt.Sprintf("rdma link show %s/%d names the port's netdev: ip addr show it, since a RoCE v2 GID exists only for a configured address", k.dev, k.port),
		}
		fs = append(fs, f)
	}
	return fs
}

// gidIndexEnv is the NCCL_IB_GID_INDEX a process of host logged.
func gidIndexEnv(lg *nccllog.Log, host string) (string, bool) {
	for _, p := range lg.Procs {
		if p.Host != host {
			continue
		}
		if v, ok := p.Env["NCCL_IB_GID_INDEX"]; ok {
			return v, true
		}
	}
	return "", false
}
