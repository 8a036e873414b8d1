package nccl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// TestOFIFewNICs: aws-ofi-nccl on a p4d.24xlarge that finds 1 of its 4
// EFA NICs (a Korean EFA setup guide, realworld-fresh50), against a p5
// that finds all 32 (realworld-fresh20) and logs that do not name the
// instance type.
func TestOFIFewNICs(t *testing.T) {
	const p4d = "ip-172-31-47-132:11752:11839 [6] NCCL INFO NET/OFI Running on p4d.24xlarge platform, Setting NCCL_TOPO_FILE environment variable to /opt/amazon/ofi-nccl/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml\n"
	tests := []struct {
		name, input string
		want        []string
		sum         []string
	}{
		{"p4d with 1 nic", p4d + "ip-172-31-47-132:11749:11843 [3] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 1 nics)\n",
			[]string{"nccl.efa_nics_missing/warning"}, []string{"found 1 NIC(s) on ip-172-31-47-132", "p4d.24xlarge has 4 EFA interfaces", "1/4"}},
		{"p4d with 4 nics", p4d + "ip-172-31-47-132:11749:11843 [3] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)\n", nil, nil},
		{"p5 with 32 nics", "h:1:2 [0] NCCL INFO NET/OFI Running on p5.48xlarge platform, Setting NCCL_TOPO_FILE environment variable to /x.xml\nh:1:2 [0] NCCL INFO NET/OFI Selected Provider is efa (found 32 nics)\n", nil, nil},
		{"p5 with 8 nics", "h:1:2 [0] NCCL INFO NET/OFI Running on p5.48xlarge platform, topology file /x.xml\nh:1:2 [0] NCCL INFO NET/OFI Selected Provider is efa (found 8 nics)\n",
			[]string{"nccl.efa_nics_missing/warning"}, []string{"found 8 NIC(s)", "8/32"}},
		{"instance type unknown", "h:1:2 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 1 nics)\n", nil, nil},
		{"platform on another host", p4d + "other:1:2 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 1 nics)\n", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := checkText(t, tt.input)
			if diff := cmp.Diff(tt.want, ids(a.Findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\n%+v", diff, a.Findings)
			}
			summaryHas(t, a, tt.sum, nil)
		})
	}
}

// checkText parses an NCCL log given as text and applies the log rules.
func checkText(t *testing.T, in string) *LogAnalysis {
	t.Helper()
	lg, err := nccllog.Parse(strings.NewReader(in), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	return CheckLog(lg, LogOptions{})
}

// summaryHas checks that the first finding's summary holds every string
// of has and none of lacks.
func summaryHas(t *testing.T, a *LogAnalysis, has, lacks []string) {
	t.Helper()
	if len(has)+len(lacks) == 0 {
		return
	}
	sum := a.Findings[0].Summary
	for _, s := range has {
		if !strings.Contains(sum, s) {
			t.Errorf("summary %q lacks %q", sum, s)
		}
	}
	for _, s := range lacks {
		if strings.Contains(sum, s) {
			t.Errorf("summary %q has %q", sum, s)
		}
	}
}

// TestCaughtReturnNotFailure: RCCL's DMA-BUF probe trace
// ("net_ib.cc:652 -> 2", src/transport/net_ib.cc ncclIbDmaBufSupport)
// followed by "Using network IB" is a note, not nccl.call_failed; the
// same trace with a warning after it, or climbing further, stays one.
func TestCaughtReturnNotFailure(t *testing.T) {
	const pre = "pdfc-aig-00000H:2664391:2666940 [5] NCCL INFO "
	const trace = pre + "/long_pathname_so_that_rpms_can_package_the_debug_info/src/rccl/build/hipify/src/transport/net_ib.cc:652 -> 2\n"
	tests := []struct {
		name, input string
		want        []string
		note        bool
	}{
		{"probe then Using network IB", pre + "Found /sys/kernel/mm/memory_peers/amdkfd/version\n" + trace + pre + "Using non-device net plugin version 0\n" + pre + "Using network IB\n", nil, true},
		{"trace alone", trace, []string{"nccl.call_failed/critical"}, false},
		{"trace climbs", trace + pre + "transport/net.cc:120 -> 2\n" + pre + "Using network IB\n", []string{"nccl.call_failed/critical"}, false},
		{"warning after", trace + "pdfc-aig-00000H:2664391:2666940 [5] NCCL WARN NET/IB : something failed\n" + pre + "Using network IB\n", []string{"nccl.call_failed/critical"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := checkText(t, tt.input)
			got := ids(a.Findings)
			if len(tt.want) > 0 && len(got) > 0 {
				got = got[:1]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\n%+v", diff, a.Findings)
			}
			noted := false
			for _, n := range a.Notes {
				if strings.Contains(n, "not a failed call") {
					noted = true
				}
			}
			if noted != tt.note {
				t.Errorf("note %v, want %v: %q", noted, tt.note, a.Notes)
			}
		})
	}
}
