package host

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
)

func TestAnalyzeEthtoolOnNode(t *testing.T) {
	b, err := os.ReadFile("../../parse/ethtool/testdata/mlx5-roce-pause-no-ecn.txt")
	if err != nil {
		t.Fatal(err)
	}
	st, err := ethtool.Parse(strings.NewReader(string(b)), "ens1f0np0", "paste.txt")
	if err != nil {
		t.Fatal(err)
	}
	node := func(marked uint64) *snapshot.Snapshot {
		act := ib.StateActive
		return &snapshot.Snapshot{Devices: []snapshot.Device{{Name: "mlx5_0", Ports: []snapshot.Port{{
			Device: "mlx5_0", Number: 1, NetDev: "ens1f0np0", State: &act,
			HWCounters: []snapshot.Counter{{Name: "np_cnp_sent", Value: 0}, {Name: "np_ecn_marked_roce_packets", Value: marked}, {Name: "rp_cnp_handled", Value: 0}},
		}}}}}
	}
	for _, tt := range []struct {
		name string
		snap *snapshot.Snapshot
		want []string
	}{
		{"no node", nil, []string{"roce.pause_heavy/warning"}},
		{"port without ECN marks", node(0), []string{"roce.ecn_not_effective/warning", "roce.pause_heavy/warning"}},
		{"port with ECN marks", node(1234), []string{"roce.pause_heavy/warning"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckEthtoolOnNode(tt.snap, st)
			got := ids(fs)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			for _, f := range fs {
				if f.Subject.File != "paste.txt" || tt.snap != nil && f.Subject.Device != "mlx5_0" {
					t.Errorf("%s subject %+v", f.ID, f.Subject)
				}
			}
		})
	}
}
