package node

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestCheckAbsent: a pasted tool's own word that no RDMA device exists
// (clustervision/trinity#219's ibstatus) is port.missing, critical, with
// the tool's line as evidence; a named device is the subject.
func TestCheckAbsent(t *testing.T) {
	tests := []struct {
		name   string
		absent Absent
		dev    string
		says   string
	}{
		{"none at all", Absent{Line: 3, Text: "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)"}, "", "no RDMA device at all"},
		{"none through verbs", Absent{Line: 3, Text: "No IB devices found", Verbs: true}, "", "verbs provider"},
		{"named", Absent{Device: "mlx5_4", Line: 6, Text: "Fatal error:  device 'mlx5_4': sys files not found (/sys/class/infiniband/mlx5_4/ports)"}, "mlx5_4", "no RDMA device mlx5_4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckAbsent("p.txt", []Absent{tt.absent})
			if len(fs) != 1 {
				t.Fatalf("findings %+v", fs)
			}
			f := fs[0]
			if f.ID != "port.missing" || f.Severity != finding.Critical || f.Subject.Device != tt.dev || !strings.Contains(f.Summary, tt.says) {
				t.Errorf("finding %+v", f)
			}
			if len(f.Evidence) != 1 || f.Evidence[0].Value != tt.absent.Text || f.Evidence[0].Source != fmt.Sprintf("p.txt:%d", tt.absent.Line) {
				t.Errorf("evidence %+v", f.Evidence)
			}
		})
	}
	if fs := CheckAbsent("p.txt", nil); len(fs) != 0 {
		t.Errorf("no absent device: %+v", fs)
	}
}
