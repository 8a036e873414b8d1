package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

func TestCheckACS(t *testing.T) {
	const kernelACS = pcie.ACSSrcValid | pcie.ACSReqRedir | pcie.ACSCmpltRedir | pcie.ACSUpstreamFwd
	tests := []struct {
		name    string
		acs     map[pcie.Address]uint16 // Ctl by bridge; bridges not named are not read
		bridges []string                // in the remedy, sorted
		pairs   string
	}{
		{name: "config not read (no root, or an old bundle)"},
		{name: "ACS off on the switch ports", acs: map[pcie.Address]uint16{"0000:01:00.0": 0, "0000:02:00.0": 0, "0000:02:01.0": 0}},
		{name: "kernel-enabled ACS on the GPU's downstream port", acs: map[pcie.Address]uint16{"0000:02:00.0": kernelACS, "0000:02:01.0": 0},
			bridges: []string{"0000:02:00.0"}, pairs: "(GPU0–mlx5_0)"},
		{name: "both switches", acs: map[pcie.Address]uint16{"0000:02:01.0": kernelACS, "0000:02:00.0": kernelACS, "0000:82:01.0": pcie.ACSEgressCtrl},
			bridges: []string{"0000:02:00.0", "0000:02:01.0", "0000:82:01.0"}, pairs: "(GPU0–mlx5_0, GPU1–mlx5_1)"},
		{name: "source validation and upstream forwarding redirect nothing", acs: map[pcie.Address]uint16{"0000:02:00.0": pcie.ACSSrcValid | pcie.ACSUpstreamFwd}},
		// The root ports are above the switches: GPU–NIC traffic turns
		// around below them (and the NIC 85:00.0 meets the GPU only at the
		// root complex, where nothing turns around).
		{name: "root ports are not on a switch path", acs: map[pcie.Address]uint16{"0000:00:01.0": kernelACS, "0000:80:01.0": kernelACS}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testNode()
			for a, ctl := range tt.acs {
				d := s.PCIDevice(a)
				if d == nil {
					t.Fatalf("no function %s in the test node", a)
				}
				d.ACS = &pcie.ACS{Offset: 0x148, Cap: 0x5f, Ctl: ctl}
			}
			got := checkACS(&Input{Snap: s})
			if tt.bridges == nil {
				if len(got) != 0 {
					t.Fatalf("fired: %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].ID != "pcie.acs_redirect" || len(got[0].Evidence) != len(tt.bridges) {
				t.Fatalf("got %+v", got)
			}
			f := got[0]
			if !strings.Contains(f.Summary, tt.pairs) {
				t.Errorf("summary %q does not name the pairs %s", f.Summary, tt.pairs)
			}
			want := "for b in " + strings.Join(tt.bridges, " ") + "; do setpci -s $b ECAP_ACS+0x6.w=0000; done"
			if !strings.Contains(f.Remedy[0], want) {
				t.Errorf("remedy %q, want %q", f.Remedy[0], want)
			}
			if ev := f.Evidence[0]; ev.Source != "sys/bus/pci/devices/"+tt.bridges[0]+"/config" || !strings.Contains(ev.Value, "ACSCtl: SrcValid") {
				t.Errorf("evidence %+v", ev)
			}
		})
	}
}
