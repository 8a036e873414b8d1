package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
)

// TestCheckPastedHandleErrors: nvidia-smi's "Unable to determine the
// device handle" is a lost GPU (gpu.fallen_off_bus, critical) for "Unknown
// Error" and "GPU is lost", once per GPU; "Not Found" is a note, not a
// finding. The first line is rwth-i6/returnn#1486 (analyze
// testdata/realworld-fresh19 dmesg-returnn1486-nvsmi-gpu-unknown-error-aer-dll-timeout.txt).
func TestCheckPastedHandleErrors(t *testing.T) {
	tests := []struct {
		name   string
		lines  []string
		want   []string // ID/severity
		inSum  string
		notes  int
		subjPC string
	}{
		{"unknown error", []string{"Unable to determine the device handle for GPU0000:03:00.0: Unknown Error"},
			[]string{"gpu.fallen_off_bus/critical"}, "nvidia-smi cannot reach GPU 0000:03:00.0 (NVML: Unknown Error)", 0, "0000:03:00.0"},
		{"index and address, twice", []string{"Unable to determine the device handle for GPU3: 0000:5F:00.0: Unknown Error",
			"Unable to determine the device handle for GPU3: 0000:5F:00.0: Unknown Error"},
			[]string{"gpu.fallen_off_bus/critical"}, "GPU3 (0000:5f:00.0)", 0, "0000:5f:00.0"},
		{"GPU is lost", []string{"Unable to determine the device handle for gpu 0000:3b:00.0: GPU is lost.  Reboot the system to recover this GPU"},
			[]string{"gpu.fallen_off_bus/critical"}, "GPU is lost", 0, "0000:3b:00.0"},
		{"not found", []string{"Unable to determine the device handle for GPU 0000:01:00.0: Not Found"}, nil, "", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs []nvsmi.HandleError
			for i, l := range tt.lines {
				h, ok := nvsmi.HandleErrorLine(l)
				if !ok {
					t.Fatalf("%q not read", l)
				}
				h.Line = i + 1
				errs = append(errs, h)
			}
			fs, notes := CheckPastedHandleErrors(errs, "paste.txt")
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("findings %v, want %v", got, tt.want)
			}
			if len(notes) != tt.notes {
				t.Errorf("notes %q, want %d", notes, tt.notes)
			}
			if len(fs) == 0 {
				return
			}
			if !strings.Contains(fs[0].Summary, tt.inSum) || fs[0].Subject.PCI != tt.subjPC || fs[0].Severity != finding.Critical {
				t.Errorf("finding %+v", fs[0])
			}
		})
	}
}

func TestGPUKey(t *testing.T) {
	for _, c := range []struct {
		s    finding.Subject
		want string
	}{
		{finding.Subject{PCI: "0000:01:00.0"}, "0000:01:00"},
		{finding.Subject{GPU: "00000000:3B:00.0"}, "0000:3b:00"},
		{finding.Subject{PCI: "PCI:0000:01:00"}, "0000:01:00"},
		{finding.Subject{GPU: "01:00.0"}, "0000:01:00"},
		{finding.Subject{Device: "mlx5_0"}, ""},
		{finding.Subject{GPU: "GPU-7540a9b3"}, ""},
	} {
		if got := GPUKey(c.s); got != c.want {
			t.Errorf("GPUKey(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestIsGPULoss(t *testing.T) {
	for _, c := range []struct {
		f    finding.Finding
		want bool
	}{
		{finding.Finding{ID: "gpu.fallen_off_bus"}, true},
		{finding.Finding{ID: "gpu.xid", Summary: "Xid 79 on GPU 0000:01:00.0: the GPU has fallen off the PCIe bus"}, true},
		{finding.Finding{ID: "gpu.xid", Summary: "Xid 48 on GPU 0000:01:00.0"}, false},
		{finding.Finding{ID: "pcie.aer_errors"}, false},
	} {
		if got := IsGPULoss(&c.f); got != c.want {
			t.Errorf("IsGPULoss(%s %q) = %v, want %v", c.f.ID, c.f.Summary, got, c.want)
		}
	}
}
