package node

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

func TestCheckToolErrors(t *testing.T) {
	tests := []struct {
		name     string
		es       []ToolError
		want     []string // ID/severity/device
		sumHas   string
		noteHas  string
		evidence int
	}{
		{"ENOSYS is ib_uverbs missing", []ToolError{{Kind: "verbs_list_failed", Errno: "Function not implemented", Line: 2, Text: "Failed to get IB devices list: Function not implemented"}},
			[]string{"container.uverbs_missing/critical/"}, "modprobe ib_uverbs", "", 1},
		{"other errno is not judged", []ToolError{{Kind: "verbs_list_failed", Errno: "Cannot allocate memory", Line: 2}},
			nil, "", "Cannot allocate memory", 0},
		{"no errno is not judged", []ToolError{{Kind: "verbs_list_failed", Line: 4}},
			nil, "", "no reason printed", 0},
		{"open failed", []ToolError{{Kind: "open_device_failed", Line: 2, Text: "Failed to open device"}},
			[]string{"container.uverbs_missing/critical/"}, "docker run --device=/dev/infiniband", "", 1},
		{"perftest found none", []ToolError{{Kind: "no_verbs_device", Line: 2, Text: "Did not detect devices"}},
			[]string{"port.missing/critical/"}, "through libibverbs", "", 1},
		{"named device absent", []ToolError{{Kind: "ca_not_found", Device: "mlx5_9", Line: 2}},
			[]string{"port.missing/critical/mlx5_9"}, "mlx5_9", "", 1},
		{"stat failed is a warning", []ToolError{{Kind: "ca_stat_failed", Device: "mlx5_an0", Errno: "No such file or directory", Line: 2}},
			[]string{"port.missing/warning/mlx5_an0"}, "ls /sys/class/infiniband/mlx5_an0/ports/*/", "", 1},
		{"repeated stat once", []ToolError{{Kind: "ca_stat_failed", Device: "mlx5_0", Line: 2}, {Kind: "ca_stat_failed", Device: "mlx5_0", Line: 5}},
			[]string{"port.missing/warning/mlx5_0"}, "", "", 1},
		{"umad not loaded", []ToolError{
			{Kind: "umad_unavailable", Errno: "No such file or directory", Line: 2, Text: "ibwarn: [1] get_abi_version: can't read ABI version from /sys/class/infiniband_mad/abi_version (No such file or directory): is ib_umad module loaded?"},
			{Kind: "umad_unavailable", Line: 3, Text: "ibnetdiscover: iberror: failed: Failed to open '(null)' port '0'"}},
			[]string{"container.umad_missing/warning/"}, "modprobe ib_umad", "", 2},
		{"umad permission", []ToolError{{Kind: "umad_unavailable", Errno: "Permission denied", Line: 2, Text: "ibpanic: [1] main: can't init UMAD library: Permission denied"}},
			[]string{"container.umad_missing/warning/"}, "run the tool as root", "", 1},
		{"umad cause unknown", []ToolError{{Kind: "umad_unavailable", Line: 2, Text: "ibnetdiscover: iberror: failed: Failed to open '(null)' port '0'"}},
			[]string{"container.umad_missing/warning/"}, "ls -l /dev/infiniband", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, note := CheckToolErrors("p.txt", tt.es)
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity)+"/"+f.Subject.Device)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("findings %v, want %v", got, tt.want)
			}
			if tt.sumHas != "" && !strings.Contains(fs[0].Summary, tt.sumHas) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.sumHas)
			}
			if !strings.Contains(note, tt.noteHas) || (tt.noteHas == "") != (note == "") {
				t.Errorf("note %q, want one holding %q", note, tt.noteHas)
			}
			if len(fs) > 0 && len(fs[0].Evidence) != tt.evidence {
				t.Errorf("evidence %v, want %d items", fs[0].Evidence, tt.evidence)
			}
			for _, f := range fs {
				if f.Subject.File != "p.txt" || f.Severity == finding.Info {
					t.Errorf("finding %+v: want file p.txt and a warning or worse", f)
				}
			}
		})
	}
}

// TestDPDKNoVerbsCritical: a DPDK mlx PMD that finds no Verbs device for
// its NIC leaves the port unusable: critical, named by its PCI address.
func TestDPDKNoVerbsCritical(t *testing.T) {
	fs, _ := CheckToolErrors("p", []ToolError{{Kind: "dpdk_no_verbs_device", Device: "0000:c3:00.2", Line: 13, Text: "mlx5_common: No Verbs device matches PCI device 0000:c3:00.2, are kernel drivers loaded?"}})
	if len(fs) != 1 || fs[0].ID != "container.uverbs_missing" || fs[0].Severity != finding.Critical || fs[0].Subject.Device != "0000:c3:00.2" {
		t.Fatalf("%+v", fs)
	}
}
