package node

import (
	"errors"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// TestOldKernel pins the 4.19 formats byte for byte and checks that the
// shared parsers read them (or, for "Unknown speed", report ErrUnknown).
func TestOldKernel(t *testing.T) {
	a100 := mustBuild(t, Options{Profile: "a100-hdr", Faults: MustParseFaults("down:mlx5_1/1", "aer:mlx5_0/correctable/RxErr=2", "old-kernel")})
	h100 := mustBuild(t, Options{Faults: MustParseFaults("old-kernel")})
	am, hm := entryMap(a100), entryMap(h100)
	a0, a1 := a100.Device("mlx5_0"), a100.Device("mlx5_1")
	cases := []struct {
		m          map[string]Entry
		path, want string
	}{
		{am, "proc/sys/kernel/osrelease", "4.19.0-27-amd64\n"},
		{am, a0.PCI.Path() + "/current_link_speed", "16 GT/s\n"},
		{am, a0.PCI.Path() + "/max_link_speed", "16 GT/s\n"},
		{am, a0.PCI.Path() + "/aer_dev_correctable", "Receiver Error 2\nBad TLP 0\nBad DLLP 0\nRELAY_NUM Rollover 0\nReplay Timer Timeout 0\nAdvisory Non-Fatal 0\nCorrected Internal Error 0\nHeader Log Overflow 0\nTOTAL_ERR_COR 2\n"},
		{am, a0.PCI.Path() + "/aer_dev_fatal", "Undefined 0\nData Link Protocol 0\nSurprise Down Error 0\nPoisoned TLP 0\nFlow Control Protocol 0\nCompletion Timeout 0\nCompleter Abort 0\nUnexpected Completion 0\nReceiver Overflow 0\nMalformed TLP 0\nECRC 0\nUnsupported Request 0\nACS Violation 0\nUncorrectable Internal Error 0\nMC Blocked TLP 0\nAtomicOp Egress Blocked 0\nTLP Prefix Blocked Error 0\nTOTAL_ERR_FATAL 0\n"},
		{am, a0.Dir() + "/ports/1/rate", "200 Gb/sec (4X HDR)\n"},
		{am, a1.Dir() + "/ports/1/rate", "10 Gb/sec (4X)\n"},
		{hm, h100.Device("mlx5_0").Dir() + "/ports/1/rate", "10 Gb/sec (4X)\n"},
		{hm, h100.Device("mlx5_0").PCI.Path() + "/current_link_speed", "Unknown speed\n"},
		{hm, h100.Device("mlx5_8").PCI.Path() + "/current_link_speed", "16 GT/s\n"},
		{hm, h100.Device("mlx5_8").Dir() + "/ports/1/rate", "100 Gb/sec (4X EDR)\n"},
	}
	for _, c := range cases {
		if got := string(c.m[c.path].Data); got != c.want {
			t.Errorf("%s = %q, want %q", c.path, got, c.want)
		}
	}
	dm := string(am["cmd/dmesg.txt"].Data)
	for _, want := range []string{
		"] pcieport 0000:0f:01.0: AER: Multiple Corrected error received: 0000:12:00.0\n",
		"] mlx5_core 0000:12:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n",
		"] mlx5_core 0000:12:00.0: AER:    [ 0] Receiver Error         (First)\n",
		"] mlx5_core 0000:12:00.0: 252.048 Gb/s available PCIe bandwidth (16 GT/s x16 link)\n",
	} {
		if !strings.Contains(dm, want) {
			t.Errorf("dmesg lacks %q:\n%s", want, dm)
		}
	}
	// The shared parsers read the old forms.
	if r, err := ib.ParseRate("10 Gb/sec (4X)"); err != nil || r.Speed != ib.SpeedSDR || r.Width != 4 {
		t.Errorf("ParseRate(old SDR) = %+v, %v", r, err)
	}
	if s, err := pcie.ParseSpeed("16 GT/s\n"); err != nil || s != pcie.Gen4 {
		t.Errorf("ParseSpeed(16 GT/s) = %v, %v", s, err)
	}
	if _, err := pcie.ParseSpeed("Unknown speed\n"); !errors.Is(err, pcie.ErrUnknown) {
		t.Errorf("ParseSpeed(Unknown speed) = %v", err)
	}
}
