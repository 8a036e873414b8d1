package verbs

import (
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibvload"
)

// TestCheckCompares: passed compares are counted, a failed one is a
// critical verbs.data_mismatch on its device with its line.
func TestCheckCompares(t *testing.T) {
	pass, fs := CheckCompares("t.txt", []ibvload.Compare{
		{Line: 3, Device: "mlx4_0", Pass: true, Result: "PASS"},
		{Line: 7, Device: "mlx4_0", Pass: true, Result: "PASS"},
	})
	if pass != 2 || len(fs) != 0 {
		t.Fatalf("all passed: pass %d, findings %+v", pass, fs)
	}
	pass, fs = CheckCompares("t.txt", []ibvload.Compare{
		{Line: 3, Device: "mlx4_0", Pass: true, Result: "PASS"},
		{Line: 9, Device: "mlx4_1", Result: "FAIL"},
	})
	if pass != 1 || len(fs) != 1 {
		t.Fatalf("one failed: pass %d, findings %+v", pass, fs)
	}
	f := fs[0]
	if f.ID != "verbs.data_mismatch" || f.Severity != finding.Critical || f.Subject.Device != "mlx4_1" ||
		f.Evidence[0].Source != "t.txt:9" || f.Evidence[0].Value != "mlx4_1 rx_buffer compare : FAIL" {
		t.Errorf("finding %+v", f)
	}
}
