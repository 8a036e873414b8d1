package verbs

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
)

// The GIDs Mooncake's transfer engine logs, judged: the real lines of
// kvcache-ai/Mooncake#936 (IPv4-mapped GIDs at user-set index 3: healthy)
// and Mooncake#204 (mlx5_0 on the link-local GID at index 1, then the
// handshake's RTR timing out), and rdma_context.cpp's formats with an
// all-zero GID, its "GID is NULL" warning and an InfiniBand port.
func TestCheckGIDs(t *testing.T) {
	const (
		user936 = "I20260203 17:42:09.445168 3720677 rdma_context.cpp:594] Using user-specified GID index: 3 on mlx5_3/ (with network device)\n"
		dev936  = "I20260203 17:42:09.445906 3720677 rdma_context.cpp:140] RDMA device: mlx5_3, LID: 0, GID: (GID_Index 3) 00:00:00:00:00:00:00:00:00:00:ff:ff:21:06:1e:14\n"
		dev204  = "I0331 12:02:38.363528 56056 rdma_context.cpp:125] RDMA device: mlx5_0, LID: 0, GID: (GID_Index 1) fe:80:00:00:00:00:00:00:9e:63:c0:ff:fe:65:ab:90\n"
		qp204   = "E0331 12:03:04.222625 56060 rdma_endpoint.cpp:385] [Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: Connection timed out [110]\n"
		ib      = "I0101 00:00:00.000000 1 rdma_context.cpp:286] RDMA device: mlx5_1, LID: 17, GID: (GID_Index 0) fe:80:00:00:00:00:00:00:0c:42:a1:03:00:ab:cd:ef, num_lag_ports: 1\n"
		ibNoLID = "I0101 00:00:00.000000 1 rdma_context.cpp:286] RDMA device: mlx5_1, LID: 0, GID: (GID_Index 0) fe:80:00:00:00:00:00:00:0c:42:a1:03:00:ab:cd:ef\n"
		zero    = "I0101 00:00:00.000000 1 rdma_context.cpp:286] RDMA device: mlx5_2, LID: 0, GID: (GID_Index 5) 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00\n"
		user8   = "I0101 00:00:00.000000 1 rdma_context.cpp:1383] Using user-specified GID index: 4 on mlx5_8/1 (without network device)\n"
		null    = "W0101 00:00:00.000000 1 rdma_context.cpp:1400] GID is NULL, please check your GID index by specifying MC_GID_INDEX\n"
	)
	for _, tt := range []struct {
		name, text string
		sev        []finding.Severity
		sum        string // a fragment of the first finding's summary
		device     string
		qpSum      string // a fragment of the QP setup finding's summary, "" for none
	}{
		{"#936 IPv4-mapped on RoCE: healthy", user936 + dev936, nil, "", "", ""},
		{"InfiniBand port with a LID: healthy", ib, nil, "", "", ""},
		{"fe80 GID without the port's EUI-64 on LID 0: not judged", ibNoLID, nil, "", "", ""},
		{"#204's link-local GID alone: warning", dev204, []finding.Severity{finding.Warning},
			"uses GID index 1 of mlx5_0, the link-local RoCE GID fe80::9e63:c0ff:fe65:ab90", "mlx5_0", ""},
		{"#204 whole: the QP finding names the GID", dev204 + qp204, nil, "", "", "the log shows mlx5_0 uses GID index 1, the link-local GID fe80::9e63:c0ff:fe65:ab90"},
		{"all-zero GID: critical", zero, []finding.Severity{finding.Critical},
			"all-zero GID at GID index 5 of mlx5_2: that slot of the port's GID table is empty", "mlx5_2", ""},
		{"GID is NULL after the user's index", user8 + null, []finding.Severity{finding.Critical},
			"all-zero GID at GID index 4 of mlx5_8", "mlx5_8", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := wclog.Parse(strings.NewReader(tt.text), "mooncake.log")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckGIDs("mooncake.log", lg.GIDs, len(lg.QPSetups) > 0)
			var sev []finding.Severity
			for _, f := range fs {
				if f.ID != "nccl.gid_index_wrong" {
					t.Errorf("ID %s", f.ID)
				}
				sev = append(sev, f.Severity)
			}
			if len(sev) != len(tt.sev) || (len(sev) > 0 && sev[0] != tt.sev[0]) {
				t.Fatalf("severities %v, want %v: %+v", sev, tt.sev, fs)
			}
			if len(fs) > 0 {
				if !strings.Contains(fs[0].Summary, tt.sum) || fs[0].Subject.Device != tt.device {
					t.Errorf("summary %q device %q", fs[0].Summary, fs[0].Subject.Device)
				}
				if !strings.Contains(strings.Join(fs[0].Remedy, "\n"), "show_gids "+tt.device) {
					t.Errorf("remedy %q", fs[0].Remedy)
				}
			}
			qp := CheckQPSetupsGIDs("mooncake.log", lg.QPSetups, lg.GIDs)
			if (tt.qpSum != "") != (len(qp) > 0) || len(qp) > 0 && !strings.Contains(qp[0].Summary, tt.qpSum) {
				t.Errorf("QP setup findings %+v", qp)
			}
		})
	}
}
