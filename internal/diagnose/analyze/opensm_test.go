package analyze

import (
	"strings"
	"testing"
)

// TestOpenSMPastes: linux-rdma/opensm issues pasted with their prose: a
// bind failure ending in "Exiting SM" (fabric.sm_missing), a LASH
// segfault's apport trace (fabric.sm_crashed, the signal read above
// the frames), and a discovery's SMP timeout under ibswitches
// (fabric.smp_timeout).
func TestOpenSMPastes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		kind       Kind
		ids        []string
		says       string
	}{
		{"bind failure", "As soon as I reboot with a more recent Linux kernel I find:\n\n```\n" +
			"  138670 [F0D43740] 0x03 -> OpenSM 3.3.23\n" +
			"  165028 [F0D43740] 0x01 -> osm_vendor_bind: ERR 5426: Unable to register class 129 version 1\n" +
			"  165157 [F0D43740] 0x01 -> osm_sm_mad_ctrl_bind: ERR 3118: Vendor specific bind failed\n" +
			"  165630 [F0D43740] 0x80 -> Exiting SM\n```\n", KindOpenSM, []string{"fabric.sm_missing"}, "Exiting SM"},
		{"LASH segfault", "from crash report\n\nSignal: 11\nSourcePackage: opensm\nStacktrace:\n" +
			" #0 0x00005636f04835a9 in get_next_switch (p_lash=0x1, link=<optimized out>, sw=0) at osm_ucast_lash.c:337\n No locals.\n" +
			" #2 0x00005636f0484aa8 in lash_core (p_lash=<optimized out>) at osm_ucast_lash.c:842\n        lanes_needed = 1\n", KindOpenSM, []string{"fabric.sm_crashed"}, "signal 11"},
		{"SMP timeout under ibswitches", "ibswitches\nsrc/query_smp.c:199; umad (DR path slid 0; dlid 0; 0,1,20,34,4,22,1,5,5 Attr 0x11:0) bad status 110; Connection timed out\n" +
			"Switch  : 0xe41d2d0300169560 ports 36 \"SwitchX -  Mellanox Technologies\" base port 0 lid 481 lmc 0\n", KindMADError, []string{"fabric.smp_timeout"}, "0,1,20,34,4,22,1,5,5"},
		{"ls /dev/infiniband without uverbs", "$ ls -l /dev/infiniband\ntotal 0\ncrw------- 1 root root 231,  64 Dec 28 14:10 issm0\n" +
			"crw-rw-rw- 1 root root  10,  56 Dec 28 14:10 rdma_cm\ncrw------- 1 root root 231,   0 Dec 28 14:10 umad0\n", KindDevFiles, []string{"container.uverbs_missing"}, "no uverbsN"},
		{"ls /dev/infiniband complete", "root@gpu-11:/dev/infiniband# ls -alh\ntotal 0\ncrw------- 1 root root 231,  64 Dec 28 14:10 issm0\n" +
			"crw-rw-rw- 1 root root  10,  56 Dec 28 14:10 rdma_cm\ncrw------- 1 root root 231,   0 Dec 28 14:10 umad0\ncrw-rw-rw-  1 root root 231, 192 Dec 28 14:10 uverbs0\n", KindDevFiles, nil, ""},
		{"ip link: PF down with VFs", "Interface link state after policy applying:\n\n```\n" +
			"4: ens2f0: <BROADCAST,MULTICAST> mtu 9000 qdisc mq state DOWN mode DEFAULT group default qlen 1000\n    link/ether 0c:42:a1:2b:74:ae brd ff:ff:ff:ff:ff:ff\n" +
			"    vf 0     link/ether 76:ed:fd:cf:eb:c9 brd ff:ff:ff:ff:ff:ff, spoof checking off, link-state auto, trust off, query_rss off\n" +
			"    vf 1     link/ether 16:07:b5:d3:52:75 brd ff:ff:ff:ff:ff:ff, spoof checking off, link-state auto, trust off, query_rss off\n", KindIPLink, []string{"port.down"}, "ens2f0 is administratively down"},
		{"CellCLI IBPORT healthy", "CellCLI> LIST IBPORT\n         HCA-1:1         Active\n         HCA-1:2         Active\n\nCellCLI> LIST IBPORT DETAIL\n" +
			"         name:                   HCA-1:1\n         linkDowned:             0\n         status:                 Active\n         symbolErrs:             0\n", KindCellCLI, nil, ""},
		{"CellCLI IBPORT down", "CellCLI> LIST IBPORT\n         HCA-1:1         Active\n         HCA-1:2         Down\n", KindCellCLI, []string{"port.down"}, "HCA-1:2: status Down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tc.text, Options{})
			var ids []string
			found := false
			for _, s := range fr.Segments {
				if s.Kind == tc.kind {
					found = true
				}
				for _, f := range s.Findings {
					ids = append(ids, f.ID)
					if !strings.Contains(f.Summary, tc.says) {
						t.Errorf("%s: summary %q lacks %q", f.ID, f.Summary, tc.says)
					}
				}
			}
			if !found || strings.Join(ids, " ") != strings.Join(tc.ids, " ") {
				t.Errorf("kind %s found %v, findings %v, want %v", tc.kind, found, ids, tc.ids)
			}
		})
	}
}
