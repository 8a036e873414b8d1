package wclog

import "strings"

// ibSocketLine reads DeepSeek 3FS's lines (folly xlog) that one of its
// RDMA sockets accepted a connection whose peer never finished it
// (deepseek-ai/3FS src/common/net/ib/IBSocket.cc, IBSocket::check and
// checkConnectFinished: "IBSocket {} accept timeout, port {}"; Listener.cc
// checkRDMA: "IBSocket {} still in ACCEPTED state after wait {}"). The
// socket is described as "RDMA://<peer host>/<peer device>:<port>/<peer
// QP>" (IBSocket::setPeerInfo) and the local port as "{mlx5_1:1, ifaddrs
// [192.168.3.25], zones [A], ETHERNET, ACTIVE}" (IBDevice.h's formatter
// of IBPort): the device and port, the IP addresses of its network
// device, the link layer and the port state. IBSocket::accept has moved
// the queue pair to RTR by then; it waits for the client's first message
// to make it READY, and it never came.
func ibSocketLine(l string) (QPSetup, bool) {
	_, rest, ok := strings.Cut(l, "IBSocket ")
	if !ok {
		return QPSetup{}, false
	}
	desc, msg, ok := strings.Cut(rest, " ")
	peer, found := strings.CutPrefix(desc, "RDMA://")
	if !ok || !found {
		return QPSetup{}, false
	}
	q := QPSetup{Text: l, State: "RTR", Stalled: true}
	switch {
	case strings.HasPrefix(msg, "accept timeout"):
	case strings.HasPrefix(msg, "still in ACCEPTED state after wait"):
	default:
		return QPSetup{}, false
	}
	// "localhost.localdomain/mlx5_0:1/953": the peer's host, device and port.
	host, dev, _ := strings.Cut(peer, "/")
	dev, _, _ = strings.Cut(dev, "/")
	q.Peer = host
	if d, _, _ := strings.Cut(dev, ":"); nicName(d) {
		q.PeerDevice = dev
	}
	if _, port, ok := strings.Cut(msg, "port {"); ok {
		port, _, _ = strings.Cut(port, "}")
		q.Port = strings.TrimSpace(port)
		fields := strings.Split(port, ", ")
		if d, _, _ := strings.Cut(fields[0], ":"); nicName(d) {
			q.Device = d
		}
		for _, f := range fields[1:] {
			switch {
			case f == "ifaddrs []":
				q.NoAddr = true
			case f == "ETHERNET" || f == "INFINIBAND":
				q.LinkLayer = f
			}
		}
	}
	return q, true
}
