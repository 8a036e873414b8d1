package host

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestKnownFailure: the rule itself, on the lines of realworld-fresh72's
// MLNX_EN restart and GPFS log; lines of other services are left to the
// generic failure lines (nil).
func TestKnownFailure(t *testing.T) {
	for _, tc := range []struct {
		name, text, id string
		line           int
		says           string
	}{
		{"module of the RDMA stack", "Loading HCA driver and Access Layer:                       [  OK  ]\nLoading rdma_ucm                                           [FAILED]\n",
			"kmsg.module_load_failed", 11, "failed to load rdma_ucm"},
		{"GPFS verbs shutdown", "x\nMon Jan  8 09:00:01.123 2024: [E] VERBS RDMA Shutdown because pagepool could not be registered to Infiniband.\n",
			"rdma.transport_unavailable", 11, "because pagepool could not be registered to Infiniband"},
		{"another service", "Starting httpd:                                            [FAILED]\n", "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := KnownFailure("k.txt", strings.Split(strings.TrimSuffix(tc.text, "\n"), "\n"), 10, 200)
			if tc.id == "" {
				if f != nil {
					t.Fatalf("got %s, want none", f.ID)
				}
				return
			}
			if f == nil || f.ID != tc.id || f.Severity != finding.Critical || !strings.Contains(f.Summary, tc.says) {
				t.Fatalf("got %+v, want %s critical saying %q", f, tc.id, tc.says)
			}
			if want := fmt.Sprintf("k.txt:%d", tc.line); f.Evidence[0].Source != want {
				t.Errorf("evidence at %s, want %s", f.Evidence[0].Source, want)
			}
		})
	}
}
