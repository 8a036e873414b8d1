package verbs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckTransports judges an application's lines that its RDMA transport
// could not start: one rdma.transport_unavailable, critical when a line
// says the transport as a whole did not start (no device left), a
// warning when only devices were refused. The devices and GID indexes
// the lines name go into the summary and the remedy.
func CheckTransports(source string, ts []wclog.Transport) []finding.Finding {
	if len(ts) == 0 {
		return nil
	}
	var devs, gids, fatal, noNetdev []string
	for _, t := range ts {
		if t.NoNetdev {
			noNetdev = append(noNetdev, fmt.Sprintf("GID index %s on %s has no network device (a RoCE GID entry without an address)", t.GID, t.Device))
		}
		if t.Device != "" && !slices.Contains(devs, t.Device) {
			devs = append(devs, t.Device)
		}
		if t.GID != "" && !slices.Contains(gids, t.GID) {
			gids = append(gids, t.GID)
		}
		if t.Fatal {
			fatal = append(fatal, t.Text)
		}
	}
	var sum string
	switch {
	case slices.ContainsFunc(fatal, func(l string) bool { return strings.Contains(l, "rdma_create_event_channel") }):
		sum = "the application's RDMA transport could not start: librdmacm could not create its event channel (rdma_create_event_channel opens /dev/infiniband/rdma_cm, which exists only with the rdma_ucm module loaded and, in a container, the device passed in)"
	case slices.ContainsFunc(fatal, func(l string) bool { return strings.Contains(l, "] Fail to create ") }):
		sum = "the application's RDMA transport could not start: brpc could not create an RDMA resource of its endpoint (completion channel, completion queue or queue pair)"
		if slices.ContainsFunc(fatal, func(l string) bool { return strings.Contains(l, "Too many open files") }) {
			sum += "; EMFILE (Too many open files): every completion channel is a file descriptor, and the process reached its open-files limit (the limit of the process as started, such as a systemd unit's LimitNOFILE, not the one of an interactive shell)"
		}
	case len(fatal) > 0 && len(devs) > 0:
		sum = fmt.Sprintf("the application's RDMA transport could not start: RDMA device %s could not be opened", strings.Join(devs, ", "))
	case len(fatal) > 0:
		sum = "the application's RDMA transport could not start: no RDMA device was usable"
	case slices.ContainsFunc(ts, func(t wclog.Transport) bool { return !t.NoNetdev }):
		sum = fmt.Sprintf("the application could not open RDMA device %s and left it out of its transport", strings.Join(devs, ", "))
	default:
		sum = "the application uses a GID index that may not work"
	}
	for _, t := range ts {
		if t.Resource != "" {
			sum += fmt.Sprintf(" (it could not create a completion queue: %s)", t.Resource)
			break
		}
	}
	if len(gids) > 0 && len(noNetdev) == 0 {
		sum += fmt.Sprintf(" with GID index %s", strings.Join(gids, ", "))
	}
	if len(noNetdev) > 0 {
		sum += ": " + strings.Join(noNetdev, "; ")
	}
	if len(fatal) > 0 {
		sum += fmt.Sprintf(" (%q): it runs without RDMA or not at all", strings.TrimSpace(lastWords(fatal[len(fatal)-1])))
	}
	subj := finding.Subject{File: source}
	if len(devs) > 0 {
		subj.Device = devs[0]
	}
	// The first lines, and the last that says the transport is down.
	quote := ts
	if len(quote) > maxEvidence {
		quote = slices.Clone(ts[:maxEvidence-1])
		last := ts[len(ts)-1]
		for _, t := range ts[maxEvidence-1:] {
			if t.Fatal {
				last = t
			}
		}
		quote = append(quote, last)
	}
	var ev []finding.Evidence
	for _, t := range quote {
		ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", source, t.Line), Value: t.Text})
	}
	f := catalog.New("rdma.transport_unavailable", subj, sum, ev...)
	if len(fatal) == 0 {
		f.Severity = finding.Warning
	}
	if len(devs) > 0 {
		// The device named, so the commands can be pasted.
		gid := "the GID index it uses"
		if len(gids) > 0 {
			gid = "GID index " + gids[0]
		}
		f.Remedy = append([]string{fmt.Sprintf("ibv_devinfo -v -d %s in the same container or pod as the application: the device must be listed, its port PORT_ACTIVE, and %s filled in (show_gids, or rdma link show and ibdev2netdev, give the index of the RoCE v2 entry with the port's IP address)", devs[0], gid)}, f.Remedy[1:]...)
	}
	return []finding.Finding{f}
}

// lastWords is a line's message after its log prefix: what follows the
// last "] " of glog ("E0115 … rdma_transport.cpp:106] RdmaTransport:
// cannot initialize RDMA resources") or SPDK's "*ERROR*: ".
func lastWords(l string) string {
	if _, m, ok := strings.Cut(l, "*ERROR*: "); ok {
		return m
	}
	if i := strings.LastIndex(l, "] "); i >= 0 {
		return l[i+2:]
	}
	return l
}
