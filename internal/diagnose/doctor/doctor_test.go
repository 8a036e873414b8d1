package doctor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
)

func TestNextSteps(t *testing.T) {
	f := func(id string, sev finding.Severity, remedy ...string) finding.Finding {
		return finding.Finding{ID: id, Severity: sev, Remedy: remedy}
	}
	fs := []finding.Finding{
		f("port.down", finding.Critical, "reseat the cable"),
		f("port.down", finding.Critical, "reseat the other cable"),
		f("pcie.aer_errors", finding.Warning),
		f("gpu.xid", finding.Warning, "nvidia-smi -q"),
		f("port.errors", finding.Info, "watch the counters"),
		f("nccl.ib_disabled", finding.Warning, "unset NCCL_IB_DISABLE"),
	}
	ids := func(fs []finding.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID+": "+f.Remedy[0])
		}
		return out
	}
	tests := []struct {
		name string
		max  int
		want []string
	}{
		// One per ID, the first; none without a remedy; no notes.
		{"all", 5, []string{"port.down: reseat the cable", "gpu.xid: nvidia-smi -q", "nccl.ib_disabled: unset NCCL_IB_DISABLE"}},
		{"at most 2", 2, []string{"port.down: reseat the cable", "gpu.xid: nvidia-smi -q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, ids(NextSteps(fs, tt.max))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestTally(t *testing.T) {
	r := &Result{
		Findings: []finding.Finding{
			{ID: "port.down", Severity: finding.Critical},
			{ID: "port.down", Severity: finding.Warning},
			{ID: "gpu.xid", Severity: finding.Critical},
			{ID: "nccl.ib_disabled", Severity: finding.Info},
		},
		Skipped: map[int]bool{finding.StepContainer: true, finding.StepNCCL: true},
	}
	tests := []struct {
		step int
		want Tally
	}{
		{finding.StepPort, Tally{Critical: 1, Warning: 1}},
		{finding.StepKernelLog, Tally{Critical: 1}},
		{finding.StepNCCL, Tally{Info: 1, Skipped: true}},
		{finding.StepContainer, Tally{Skipped: true}},
		{finding.StepHost, Tally{}},
	}
	for _, tt := range tests {
		if got := r.Tally(tt.step); got != tt.want {
			t.Errorf("step %d: %+v, want %+v", tt.step, got, tt.want)
		}
	}
}

// TestDiagnoseBundle runs the runbook without the command: a simulated
// node's bundle with an NCCL log that is not one, and a job environment
// given by the caller.
func TestDiagnoseBundle(t *testing.T) {
	fault, err := simnode.ParseFault("xid:gpu1=48")
	if err != nil {
		t.Fatal(err)
	}
	n, err := simnode.Build(simnode.Options{Profile: "h100-ndr", Host: "gpu017", Faults: []simnode.Fault{fault}})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "gpu017.tar.gz")
	var buf bytes.Buffer
	if err := n.WriteTarGz(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	env := ncclenv.FromList("test", []string{"NCCL_IB_DISABLE=1"})
	now := func() time.Time { return time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC) }
	r, err := Diagnose(context.Background(), Options{Root: root, Env: env, NCCLLog: []byte{0xff, 0xfe, 0}, NCCLLogName: "rank0.log", Since: 0, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range r.Findings {
		ids = append(ids, f.ID)
	}
	// Ordered by severity, then runbook step: the Xid (kernel log, 3)
	// before NCCL_IB_DISABLE (NCCL configuration, 5).
	if i, j := slices.Index(ids, "gpu.xid"), slices.Index(ids, "nccl.ib_disabled"); i < 0 || j < i {
		t.Errorf("findings %v: want gpu.xid, then nccl.ib_disabled", ids)
	}
	if r.Host != "gpu017" || r.ExitCode != finding.ExitCode(r.Findings) || r.Topology == nil || r.Snap == nil || r.Root != root {
		t.Errorf("host %q exit %d topology %v", r.Host, r.ExitCode, r.Topology)
	}
	if !slices.ContainsFunc(r.NotChecked, func(s string) bool { return strings.HasPrefix(s, "NCCL log rank0.log: ") }) {
		t.Errorf("a bad NCCL log is not a note: %q", r.NotChecked)
	}
	if _, err := Diagnose(context.Background(), Options{Root: filepath.Join(t.TempDir(), "none")}); err == nil {
		t.Error("a missing root diagnosed")
	}
}

func TestUngroupedGaps(t *testing.T) {
	r := &Result{Gaps: []snapshot.Gap{{Path: "a/config"}, {Path: "b/rate"}, {Path: "c/config"}}, Grouped: []string{"a/config", "c/config"}}
	if g := r.UngroupedGaps(); len(g) != 1 || g[0].Path != "b/rate" {
		t.Errorf("ungrouped %+v", g)
	}
}

// The doctor reads PCIe ACS from config space: redirecting bridges are a
// warning, and config readable only in its header (no root) leaves step 2
// not fully checked with a note, not a pass.
func TestDiagnoseACS(t *testing.T) {
	for _, tt := range []struct {
		fault   string
		want    []string
		skipped bool
	}{
		{"acs=off", nil, false},
		{"acs=on", []string{"pcie.acs_redirect"}, false},
		{"acs=header-only", nil, true},
	} {
		t.Run(tt.fault, func(t *testing.T) {
			n, err := simnode.Build(simnode.Options{Profile: "h100-ndr", Host: "gpu017", Faults: simnode.MustParseFaults(tt.fault)})
			if err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(t.TempDir(), "gpu017.tar.gz")
			var buf bytes.Buffer
			if err := n.WriteTarGz(&buf); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(root, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Diagnose(context.Background(), Options{Root: root, Env: ncclenv.FromList("test", nil)})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, f := range r.Findings {
				ids = append(ids, f.ID)
			}
			// One note names every unread bridge and how to read them;
			// the text report prints it instead of one gap per bridge,
			// the JSON keeps the gaps.
			noted := slices.ContainsFunc(r.NotChecked, func(s string) bool {
				return strings.HasPrefix(s, "PCIe ACS not checked on 20 of 20 bridges between GPUs and NICs (0000:16:00.0 0000:17:00.0 ") &&
					strings.Contains(s, " 0000:b7:03.0)") && strings.Contains(s, "run the doctor as root") && strings.Contains(s, "sudo lspci -vvv")
			})
			if !slices.Equal(ids, tt.want) || r.Skipped[finding.StepPCIe] != tt.skipped || noted != tt.skipped {
				t.Errorf("findings %v, step 2 skipped %v, notes %q; want %v, %v", ids, r.Skipped[finding.StepPCIe], r.NotChecked, tt.want, tt.skipped)
			}
			wantGrouped := 0
			if tt.skipped {
				wantGrouped = 20
			}
			if len(r.Grouped) != wantGrouped || len(r.Gaps) != wantGrouped || len(r.UngroupedGaps()) != 0 {
				t.Errorf("%d gaps, %d grouped, %d ungrouped; want %d, %d, 0", len(r.Gaps), len(r.Grouped), len(r.UngroupedGaps()), wantGrouped, wantGrouped)
			}
		})
	}
}
