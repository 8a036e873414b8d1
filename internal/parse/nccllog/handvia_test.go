package nccllog

import "testing"

// via and usingNetwork read what reVia and reNetwork read.
func TestViaAndNetworkAsRegexps(t *testing.T) {
	for _, msg := range []string{
		"Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/3/GDRDMA",
		"Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/3",
		"Channel 00/0 : 3[3] -> 11[3] [receive] via NET/Socket/0",
		"Channel 00/0 : 3[3] -> 11[3] [send] via NET/AWS Libfabric/0/GDRDMA",
		"Channel 00/0 : via NET/IB/x via NET/Socket/12/GDRDMAX",
		"Channel 00/0 : via NET//1 via NET/IB/",
		"Channel 00/0 : via NET/IB",
		"Channel 00/0 : via NET/IB/7/GDRDM",
		"Channel 00/0 : via NET/I\tB/7",
		"Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
		"Using network IB",
		"Using network AWS Libfabric  \t",
		"Using network  ",
		"Using network ",
		"Using network",
		"Using networkIB",
		"Using network \nIB",
		"Using network IB\n",
		"Using network I\nB",
		"Using network \xff",
		"xUsing network IB",
	} {
		m := reVia.FindStringSubmatch(msg)
		name, gdr, ok := via(msg)
		if ok != (m != nil) || ok && (name != m[1] || gdr != m[2]) {
			t.Errorf("via(%q) = %q %q %v, regexp %q", msg, name, gdr, ok, m)
		}
		m = reNetwork.FindStringSubmatch(msg)
		nw, ok := usingNetwork(msg)
		if ok != (m != nil) || ok && nw != m[1] {
			t.Errorf("usingNetwork(%q) = %q %v, regexp %q", msg, nw, ok, m)
		}
	}
}
