package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/sysfspci"
)

func TestCheckPastedSysfsLinks(t *testing.T) {
	tail := func(dir string, attrs ...string) string {
		var b strings.Builder
		for i := 0; i+1 < len(attrs); i += 2 {
			b.WriteString("==> " + dir + "/" + attrs[i] + " <==\n" + attrs[i+1] + "\n\n")
		}
		return b.String()
	}
	full := func(dir, cs, cw, ms, mw string) string {
		return tail(dir, "current_link_speed", cs, "current_link_width", cw, "max_link_speed", ms, "max_link_width", mw)
	}
	for _, tt := range []struct {
		name, in string
		prose    Prose
		sev      finding.Severity
		want     string // in the summary; "" for no finding
		judged   int
	}{
		// nokyan/resources issue 512 (comment by pktpls, 2025-07-16):
		// `tail -v -n +1 /sys/bus/pci/devices/0000\:01\:00.0/*_link_*`.
		{"an unnamed function at x8 16 GT/s of x16 32 GT/s (resources 512): a warning",
			full("/sys/bus/pci/devices/0000:01:00.0", "16.0 GT/s PCIe", "8", "32.0 GT/s PCIe", "16"),
			Prose{Before: "The `pp_dpm_pcie` sys entry looks like a winner\n"}, finding.Warning,
			"PCIe link of 0000:01:00.0 trained at x8 instead of x16 and 16GT/s instead of 32GT/s (sysfs current_link_width/speed against max_link_width/speed); the paste does not name the device", 1},
		{"the same issue's function at full link: judged, no finding",
			full("/sys/bus/pci/devices/0000:03:00.0", "32.0 GT/s PCIe", "16", "32.0 GT/s PCIe", "16"), Prose{}, "", "", 1},
		{"an RDMA device's function narrower: critical",
			full("/sys/class/infiniband/mlx5_0/device", "16.0 GT/s PCIe", "8", "16.0 GT/s PCIe", "16"), Prose{}, finding.Critical,
			"mlx5_0 trained at x8 instead of x16 (sysfs current_link_width/speed against max_link_width/speed); the device is a network adapter (mlx5_0, an RDMA device)", 1},
		{"a network interface's function slower: critical",
			tail("/sys/class/net/ens1f0/device", "current_link_speed", "8.0 GT/s PCIe", "max_link_speed", "16.0 GT/s PCIe"), Prose{}, finding.Critical,
			"ens1f0 trained at 8GT/s instead of 16GT/s", 1},
		{"a DRM card's function slower: a warning that a GPU lowers its speed at idle",
			tail("/sys/class/drm/card1/device", "current_link_speed", "2.5 GT/s PCIe", "max_link_speed", "16.0 GT/s PCIe"), Prose{}, finding.Warning,
			"a GPU lowers its link speed at idle", 1},
		{"an unnamed function the text calls a ConnectX-6: critical",
			full("/sys/bus/pci/devices/0000:3b:00.0", "16.0 GT/s PCIe", "4", "16.0 GT/s PCIe", "16"), Prose{Before: "our ConnectX-6 is slow\n"}, finding.Critical,
			"the paste's text around it says \"ConnectX-6\"", 1},
		{"an empty slot's port (width 0, speed Unknown): not judged",
			full("/sys/bus/pci/devices/0000:00:1c.0", "Unknown", "0", "8.0 GT/s PCIe", "1"), Prose{}, "", "", 0},
		{"only the current values: not judged",
			tail("/sys/bus/pci/devices/0000:01:00.0", "current_link_speed", "2.5 GT/s PCIe", "current_link_width", "8"), Prose{}, "", "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := sysfspci.Parse(strings.NewReader(tt.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			fs, judged := CheckPastedSysfsLinks(r, "p.txt", tt.prose)
			if judged != tt.judged {
				t.Errorf("judged %d, want %d", judged, tt.judged)
			}
			if tt.want == "" {
				if len(fs) != 0 {
					t.Errorf("findings %+v, want none", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("findings %+v, want one", fs)
			}
			f := fs[0]
			if f.ID != "pcie.link_degraded" || f.Severity != tt.sev || !strings.Contains(f.Summary, tt.want) {
				t.Errorf("finding %s %s %q, want %s containing %q", f.ID, f.Severity, f.Summary, tt.sev, tt.want)
			}
			if len(f.Evidence) < 2 || !strings.HasPrefix(f.Evidence[0].Source, "p.txt:") {
				t.Errorf("evidence %+v", f.Evidence)
			}
		})
	}
}
