package analyze

import (
	"strings"
	"testing"
)

// TestAppKindPastes: lsmod of the RDMA modules, UCCL's P2P benchmark rows,
// 3FS's IBDevice lines behind syslog prefixes and LDMS's event-channel
// failure, as pasted in issues (ovis-hpc/ovis, uccl-project/uccl,
// deepseek-ai/3FS), each read as its kind and judged.
func TestAppKindPastes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		kind       Kind
		ids        []string
		says       string
	}{
		{"lsmod grep, working node", "lsmod |grep rdma\n```rdmavt                104548  1 ib_qib\nrdma_ucm               26930  0 \n" +
			"ib_uverbs             102296  2 mlx4_ib,rdma_ucm\nib_core               255484  11 rdma_cm,ib_cm,iw_cm,ko2iblnd,mlx4_ib,ib_qib,rdmavt,ib_umad,ib_uverbs,rdma_ucm,ib_ipoib\n```\n", KindLsmod, nil, ""},
		{"lsmod without ib_uverbs", "$ lsmod\nModule                  Size  Used by\nmlx5_ib               397312  0\nrdma_ucm               26930  0\nib_core               331776  3 ib_cm,rdma_ucm,mlx5_ib\n",
			KindLsmod, []string{"container.uverbs_missing"}, "not ib_uverbs"},
		{"uccl at line rate", "[Client] Connected to 10.141.1.2 conn_id=0\n[Client]   1.0 MB : 170.65 Gbps |  21.33 GB/s\n[Client] 100.0 MB : 196.11 Gbps |  24.51 GB/s\n[Client] Benchmark complete\n",
			KindUCCL, nil, ""},
		{"3fs in syslog", "Mar 13 11:10:09 localhost.localdomain mgmtd_main[32]: [2025-03-13T11:10:09.437726968+00:00 mgmtd_main:   32 IBDevice.cc:441 CRITICAL] IBDevice mlx5_0:1 can't set zone by IP, fallback to UNKNOWN\n" +
			"Mar 13 11:10:09 localhost.localdomain mgmtd_main[32]: [2025-03-13T11:10:09.437778035+00:00 mgmtd_main:   32 IBDevice.cc:256 INFO] IBDevice add mlx5_0, id 0, 1 available ports\n" +
			"Mar 13 11:10:09 localhost.localdomain mgmtd_main[32]: [2025-03-13T11:10:09.442579863+00:00 mgmtd_main:   32 IBDevice.cc:386 WARNING] IfAddr of mlx5_1:1 -> Bond0 not found, maybe running in container!\n",
			KindVerbsLog, []string{"rdma.port_no_address"}, "Bond0"},
		{"ldmsd event channel", "Fri Dec 13 07:57:32 2019: INFO      : z_rdma_listen: rdma_create_event_channel failed. zerr 7\nFri Dec 13 07:57:32 2019: ERROR     : Error 7 listening on the 'rdma' transport.\n",
			KindVerbsLog, []string{"rdma.transport_unavailable"}, "event channel"},
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
