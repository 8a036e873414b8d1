package host

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// TestDriverErrors: driver lines no rule classifies are one
// kmsg.driver_error (warning) per driver and device, counting the lines
// and citing the first and the last; where another warning or critical
// finding reports the same device (or, for lines that name no PCI
// function, a line of the same driver family), the lines are that
// finding's evidence instead. Lines: analyze testdata (realworld,
// realworld-fresh10, realworld-fresh9).
func TestDriverErrors(t *testing.T) {
	const (
		uar1  = "[  1.0] mlx5_core 0000:01:00.2: up_rel_func:90:(pid 4328): failed to free uar index 17"
		uar2  = "[  1.1] mlx5_core 0000:01:00.2: up_rel_func:90:(pid 4328): failed to free uar index 18"
		uar3  = "[  1.2] mlx5_core 0000:01:00.2: up_rel_func:90:(pid 4328): failed to free uar index 19"
		other = "[  1.3] mlx5_core 0000:01:00.3: up_rel_func:90:(pid 4328): failed to free uar index 20"
		mkey  = "[  2.0] infiniband mlx5_0: create_mkey_warn:158:(pid 0): async reg mr failed. status -121"
		cmd   = "[  2.1] mlx5_core 0000:41:00.0: mlx5_cmd_out_err:838:(pid 0): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x18af6), err(-12)"
		// Status 0x65 is NV_ERR_TIMEOUT; 0x0f (NV_ERR_GPU_IS_LOST) is
		// the GPU lost from the bus (rpcLost).
		rpc     = "[  3.0] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x00000065 for fn 78 sequence 7869!"
		rpcLost = "[  3.0] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 78 sequence 7869!"
		xid     = "[  3.1] NVRM: Xid (PCI:0000:01:00): 79, pid=1234, name=python, GPU has fallen off the bus."
		// drivers/nvme/host/pci.c nvme_timeout (the line from
		// realworld-fresh24 dmesg-linuxpci-edr-dpc-fatal-malftlp-nvme-quoted.txt, another controller).
		nvme = "[  4.0] nvme nvme0: I/O 1010 QID 3 timeout, aborting"
		// drivers/infiniband/hw/efa/efa_com.c efa_com_cmd_exec and
		// efa_verbs.c efa_alloc_pd (aws/aws-ofi-nccl#22,
		// realworld-fresh35 nccl-log-awsofinccl22-efa-couldnt-open-av-alloc-pd-dmesg.txt);
		// Linux 6.14 and later drop comp_status.
		efaPD    = "[ 1632.420956] infiniband efa_0: Failed to process command ALLOC_PD (opcode 14) comp_status 1 err -12"
		efaPD2   = "[ 1632.420957] infiniband efa_0: Failed to allocate pd[-12]"
		efaPDNew = "[ 1632.420956] infiniband efa_1: Failed to process command ALLOC_PD (opcode 14) err -12"
		efaQP    = "[ 1632.420956] infiniband efa_0: Failed to process command CREATE_QP (opcode 1) comp_status 1 err -12"
		efaPDInv = "[ 1632.420956] infiniband efa_0: Failed to process command ALLOC_PD (opcode 14) comp_status 5 err -22"
	)
	tests := []struct {
		name    string
		lines   []string
		want    []string
		summary string   // of the first finding
		cites   []string // the first finding's evidence sources
		remedy  string   // a remedy the first finding has ("" none checked)
		noRem   string   // a remedy it must not have
	}{
		{"one line", []string{uar1}, []string{"kmsg.driver_error/warning"},
			`mlx5_core 0000:01:00.2 logged 1 error line ibdoctor does not classify in the kernel log; the first: "up_rel_func:90:(pid 4328): failed to free uar index 17"`,
			[]string{"cmd/dmesg.txt:1"}, "mlxfwmanager --query", "nvidia-bug-report.sh"},
		{"three lines, first and last cited", []string{uar1, uar2, uar3}, []string{"kmsg.driver_error/warning"},
			"logged 3 error lines", []string{"cmd/dmesg.txt:1", "cmd/dmesg.txt:3"}, "", ""},
		// An LKML report (2006, MSI quirk thread): ib_mthca's own error, then
		// the driver core's probe failure (drivers/base/dd.c): the HCA never
		// came up.
		{"mthca probe failed", []string{"[  5.0] ib_mthca 0000:04:00.0: NOP command failed to generate interrupt (IRQ 217), aborting.", "[  5.1] ib_mthca: probe of 0000:04:00.0 failed with error -16"},
			[]string{"kmsg.driver_error/critical"}, "probe of the device failed (error -16)", []string{"cmd/dmesg.txt:1", "cmd/dmesg.txt:2"}, "", ""},
		{"two functions", []string{uar1, other}, []string{"kmsg.driver_error/warning", "kmsg.driver_error/warning"}, "0000:01:00.2", nil, "", ""},
		{"GPU driver without a device", []string{rpc}, []string{"kmsg.driver_error/warning"}, "NVRM logged 1 error line",
			[]string{"cmd/dmesg.txt:1"}, "nvidia-bug-report.sh", "mlxfwmanager"},
		{"NVMe controller", []string{nvme}, []string{"kmsg.driver_error/warning"}, "nvme nvme0 logged 1 error line",
			[]string{"cmd/dmesg.txt:1"}, "nvme smart-log /dev/nvme0", "mlxfwmanager"},
		// An efa device out of protection domains: every new user fails.
		{"efa out of protection domains", []string{efaPD, efaPD2}, []string{"kmsg.driver_error/critical"}, "infiniband efa_0 ran out of resources",
			[]string{"cmd/dmesg.txt:1", "cmd/dmesg.txt:2"}, "rdma resource show pd", "mlxfwmanager"},
		{"efa out of protection domains, newer wording", []string{efaPDNew}, []string{"kmsg.driver_error/critical"}, "efa_1 ran out of resources", nil, "", ""},
		{"efa allocation message alone", []string{efaPD2}, []string{"kmsg.driver_error/critical"}, "ran out of resources", nil, "", ""},
		{"efa other command out of resources", []string{efaQP}, []string{"kmsg.driver_error/warning"}, "does not classify", nil, "", ""},
		{"efa ALLOC_PD refused otherwise", []string{efaPDInv}, []string{"kmsg.driver_error/warning"}, "does not classify", nil, "", ""},
		// The refused command is the fault; the RDMA device's failed registrations are its consequence.
		{"covered by the mlx5 command failure", []string{mkey, cmd}, []string{"kmsg.mlx5_cmd_failed/warning"}, "CREATE_MKEY failed",
			[]string{"cmd/dmesg.txt:2", "cmd/dmesg.txt:1"}, "", ""},
		{"covered by the Xid", []string{rpc, xid}, []string{"gpu.xid/critical"}, "0000:01:00.0",
			[]string{"cmd/dmesg.txt:2", "cmd/dmesg.txt:1"}, "", ""},
		// A lost GPU's RPC names no GPU: the Xid 79's GPU is the one lost.
		{"lost-GPU RPC joins the Xid 79", []string{rpcLost, xid}, []string{"gpu.xid/critical"}, "0000:01:00.0",
			[]string{"cmd/dmesg.txt:2", "cmd/dmesg.txt:1"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := logOf(tt.lines...)
			fs := CheckPastedKernelLog(l, time.Time{}, 0)
			if got := ids(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("findings = %v, want %v", got, tt.want)
			}
			// The streamed reading gives the same findings.
			fold := NewKernelFolder()
			for _, e := range kmsg.Events(l.Records) {
				fold.Add(e)
			}
			if got, want := CheckPastedKernelEvents(l.Source, fold.Events()), fs; !slices.EqualFunc(got, want, sameFinding) {
				t.Errorf("streamed findings %+v, want %+v", got, want)
			}
			f := fs[0]
			if !strings.Contains(f.Summary, tt.summary) {
				t.Errorf("summary %q lacks %q", f.Summary, tt.summary)
			}
			if tt.cites != nil {
				var got []string
				for _, e := range f.Evidence {
					got = append(got, e.Source)
				}
				if !slices.Equal(got, tt.cites) {
					t.Errorf("evidence from %v, want %v", got, tt.cites)
				}
			}
			rem := strings.Join(f.Remedy, "\n")
			if tt.remedy != "" && !strings.Contains(rem, tt.remedy) {
				t.Errorf("remedies lack %q:\n%s", tt.remedy, rem)
			}
			if tt.noRem != "" && strings.Contains(rem, tt.noRem) {
				t.Errorf("remedies name %q:\n%s", tt.noRem, rem)
			}
		})
	}
}

// TestDriverErrorsStreamedCount: a flood of one driver's lines read as a
// stream is counted whole, with the first and last line cited.
func TestDriverErrorsStreamedCount(t *testing.T) {
	fold := NewKernelFolder()
	for i := 1; i <= 1000; i++ {
		fold.Add(kmsg.Event{Kind: kmsg.KindDriverError, Driver: "mlx5_core", PCI: "0000:01:00.2", Detail: "failed to free uar index 17",
			Record: kmsg.Record{Line: i, Text: "mlx5_core 0000:01:00.2: failed to free uar index 17"}})
	}
	if n := len(fold.Events()); n > 3 {
		t.Errorf("the folder keeps %d events for one device, want at most 3", n)
	}
	fs := CheckPastedKernelEvents("dmesg.txt", fold.Events())
	if len(fs) != 1 || !strings.Contains(fs[0].Summary, "logged 1000 error lines") {
		t.Fatalf("findings %+v, want one counting 1000 lines", fs)
	}
	if got := []string{fs[0].Evidence[0].Source, fs[0].Evidence[1].Source}; !slices.Equal(got, []string{"dmesg.txt:1", "dmesg.txt:1000"}) {
		t.Errorf("evidence from %v, want the first and the last line", got)
	}
}

func sameFinding(a, b finding.Finding) bool {
	return a.ID == b.ID && a.Summary == b.Summary && slices.Equal(a.Evidence, b.Evidence)
}

// TestCheckDriverErrorsOnANode: on a node (doctor) the rule runs on its
// own and leaves out the lines of a device another rule reports.
func TestCheckDriverErrorsOnANode(t *testing.T) {
	alone := "[  1.0] mlx5_core 0000:01:00.2: up_rel_func:90:(pid 4328): failed to free uar index 17"
	covered := []string{
		"[  2.0] mlx5_core 0000:01:00.2: up_rel_func:90:(pid 4328): failed to free uar index 17",
		"[  2.1] mlx5_core 0000:01:00.2: poll_health:795:(pid 0): Fatal error 1 detected",
	}
	if got := ids(checkDriverErrors(&Input{Snap: testNode(), Kernel: logOf(alone)})); !slices.Equal(got, []string{"kmsg.driver_error/warning"}) {
		t.Errorf("alone: findings %v, want one kmsg.driver_error", got)
	}
	if got := checkDriverErrors(&Input{Snap: testNode(), Kernel: logOf(covered...)}); len(got) != 0 {
		t.Errorf("covered by the health finding: findings %v, want none", ids(got))
	}
}
