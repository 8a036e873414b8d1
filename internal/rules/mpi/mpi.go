// Package mpi judges Open MPI's help messages about the network
// (internal/parse/ompihelp): transports that gave up on the RDMA device,
// processes that cannot reach each other, InfiniBand retry exhaustion.
package mpi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ompihelp"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// maxEvidence bounds the lines quoted per finding.
const maxEvidence = 4

// Check judges the help messages of a paste: one finding per message
// topic, naming the hosts and devices its messages name.
func Check(lg *ompihelp.Log) []finding.Finding {
	var fs []finding.Finding
	// Open MPI 4's stock notice: openib leaves InfiniBand ports to UCX,
	// and then reports the device it opened for nothing as an error.
	stock := lg.Has(ompihelp.PortNotSelected)
	// The TCP transport's connection errors: the processes talk over TCP.
	overTCP := lg.Has(ompihelp.TCPConnectFail) || lg.Has(ompihelp.TCPWrongPeer)
	for _, t := range topicsOf(lg) {
		ms := messages(lg, t)
		var f finding.Finding
		switch t {
		case ompihelp.UnreachableProc:
			m := ms[0]
			f = catalog.New("mpi.unreachable", subject(ms),
				fmt.Sprintf("Open MPI processes on %s and %s cannot reach each other over any transport (BTLs attempted: %s): the job aborts", or(m.Host, "one host"), or(m.Fields["Process 2 is on host"], "another"), or(m.Fields["BTLs attempted"], "not shown")))
		case ompihelp.RetryExceeded, ompihelp.RNRRetryExceeded, ompihelp.SRQRNRExceeded:
			what := "InfiniBand retry count"
			if t != ompihelp.RetryExceeded {
				what = `"receiver not ready" retry count`
			}
			f = catalog.New("mpi.transport_error", subject(ms),
				fmt.Sprintf("Open MPI's openib transport exceeded the %s %s: the peer never acknowledged over this path (a lossy or broken link, or a dead peer); the job fails", what, pairs(ms)))
		case ompihelp.CompletionError:
			if allRetry(ms) && (lg.Has(ompihelp.RetryExceeded) || lg.Has(ompihelp.RNRRetryExceeded) || lg.Has(ompihelp.SRQRNRExceeded)) {
				continue // the retry help message that follows says it, and is judged
			}
			f = catalog.New("mpi.transport_error", subject(ms),
				fmt.Sprintf("Open MPI's openib transport got a work completion in error %s: %s; the connection is in the error state and the job fails", pairs(ms), wcStatuses(ms)))
			if allFlushed(ms) {
				f.Summary = fmt.Sprintf("Open MPI's openib transport had work requests flushed %s (WORK REQUEST FLUSHED ERROR): the queue pair was already in the error state, fallout of an earlier failure or of a peer that went away; look above it for the first error", pairs(ms))
				f.Severity = finding.Warning
			}
		case ompihelp.PollError:
			m := ms[0]
			f = catalog.New("mpi.transport_error", subject(ms),
				fmt.Sprintf("Open MPI's openib transport could not poll its completion queue on %s (ibv_poll_cq returned %s, errno says %s; %d lines): it cannot reap completions, the process aborts", hosts(ms), or(m.Fields["Return"], "an error"), or(m.Fields["Errno says"], "not shown"), len(ms)))
		case ompihelp.CreateQueue:
			m := ms[0]
			f = catalog.New("mpi.rdma_not_used", subject(ms),
				fmt.Sprintf("Open MPI's openib transport failed to create an internal queue on %s (%s(): %s, at %s): it is off for this device, messages between nodes go over another transport if one is allowed. EINVAL from ibv_create_srq or ibv_create_qp is a queue size or feature the device does not support (btl_openib_receive_queues with an S queue on a device without SRQ: ibv_devinfo -v shows max_srq); EBUSY or ENOMEM is the device or the locked memory exhausted", devices(ms), or(strings.TrimSuffix(m.Fields["Function"], "()"), "a verbs call"), or(m.Fields["Error"], "no error shown"), or(m.Fields["OMPI source"], "not shown")))
		case ompihelp.ErrorEvent:
			f = catalog.New("mpi.transport_error", subject(ms),
				fmt.Sprintf("the OpenFabrics stack reported a network error event (%s) on %s: Open MPI tries to continue, but the job may fail", or(ms[0].Fields["Error number"], "no number shown"), hosts(ms)))
			f.Severity = finding.Warning
		case ompihelp.NoLockedMemory:
			m := ms[0]
			f = catalog.New("host.memlock_limited", subject(ms),
				fmt.Sprintf("Open MPI's openib transport could not allocate locked memory on %s (device %s, memlock limit %s): it is off for this job, traffic goes over another transport", hosts(ms), or(m.Device, "not shown"), or(m.Fields["Memlock limit"], "not shown")))
		case ompihelp.PortNotSelected:
			if overTCP {
				// The TCP transport's errors show who carried the traffic.
				f = catalog.New("mpi.rdma_not_used", subject(ms),
					fmt.Sprintf("Open MPI's openib transport left the ports of %s unused (Open MPI 4's notice, %s) and the TCP transport's connection errors in the same output show the processes talk over TCP: this job does not use the RDMA device. %s", devices(ms), processes(lg, t), rdmaPath(ms)))
				break
			}
			f = catalog.New("mpi.rdma_not_used", subject(ms),
				fmt.Sprintf("Open MPI 4's stock notice (%s): the openib transport leaves the InfiniBand ports of %s to UCX, by design; not a fault. The job uses RDMA only through UCX: ompi_info | grep -i ucx must list the ucx pml (without it the traffic goes over TCP); mpirun --mca btl ^openib silences these notices", processes(lg, t), devices(ms)))
			f.Severity = finding.Info
		case ompihelp.TCPConnectFail:
			f = catalog.New("mpi.unreachable", subject(ms),
				fmt.Sprintf("Open MPI's TCP transport failed to connect to a peer process%s (%s%s): the job may hang or fail. %s", onHost(ms), processes(lg, t), fieldNote(ms, "Error"), wrongPeerNote(lg)))
		case ompihelp.TCPWrongPeer:
			if lg.Has(ompihelp.TCPConnectFail) {
				continue // quoted in the connect failure's finding
			}
			f = catalog.New("mpi.unreachable", subject(ms),
				fmt.Sprintf("Open MPI's TCP transport reached the wrong process %s: the connection was closed, the job may hang. %s", wrongPeers(ms), tcpIfRemedy))
			f.Severity = finding.Warning
		case ompihelp.DeviceInitError:
			if stock {
				continue // part of the stock notice, quoted in its finding
			}
			f = catalog.New("mpi.rdma_not_used", subject(ms),
				fmt.Sprintf("Open MPI's openib transport could not initialise %s (%s): it is off for this job; messages between nodes go over another transport, if one is allowed", devices(ms), processes(lg, t)))
		case ompihelp.NoActivePorts:
			f = catalog.New("mpi.rdma_not_used", subject(ms),
				fmt.Sprintf("Open MPI found an OpenFabrics device on %s but no ACTIVE port (%s): the openib transport is off for this job, so messages between nodes have no InfiniBand path (TCP at best; one node runs on shared memory). Check the port's cable, switch port and subnet manager (ibstat%s)", hosts(ms), processes(lg, t), onHost(ms)))
		case ompihelp.NoCPCForPort:
			m := ms[0]
			f = catalog.New("mpi.rdma_not_used", subject(ms),
				fmt.Sprintf("no Open MPI connection scheme could use %s (attempted: %s): the openib transport is off for that port; over RoCE rdmacm needs an IP address on the port's netdev", devices(ms), or(m.Fields["CPCs attempted"], "not shown")))
		case ompihelp.NoDevicesOfType:
			f = catalog.New("mpi.rdma_not_used", subject(ms),
				fmt.Sprintf("Open MPI's openib transport found no OpenFabrics device of the requested type (%s) on %s: it is off for this run", or(ms[0].Fields["Requested type"], "not shown"), hosts(ms)))
		case ompihelp.NoNICs:
			f = catalog.New("mpi.rdma_not_used", subject(ms),
				fmt.Sprintf("Open MPI's %s transport found no usable network interface on %s: another transport is used, at lower performance", or(ms[0].Module, "high-performance"), hosts(ms)))
		default:
			continue
		}
		f.Evidence = evidence(lg, t, ms)
		if t == ompihelp.TCPConnectFail && lg.Has(ompihelp.TCPWrongPeer) {
			f.Evidence = append(f.Evidence, evidence(lg, ompihelp.TCPWrongPeer, messages(lg, ompihelp.TCPWrongPeer))...)
		}
		if t == ompihelp.PortNotSelected && lg.Has(ompihelp.DeviceInitError) {
			f.Summary += fmt.Sprintf(". The 'There was an error initializing an OpenFabrics device' that follows it (%s) is the same notice: openib opened the device and found no port it may use", processes(lg, ompihelp.DeviceInitError))
			f.Evidence = append(f.Evidence, evidence(lg, ompihelp.DeviceInitError, messages(lg, ompihelp.DeviceInitError))...)
		}
		fs = append(fs, f)
	}
	catalog.Sort(fs)
	return fs
}

// allRetry says whether every completion error of ms is a retry
// exhaustion, which the retry help message after it explains.
func allRetry(ms []ompihelp.Message) bool {
	for _, m := range ms {
		if s := m.Fields["Status"]; s != "RETRY EXCEEDED ERROR" && s != "RECEIVER NOT READY RETRY EXCEEDED ERROR" {
			return false
		}
	}
	return true
}

// allFlushed says whether every completion error of ms is a flush.
func allFlushed(ms []ompihelp.Message) bool {
	for _, m := range ms {
		if m.Fields["Status"] != ompihelp.FlushStatus {
			return false
		}
	}
	return true
}

// wcStatuses names the statuses of the completion errors ("REMOTE ACCESS
// ERROR (status 10, vendor error 136), 2 times").
func wcStatuses(ms []ompihelp.Message) string {
	var ss []string
	for _, m := range ms {
		s := fmt.Sprintf("%s (status %s", or(m.Fields["Status"], "?"), or(m.Fields["Status number"], "?"))
		if v := m.Fields["Vendor error"]; v != "" {
			s += ", vendor error " + v
		}
		s += ")"
		if !slices.Contains(ss, s) && len(ss) < maxEvidence {
			ss = append(ss, s)
		}
	}
	out := strings.Join(ss, "; ")
	if len(ms) > 1 {
		out += fmt.Sprintf(", %d lines", len(ms))
	}
	return out
}

// tcpIfRemedy is what to do when TCP connections reach the wrong process.
const tcpIfRemedy = "An address several hosts share (docker0's 172.17.0.1, virbr0's 192.168.122.1) sends a connection to another host's process: name the interface of the cluster network, mpirun --mca btl_tcp_if_include <interface> (or --mca btl_tcp_if_exclude lo,docker0,virbr0)"

// wrongPeerNote is what the "received unexpected process identifier"
// lines add to a TCP connect failure ("" when there are none).
func wrongPeerNote(lg *ompihelp.Log) string {
	ms := messages(lg, ompihelp.TCPWrongPeer)
	if len(ms) == 0 {
		return "Check that every host reaches the others' addresses (ip addr, ping), and name the interface of the cluster network: mpirun --mca btl_tcp_if_include <interface>"
	}
	return fmt.Sprintf("Before it, the transport reached the wrong process %s. %s", wrongPeers(ms), tcpIfRemedy)
}

// wrongPeers names the processes of the "received unexpected process
// identifier" lines ("on cu25 ([[13139,1],1] got [[13139,1],4]), 2 times").
func wrongPeers(ms []ompihelp.Message) string {
	var ps []string
	for _, m := range ms {
		p := fmt.Sprintf("%s got %s", or(m.Fields["Process"], "a process"), or(m.Fields["Peer process"], "another"))
		if len(ps) < maxEvidence && !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	s := fmt.Sprintf("on %s (%s)", hosts(ms), strings.Join(ps, "; "))
	if len(ms) > 1 {
		s += fmt.Sprintf(", %d times", len(ms))
	}
	return s
}

// fieldNote is ", KEY: value" of the first message that has the field.
func fieldNote(ms []ompihelp.Message, key string) string {
	for _, m := range ms {
		if v := m.Fields[key]; v != "" {
			return ", " + strings.ToLower(key) + ": " + v
		}
	}
	return ""
}

// rdmaPath says how Open MPI is made to use the device: PSM2 for an
// Omni-Path (hfi1) or TrueScale (qib) adapter, UCX for the others.
func rdmaPath(ms []ompihelp.Message) string {
	for _, m := range ms {
		if strings.HasPrefix(m.Device, "hfi1") || strings.HasPrefix(m.Device, "qib") {
			return fmt.Sprintf("%s is an Omni-Path adapter, which Open MPI drives through PSM2 (or libfabric's psm2 provider), not openib or UCX: ompi_info | grep -i -e psm2 -e ofi must list the mtl, and mpirun --mca pml cm --mca mtl psm2 uses it", m.Device)
		}
	}
	return "ompi_info | grep -i ucx must list the ucx pml, and mpirun --mca pml ucx uses it"
}

// topicsOf lists the topics of the log in first-seen order, messages
// before aggregate lines.
func topicsOf(lg *ompihelp.Log) []ompihelp.Topic {
	var ts []ompihelp.Topic
	for _, m := range lg.Messages {
		if !slices.Contains(ts, m.Topic) {
			ts = append(ts, m.Topic)
		}
	}
	for _, a := range lg.Aggregates {
		if !slices.Contains(ts, a.Topic) {
			ts = append(ts, a.Topic)
		}
	}
	return ts
}

// messages returns the messages of topic t; when only aggregate lines
// name it, one message per line, standing for it.
func messages(lg *ompihelp.Log, t ompihelp.Topic) []ompihelp.Message {
	var ms []ompihelp.Message
	for _, m := range lg.Messages {
		if m.Topic == t {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		for _, a := range lg.Aggregates {
			if a.Topic == t {
				ms = append(ms, ompihelp.Message{Topic: t, Line: a.Line, Text: a.Text, Host: a.Host})
			}
		}
	}
	return ms
}

// evidence quotes the first lines of the messages of t and the aggregate
// lines naming it.
func evidence(lg *ompihelp.Log, t ompihelp.Topic, ms []ompihelp.Message) []finding.Evidence {
	var evs []finding.Evidence
	for _, m := range ms {
		if len(evs) == maxEvidence {
			break
		}
		v := m.Text
		if m.Host != "" || m.Device != "" {
			v += fmt.Sprintf(" (host %s%s)", or(m.Host, "?"), devSuffix(m))
		}
		evs = append(evs, finding.Evidence{Source: fmt.Sprintf("%s:%d", lg.Source, m.Line), Value: v})
	}
	for _, a := range lg.Aggregates {
		if a.Topic == t && len(evs) < maxEvidence && !slices.ContainsFunc(evs, func(e finding.Evidence) bool { return e.Value == a.Text }) {
			evs = append(evs, finding.Evidence{Source: fmt.Sprintf("%s:%d", lg.Source, a.Line), Value: a.Text})
		}
	}
	return evs
}

func devSuffix(m ompihelp.Message) string {
	switch {
	case m.Device != "" && m.Port > 0:
		return fmt.Sprintf(", device %s port %d", m.Device, m.Port)
	case m.Device != "":
		return ", device " + m.Device
	}
	return ""
}

// subject is the first message's host and device.
func subject(ms []ompihelp.Message) finding.Subject {
	m := ms[0]
	return finding.Subject{Host: m.Host, Device: m.Device, Port: m.Port}
}

// hosts names the hosts of ms ("gpu7", "a, b").
func hosts(ms []ompihelp.Message) string {
	var hs []string
	for _, m := range ms {
		if m.Host != "" && !slices.Contains(hs, m.Host) {
			hs = append(hs, m.Host)
		}
	}
	if len(hs) == 0 {
		return "a host the message does not name"
	}
	return strings.Join(hs, ", ")
}

// onHost is " on HOST" for the first named host, "" when none is named.
func onHost(ms []ompihelp.Message) string {
	for _, m := range ms {
		if m.Host != "" {
			return " on " + m.Host
		}
	}
	return ""
}

// devices names the devices of ms with their host ("mlx5_0 port 1 on
// lxbk1039").
func devices(ms []ompihelp.Message) string {
	var ds []string
	for _, m := range ms {
		d := or(m.Device, "the device")
		if m.Port > 0 {
			d += fmt.Sprintf(" port %d", m.Port)
		}
		if m.Host != "" {
			d += " on " + m.Host
		}
		if !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	return strings.Join(ds, ", ")
}

// pairs names the host pairs of retry messages ("between c1n01 (mlx4_0)
// and c1n07").
func pairs(ms []ompihelp.Message) string {
	var ps []string
	for _, m := range ms {
		p := fmt.Sprintf("between %s%s and %s", or(m.Host, "a host"), paren(m.Device), or(m.Fields["Peer host"], "its peer"))
		if !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	return strings.Join(ps, "; ")
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// processes says how many processes sent t ("1 process", "12 processes").
func processes(lg *ompihelp.Log, t ompihelp.Topic) string {
	n := max(1, lg.Count(t))
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
