package host

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// TestCommandFailures: mlx5 firmware commands that failed with a status
// are kmsg.mlx5_cmd_failed (the firmware answered; the status says why),
// and kmsg.mlx5_health when the same function also failed fatally or
// its probe failed; a probe or load failure after a refused command is
// both, the command finding critical.
func TestCommandFailures(t *testing.T) {
	// openucx/ucx#6264 (realworld-fresh10): the MR cache and the
	// applications ran the HCA out of memory keys.
	const mkey = `[33058.244455] infiniband mlx5_0: create_mkey_warn:158:(pid 0): async reg mr failed. status -121
[33059.091463] mlx5_cmd_out_err: 353031 callbacks suppressed
[33059.091472] mlx5_core 0000:41:00.0: mlx5_cmd_out_err:800:(pid 233522): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x18af6), err(-12)
[33059.091476] mlx5_core 0000:41:00.0: mlx5_cmd_out_err:800:(pid 233532): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x18af6), err(-12)
`
	// linux-rdma, "mlx5: Regression VFs fail to probe on v6.8-rc1"
	// (realworld dmesg-linux-rdma-schnelle-vf-probe.txt).
	const tis = "[  110.734351] mlx5_core 0000:6f:08.2: mlx5_cmd_out_err:808:(pid 650): CREATE_TIS(0x912) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x595b5d), err(-22)\n"
	const probe = "[  110.749146] mlx5_core.eth: probe of mlx5_core.eth.2 failed with error -22\n"
	// linux-pci, "PCI: Reset IOV state on FLR to PF" (realworld
	// dmesg-linux-pci-yang-cx5-flr.txt): a VF's commands, the PF's fatal error.
	const rst = "[  446.080370] mlx5_core 0000:01:00.2: mlx5_cmd_check:782:(pid 4328): 2RST_QP(0x50a) op_mod(0x0) failed, status bad resource state(0x9), syndrome (0x7ea02d)\n"
	const fatal = "[  448.455025] mlx5_core 0000:01:00.0: poll_health:795:(pid 0): Fatal error 1 detected\n"
	const fatalVF = "[  448.455025] mlx5_core 0000:01:00.2: poll_health:795:(pid 0): Fatal error 1 detected\n"
	// linux-rdma, ConnectX-6 in Ethernet mode (realworld-fresh18): the
	// command error wrapped by the mailer, then the GID the kernel could
	// not add.
	const roceGID = "[    9.863871] mlx5_core 0000:01:00.0: mlx5_cmd_out_err:803:(pid\n1440): SET_ROCE_ADDRESS(0x761) op_mod(0x0) failed, status bad\nparameter(0x3), syndrome (0x63c66), err(-22)\n" +
		"[    9.881250] infiniband mlx5_2: add_roce_gid GID add failed port=1 index=0\n" +
		"[    9.889095] __ib_cache_gid_add: unable to add gid\nfe80:0000:0000:0000:ad3e:e3ff:fe92:b31b error=-22\n"
	// linux-rdma, ConnectX-4 Lx that boots without networking after a
	// driver commit (realworld-fresh22 README,
	// dmesg-linuxrdma-cx4lx-create-eq-bad-param-probe-failed-lspci.txt):
	// the pre-5.19 mlx5_cmd_check wording, without "err(", wrapped.
	const createEQ = "[   92.471247] mlx5_core 0000:0b:00.0: mlx5_cmd_check:744:(pid 13):\nCREATE_EQ(0x301) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x8fef)\n" +
		"[   92.630541] mlx5_core 0000:0b:00.0: mlx5_load:1053:(pid 13): Failed to create EQs\n" +
		"[   94.879657] mlx5_core: probe of 0000:0b:00.0 failed with error -22\n"
	tests := []struct {
		name, text string
		want       []string
		summary    []string // substrings of the first finding's summary
		causes     int      // causes kept on the first finding
	}{
		{name: "limits exceeded", text: mkey, want: []string{"kmsg.mlx5_cmd_failed/warning"},
			summary: []string{"CREATE_MKEY failed, status limits exceeded(0x8)", "2 messages", "353031 more", "memory keys", "not a device fault"}, causes: 1},
		{name: "bad parameter alone", text: tis, want: []string{"kmsg.mlx5_cmd_failed/warning"},
			summary: []string{"CREATE_TIS failed, status bad parameter(0x3)", "refused what the driver asked"}, causes: 1},
		{name: "both kinds on one function", text: mkey + strings.ReplaceAll(tis, "6f:08.2", "41:00.0"), want: []string{"kmsg.mlx5_cmd_failed/warning"},
			summary: []string{"memory keys", "refused what the driver asked"}, causes: 2},
		{name: "probe failure after the command", text: tis + probe, want: []string{"kmsg.mlx5_cmd_failed/critical"},
			summary: []string{"CREATE_TIS failed", "then the function failed", "probe of mlx5_core.eth.2 failed"}, causes: 1},
		{name: "old mlx5_cmd_check, then the load failed", text: createEQ, want: []string{"kmsg.mlx5_cmd_failed/critical"},
			summary: []string{"CREATE_EQ failed, status bad parameter(0x3), syndrome 0x8fef", "probe of 0000:0b:00.0 failed with error -22", "refused what the driver asked"}, causes: 1},
		{name: "fatal on the same function", text: rst + fatalVF, want: []string{"kmsg.mlx5_health/critical"},
			summary: []string{"2RST_QP failed", "Fatal error 1 detected"}},
		{name: "SET_ROCE_ADDRESS refused, wrapped by the mailer", text: roceGID, want: []string{"kmsg.mlx5_cmd_failed/warning"},
			summary: []string{"SET_ROCE_ADDRESS failed, status bad parameter(0x3)", "RoCE GID table", "RDMA-CM and NCCL connections over that GID fail"}, causes: 1},
		{name: "fatal on another function", text: rst + fatal, want: []string{"kmsg.mlx5_health/critical", "kmsg.mlx5_cmd_failed/warning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := kmsg.ParseText(strings.NewReader(tt.text), tt.name, kmsg.TextOptions{Year: 2025})
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckPastedKernelLog(l, time.Time{}, 0)
			if got := ids(fs); !slices.Equal(got, tt.want) {
				for _, f := range fs {
					t.Logf("%s %s: %s", f.ID, f.Severity, f.Summary)
				}
				t.Fatalf("findings = %v, want %v", got, tt.want)
			}
			for _, s := range tt.summary {
				if !strings.Contains(fs[0].Summary, s) {
					t.Errorf("summary %q lacks %q", fs[0].Summary, s)
				}
			}
			if tt.causes > 0 && len(fs[0].Causes) != tt.causes {
				t.Errorf("causes = %q, want %d", fs[0].Causes, tt.causes)
			}
		})
	}
}

// TestAERReports: the log's AER reports are counted by the severities
// seen, without a "0 correctable" and with the singular for one.
func TestAERReports(t *testing.T) {
	tests := []struct {
		corr, uncorr int
		want         string
	}{
		{0, 1, "1 uncorrectable report"},
		{0, 4, "4 uncorrectable reports"},
		{1, 0, "1 correctable report"},
		{12, 0, "12 correctable reports"},
		{3, 1, "3 correctable and 1 uncorrectable reports"},
	}
	for _, tt := range tests {
		if got := aerReports(tt.corr, tt.uncorr); got != tt.want {
			t.Errorf("aerReports(%d, %d) = %q, want %q", tt.corr, tt.uncorr, got, tt.want)
		}
	}
}

// TestPCIeBandwidthSeverity: the kernel's bandwidth line is critical only
// on a device that carries a training job's traffic: one the line's RDMA
// driver names, the host's HCA, or the host's 3D-controller GPU (NVIDIA's
// data-center class); the enumeration line of a desktop GTX 980
// (pastebin.com/DMWXv9r9, analyze testdata/realworld-fresh17: "pci
// 0000:0b:00.0: …") names nothing and is a warning.
func TestPCIeBandwidthSeverity(t *testing.T) {
	tests := []struct {
		name, line, want, summary string
	}{
		{"bandwidth line of an unnamed device", "Jun 08 22:43:06 host kernel: pci 0000:0b:00.0: 31.504 Gb/s available PCIe bandwidth, limited by 8 GT/s x4 link at 0000:00:03.2 (capable of 126.016 Gb/s with 8 GT/s x16 link)", "pcie.link_degraded/warning", "neither the line nor the host names the device"},
		{"bandwidth line of the host's HCA", "[ 1.0] pci 0000:04:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:02:01.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)", "pcie.link_degraded/critical", "the device is a network adapter"},
		{"bandwidth line named by an RDMA driver", "[ 1.0] mlx5_core 0000:3b:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:3a:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)", "pcie.link_degraded/critical", "the device is a network adapter"},
		{"bandwidth line of the host's 3D-controller GPU", "[ 1.0] pci 0000:03:00.0: 126.024 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link at 0000:02:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)", "pcie.link_degraded/critical", "the device is a data-center GPU"},
		{"bandwidth line of a GPU the nvidia driver names, model unknown", "[ 1.0] nvidia 0000:0b:00.0: 31.504 Gb/s available PCIe bandwidth, limited by 8 GT/s x4 link at 0000:00:03.2 (capable of 126.016 Gb/s with 8 GT/s x16 link)", "pcie.link_degraded/warning", "worth fixing for the device's own throughput"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := checkPCIeBandwidth(&Input{Snap: testNode(), Kernel: logOf(tt.line)})
			if got := ids(fs); len(got) != 1 || got[0] != tt.want {
				t.Fatalf("findings = %v, want [%s]", got, tt.want)
			}
			if !strings.Contains(fs[0].Summary, tt.summary) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.summary)
			}
		})
	}
}

// TestGPUResetRequired: the NVIDIA driver's NV_ERR_RESET_REQUIRED, printed
// with no Xid, is gpu.reset_required (critical), one finding for the GPU
// the lines name, or for the host; another GSP RPC status is not (the
// catch-all kmsg.driver_error reports it).
// Lines: analyze testdata/realworld-fresh21 README,
// dmesg-sichek51-gsp-reset-required-nccltest.txt.
func TestGPUResetRequired(t *testing.T) {
	const rpc = "[Sun Jan 11 09:52:01 2026] NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; hParent=0x5c000054; hObject=0x5c00005b; hClass=0x0000c86f; paramsSize=0x00000170; paramsStatus=0x00000062; status=0x00000062\n"
	const assert = "[Sun Jan 11 09:52:01 2026] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2874\n"
	tests := []struct {
		name, text string
		want       []string
		summary    string
	}{
		{"both lines", rpc + assert, []string{"gpu.reset_required/critical"}, "(2 messages"},
		{"the assert alone", assert, []string{"gpu.reset_required/critical"}, "needs a reset: NV_ERR_RESET_REQUIRED"},
		// A constructed line: the status with the "NVRM: GPU <bdf>: " prefix the driver puts on per-GPU lines.
		{"the GPU named", "[  12.1] NVRM: GPU 0000:1b:00.0: RmInitAdapter failed! (0x62:NV_ERR_RESET_REQUIRED:1234)\n", []string{"gpu.reset_required/critical"}, "GPU 0000:1b:00.0"},
		// Another status is no reset: a GSP call the driver says failed, in no wording a rule knows.
		{"another GSP status", strings.ReplaceAll(rpc, "0x00000062", "0x00000051"), []string{"kmsg.driver_error/warning"}, "NVRM logged 1 error line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := kmsg.ParseText(strings.NewReader(tt.text), tt.name, kmsg.TextOptions{Year: 2026})
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckPastedKernelLog(l, time.Time{}, 0)
			if got := ids(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("findings = %v, want %v", got, tt.want)
			}
			if tt.summary != "" && !strings.Contains(fs[0].Summary, tt.summary) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.summary)
			}
		})
	}
}
