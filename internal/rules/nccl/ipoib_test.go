package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestSocketFallbackOverIPoIB: NCCL on sockets over an IPoIB interface
// had an InfiniBand HCA at hand, so the fallback is critical even without
// --expect-ib. NVIDIA/nccl#207 (comment by Lausannen, 2019-04-18): NCCL
// 2.3.7, ranks 0-2 of 8 on gpu2, ib0 chosen, "Using internal Network
// Socket" (src/init.cu initNet) after the IB transport named its sideband
// interface and listed no port.
func TestSocketFallbackOverIPoIB(t *testing.T) {
	const nccl207 = "gpu2:46654:46654 [0] NCCL INFO NET : Using interface ib0:12.12.12.102<0>\n" +
		"gpu2:46654:46654 [0] NCCL INFO NET/IB : Using interface ib0 for sideband communication\n" +
		"gpu2:46654:46654 [0] NCCL INFO Using internal Network Socket\n" +
		"gpu2:46654:46654 [0] NCCL INFO NET : Using interface ib0:12.12.12.102<0>\n" +
		"gpu2:46654:46654 [0] NCCL INFO NET/Socket : 1 interfaces found\n" +
		"NCCL version 2.3.7+cuda9.0\n" +
		"gpu2:46654:46654 [0] NCCL INFO rank 0 nranks 8\n" +
		"gpu2:46655:46655 [1] NCCL INFO NET : Using interface ib0:12.12.12.102<0>\n" +
		"gpu2:46655:46655 [1] NCCL INFO NET/IB : Using interface ib0 for sideband communication\n" +
		"gpu2:46655:46655 [1] NCCL INFO Using internal Network Socket\n" +
		"gpu2:46655:46655 [1] NCCL INFO rank 1 nranks 8\n"
	eth := strings.ReplaceAll(strings.ReplaceAll(nccl207, "ib0", "eno1"), "NET/IB : Using interface eno1 for sideband communication", "NET/Socket : 1 interfaces found")
	for _, tc := range []struct {
		name, in string
		want     []string
		has      []string
	}{
		{"NCCL 2.3.7 over ib0", nccl207, []string{"nccl.socket_fallback/critical"},
			[]string{"over the IPoIB interface ib0", "NET : Using interface ib0:12.12.12.102<0>", "Using internal Network Socket", "found no ACTIVE IB/RoCE port"}},
		{"NCCL 2.3.7 over Ethernet", eth, []string{"nccl.socket_fallback/warning"}, []string{"fine only for a cluster without RDMA"}},
		{"sideband alone names ib0", strings.ReplaceAll(eth, "NET/Socket : 1 interfaces found\ngpu2:46655", "NET/IB : Using interface ib0 for sideband communication\ngpu2:46655"),
			[]string{"nccl.socket_fallback/critical"}, []string{"over the IPoIB interface ib0", "NET/IB : Using interface ib0 for sideband communication"}},
		{"NET/Socket on a predictable IPoIB name",
			"h1:1:1 [0] NCCL INFO NET/IB : No device found.\nh1:1:1 [0] NCCL INFO NET/Socket : Using [0]ibp12s0:10.1.0.5<0>\nh1:1:1 [0] NCCL INFO Using network Socket\nh1:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n",
			[]string{"nccl.socket_fallback/critical"}, []string{"over the IPoIB interface ibp12s0", "NET/Socket : Using ibp12s0"}},
		{"IPoIB interface on another host does not count",
			"h1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.0.5<0>\nh1:1:1 [0] NCCL INFO Using network Socket\nh2:1:1 [0] NCCL INFO NET : Using interface ib0:10.2.0.5<0>\n",
			[]string{"nccl.socket_fallback/warning"}, nil},
		{"NCCL 2.3.7 over IB is no fallback",
			"VS004:18172:18962 [0] NCCL INFO NET : Using interface ib0:192.168.0.4<0>\nVS004:18172:18962 [0] NCCL INFO NET/IB : Using interface ib0 for sideband communication\nVS004:18172:18962 [0] NCCL INFO NET/IB: [0] mlx5_0:1/IB\nVS004:18172:18962 [0] NCCL INFO Using internal Network IB\n",
			nil, nil},
		{"one node over ib0 stays a note", nccl207 + "gpu2:46654:46654 [0] NCCL INFO comm 0x1 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0\n" +
			"gpu2:46655:46655 [1] NCCL INFO comm 0x2 rank 1 nRanks 8 nNodes 1 localRanks 8 localRank 1\n", nil, []string{"one node"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := nccllog.Parse(strings.NewReader(tc.in), "log")
			if err != nil {
				t.Fatal(err)
			}
			a := CheckLog(lg, LogOptions{})
			if diff := cmp.Diff(tc.want, ids(a.Findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			text := strings.Join(a.Notes, "\n")
			if len(a.Findings) > 0 {
				text = a.Findings[0].Summary
				for _, e := range a.Findings[0].Evidence {
					text += "\n" + e.Value
				}
			}
			for _, h := range tc.has {
				if !strings.Contains(text, h) {
					t.Errorf("lacks %q:\n%s", h, text)
				}
			}
		})
	}
}

func TestIsIPoIBName(t *testing.T) {
	for name, want := range map[string]bool{
		"ib0": true, "ib0.8001": true, "ibp12s0": true, "ibs5": true, "ibP1p2s0": true,
		"ib": false, "ibm0": false, "eth0": false, "": false, "lo": false, "bond0": false, "ibp": false,
	} {
		if got := isIPoIBName(name); got != want {
			t.Errorf("isIPoIBName(%q) = %v, want %v", name, got, want)
		}
	}
}
