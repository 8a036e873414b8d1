package analyze

import (
	"strings"
	"testing"
)

// TestSwitchQoSPastes: mlnx_qos with PFC on some priority is healthy, on
// none roce.pfc_disabled naming the command line's interface; Onyx show
// roce lossless with PFC on the RoCE priority and ECN is healthy, without
// ECN roce.ecn_disabled; listlinkup with present connectors up (and
// empty cages) is healthy, a present connector's port down
// fabric.link_down.
func TestSwitchQoSPastes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		kind       Kind
		ids        []string
		says       string
	}{
		{"mlnx_qos PFC on 0,2,6,7", "# mlnx_qos -i eth2\nDCBX mode: OS controlled\nPriority trust state: dscp\ndscp2prio mapping:\nprio:0 dscp:07,06,05,04,03,02,01,00,\nCable len: 10\n" +
			"PFC configuration:\npriority 0 1 2 3 4 5 6 7\nenabled 1 0 1 0 0 0 1 1\n\ntc: 0 ratelimit: unlimited, tsa: ets, bw: 10%\npriority: 1\n", KindMlnxQoS, nil, ""},
		{"mlnx_qos PFC off", "$ mlnx_qos -i ens1f0\nDCBX mode: OS controlled\nPriority trust state: pcp\nCable len: 7\nPFC configuration:\n" +
			"\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   0   0   0   0   0   \ntc: 0 ratelimit: unlimited, tsa: vendor\n\t priority:  1\n", KindMlnxQoS, []string{"roce.pfc_disabled"}, "ens1f0"},
		{"Onyx show roce lossless", "switch (config) # show roce\n\nRoCE mode : lossless\nLLDP : disabled\nPort trust mode: L3\n\nApplication TLV:\nSelector: udp\nProtocol: 4791\nPriority: 3\n\n" +
			"Port congestion-control:\nMode: ecn, absolute\nMin : 150\nMax : 1500\n\nPFC : enabled\nswitch-priority 3: enabled\n", KindOnyxRoCE, nil, ""},
		{"listlinkup healthy", "# listlinkup\nConnector  0A Present <-> I4-A Ports 22 up 21 up 20 up\nConnector  1A Not present\n.\n.\nLink I4-A 01 <-> I4-E 09 up\n#\n", KindListLinkup, nil, ""},
		{"listlinkup port down", "# listlinkup\nConnector  0A Present <-> Switch Port 20 up (Enabled)\nConnector  1A Present <-> Switch Port 22 down (Enabled)\n", KindListLinkup, []string{"fabric.link_down"}, "Switch Port 22 is down"},
		{"Onyx show roce without ECN", "RoCE mode : lossless\nApplication TLV:\nPriority: 3\nPort congestion-control:\nMode: none\nPFC : enabled\nswitch-priority 3: enabled\n", KindOnyxRoCE, []string{"roce.ecn_disabled"}, "not ECN"},
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
