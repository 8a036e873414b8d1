package analyze

import (
	"slices"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the lines after normalize, joined by "\n"
		what string // a rewrite that must be noted ("" for none)
	}{
		// The lines of a ThinkPad T450s bug report pasted to a GitHub
		// issue: a list item quoting a journal, only its first line marked.
		{"lazy quote of a kernel log", "    - > _Mar 21 20:18:56 pc kernel: [   65.315783] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n  Mar 21 20:18:56 pc kernel: [   65.315792] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus._",
			"Mar 21 20:18:56 pc kernel: [   65.315783] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\nMar 21 20:18:56 pc kernel: [   65.315792] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus._", "markdown list and quote markers on a quoted log's first line"},
		// The same lines quoted once more by a mail reply: the lazy
		// quote shows once the reply's "> " is off.
		{"lazy quote of a kernel log, mail-quoted", ">     - > _Mar 21 20:18:56 pc kernel: [   65.315783] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n>   Mar 21 20:18:56 pc kernel: [   65.315792] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus._",
			"Mar 21 20:18:56 pc kernel: [   65.315783] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\nMar 21 20:18:56 pc kernel: [   65.315792] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus._", "markdown list and quote markers on a quoted log's first line"},
		{"a marked kernel line over prose stays", "- > [   65.315783] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\nthe GPU is gone",
			"- > [   65.315783] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\nthe GPU is gone", ""},
		// Quoted-printable mail bodies (realworld-fresh22 README:
		// dmesg-linuxpci-mlx5-vf-intr-remap-fault-create-eq-timeout-qp.txt,
		// dmesg-linuxpci-mlx5-maxcpus8-create-eq-timeout-quoted-qp.txt):
		// soft breaks join, escapes decode, the joined lines stay blank.
		{"quoted-printable soft breaks", "[Thu Oct 22 08:55:54 2020] mlx5_core 0000:42:00.2: wait_func_handle_exec_ti=\nmeout:1051:(pid 3390): cmd0: CREATE_EQ(0=C3=83=C2=97301) recovered after ti=\nmeout\n[Thu Oct 22 08:55:54 2020] DMAR: DRHD: handling fault status reg 102",
			"[Thu Oct 22 08:55:54 2020] mlx5_core 0000:42:00.2: wait_func_handle_exec_timeout:1051:(pid 3390): cmd0: CREATE_EQ(0\u00c3\u0097301) recovered after timeout\n\n\n[Thu Oct 22 08:55:54 2020] DMAR: DRHD: handling fault status reg 102", "quoted-printable mail encoding"},
		{"quoted-printable escapes under a quote", "> [ 1537.020001] mlx5_core 0000:d8:00.0: mlx5_cmd_eq_recover:245:(pid 1416)=\n:\n> Subject: mlx5_core receives no interrupts with maxcpus=3D8\n> [ 1475.991398] mlx5_core 0000:d8:00.0: E-Switch: Total vports 2, per vpor=\nt:",
			"[ 1537.020001] mlx5_core 0000:d8:00.0: mlx5_cmd_eq_recover:245:(pid 1416):\n\nSubject: mlx5_core receives no interrupts with maxcpus=8\n[ 1475.991398] mlx5_core 0000:d8:00.0: E-Switch: Total vports 2, per vport:\n", "quoted-printable mail encoding"},
		// The linux-pci mail (realworld-fresh22) quoted again by a reply:
		// the encoder's 76-column lines show once "> " is off.
		{"quoted-printable body quoted by a reply", "> [Thu Oct 22 08:55:54 2020] mlx5_core 0000:42:00.2: wait_func_handle_exec_ti=\n> meout:1051:(pid 3390): cmd0: CREATE_EQ(0x301) recovered after timeout abcde=\n> fgh\n> [Thu Oct 22 08:55:54 2020] DMAR: DRHD: handling fault status reg 102",
			"[Thu Oct 22 08:55:54 2020] mlx5_core 0000:42:00.2: wait_func_handle_exec_timeout:1051:(pid 3390): cmd0: CREATE_EQ(0x301) recovered after timeout abcdefgh\n\n\n[Thu Oct 22 08:55:54 2020] DMAR: DRHD: handling fault status reg 102", "quoted-printable mail encoding"},
		{"lines ending in = are not quoted-printable when short", "export NCCL_IB_HCA=\nexport NCCL_DEBUG=\nA=3D", "export NCCL_IB_HCA=\nexport NCCL_DEBUG=\nA=3D", ""},
		{"mail quoting", "> > > hca_id:\tmlx5_0\n> > >\ttransport:\tInfiniBand (0)\n> > >\n> > > hca_id:\tmlx5_1",
			"hca_id:\tmlx5_0\n\ttransport:\tInfiniBand (0)\n\nhca_id:\tmlx5_1", "mail or markdown quoting"},
		{"mixed quote depths", ">> CA 'mlx5_0'\n> \tCA type: MT4123\n>>\tPort 1:", "CA 'mlx5_0'\n\tCA type: MT4123\n\tPort 1:", "mail or markdown quoting"},
		{"one quoted line is text", "> this is prose\nCA 'mlx5_0'", "> this is prose\nCA 'mlx5_0'", ""},
		{"mpirun tags", "[1,0]<stdout>:# nThread 1\n[1,1]<stderr>:host:1:1 [0] NCCL INFO x\n[1,0]<stdout>:#  Rank  0",
			"# nThread 1\nhost:1:1 [0] NCCL INFO x\n#  Rank  0", "mpirun --tag-output labels"},
		{"mpirun tags, the first with a stray bracket (horovod/horovod#969)", "[[1,0]<stdout>:ptv-gpu01:11007:11098 [0] NCCL INFO rank 0 nranks 4\n[1,2]<stdout>:ptv-gpu01:11009:11097 [2] NCCL INFO rank 2 nranks 4",
			"ptv-gpu01:11007:11098 [0] NCCL INFO rank 0 nranks 4\nptv-gpu01:11009:11097 [2] NCCL INFO rank 2 nranks 4", "mpirun --tag-output labels"},
		{"mpirun tags under a list indent", "   [1,0]<stdout>:#  size\n   ...\n   [1,0]<stdout>:     8   2",
			"#  size\n   ...\n     8   2", "mpirun --tag-output labels"},
		// SkyPilot's per-node prefix over mpirun's tag (realworld-fresh57
		// README: nccl-tests-sky8019-coreweave-launcher-mpi-prefix-448gbs.txt):
		// both come off, one per round.
		{"SkyPilot label over an mpirun tag", "(head, rank=0, pid=3388) [1,0]<stdout>:   536870912     134217728     float     sum      -1   2367.3  226.78  425.22      0\n(head, rank=0, pid=3388) [1,0]<stdout>:  1073741824     268435456     float     sum      -1   4498.5  238.69  447.54      0",
			" 536870912     134217728     float     sum      -1   2367.3  226.78  425.22      0\n1073741824     268435456     float     sum      -1   4498.5  238.69  447.54      0", "Ray or SkyPilot worker labels"},
		{"Ray worker labels", "(pid=2111) CA 'mlx5_0'\n(RayTrainWorker pid=2111, ip=10.0.0.2) \tCA type: MT4123\n(worker1, rank=1, pid=977, ip=10.0.0.3) \tPort 1:\n(raylet) x",
			"CA 'mlx5_0'\n\tCA type: MT4123\n\tPort 1:\nx", "Ray or SkyPilot worker labels"},
		{"a parenthesised aside is not a label", "(see below) CA 'mlx5_0'\n(pid 12) x", "(see below) CA 'mlx5_0'\n(pid 12) x", ""},
		{"srun labels", "0: CA 'mlx5_0'\n0: \tCA type: MT4123\n1: CA 'mlx5_0'\n1: \tCA type: MT4123",
			"CA 'mlx5_0'\n\tCA type: MT4123\nCA 'mlx5_0'\n\tCA type: MT4123", "srun --label rank labels"},
		{"two numbered lines stay", "1: first\n2: second", "1: first\n2: second", ""},
		{"rank labels", "[0] # nThread 1\n[0] #  Rank  0 Group", "# nThread 1\n#  Rank  0 Group", "rank or line-number labels"},
		{"log viewer and torch rank labels", "[80746] [rank0]:[E321 02:07:08.4 ProcessGroupNCCL.cpp:607] x\n[80747] [rank4]:[E321 02:07:08.4 ProcessGroupNCCL.cpp:607] y",
			"[E321 02:07:08.4 ProcessGroupNCCL.cpp:607] x\n[E321 02:07:08.4 ProcessGroupNCCL.cpp:607] y", "rank or line-number labels"},
		{"ibnetdiscover port numbers are data", "[1]\t\"H-0002c9030001e3f2\"[1](2c9030001e3f3)\t\t# \"n1\" lid 2 4xQDR\n[2]\t\"S-0002c90200402a10\"[7]\t\t# \"sw\" lid 1 4xQDR",
			"[1]\t\"H-0002c9030001e3f2\"[1](2c9030001e3f3)\t\t# \"n1\" lid 2 4xQDR\n[2]\t\"S-0002c90200402a10\"[7]\t\t# \"sw\" lid 1 4xQDR", ""},
		{"C comment", "/*\n *         GPU0    NIC0    CPU Affinity\n * GPU0     X      NODE    0-31\n * NIC0    NODE     X\n *\n */",
			"/*\n        GPU0    NIC0    CPU Affinity\nGPU0     X      NODE    0-31\nNIC0    NODE     X\n\n */", "C comment markers"},
		{"perftest banner stars stay", "************************************\n* Waiting for client to connect... *\n************************************",
			"************************************\n* Waiting for client to connect... *\n************************************", ""},
		{"unified diff", "--- a\t2025\n+++ b\t2025\n@@ -1,3 +1,3 @@\n pci 0000:00:01.1: x\n-mlx4_core 0000:0f:00.0: old\n+mlx4_core 0000:0f:00.0: new",
			"\n\n\npci 0000:00:01.1: x\nmlx4_core 0000:0f:00.0: old\nmlx4_core 0000:0f:00.0: new", "unified diff markers"},
		{"collector timestamps", "2025-02-18 12:54:01 CA 'mlx5_0'\n2025-02-18 12:54:01 \tCA type: MT4123\n2025-02-18 12:54:02 \tPort 1:",
			"CA 'mlx5_0'\n\tCA type: MT4123\n\tPort 1:", "log collector timestamps"},
		{"a journal's own stamps stay", "2025-02-18T12:54:01+0100 gpu1 kernel: mlx5_core 0000:17:00.0: x\n2025-02-18T12:54:02+0100 gpu1 kernel: mlx5_core 0000:17:00.0: y",
			"2025-02-18T12:54:01+0100 gpu1 kernel: mlx5_core 0000:17:00.0: x\n2025-02-18T12:54:02+0100 gpu1 kernel: mlx5_core 0000:17:00.0: y", ""},
		{"markdown code block", "The port:\n\n    CA 'mlx5_0'\n    \tCA type: MT4123\n\n    \tPort 1:\nthanks",
			"The port:\n\nCA 'mlx5_0'\n\tCA type: MT4123\n\n\tPort 1:\nthanks", "a uniform indentation of 4 characters"},
		{"continuation lines keep their indent", "[ 1.0] NVRM: GPU at PCI:0000:17:00: GPU has fallen off the bus.\n        NVRM: GPU is on Board\n        NVRM: A GPU crash dump",
			"[ 1.0] NVRM: GPU at PCI:0000:17:00: GPU has fallen off the bus.\n        NVRM: GPU is on Board\n        NVRM: A GPU crash dump", ""},
		// Tab-indented dmesg records right under the command that printed
		// them (realworld-fresh27 dmesg-mstflint448-cx4lx-unraid-sriov-bar7-no-space-tabbed.txt).
		{"stamped records under their command", "dmesg | more | grep 04:00\n\t[    0.681114] pci 0000:04:00.0: [15b3:1015] type 00 class 0x020000\n\t[    0.710033] pci 0000:04:00.0: BAR 7: failed to assign [mem size 0x01000000 64bit pref]",
			"dmesg | more | grep 04:00\n[    0.681114] pci 0000:04:00.0: [15b3:1015] type 00 class 0x020000\n[    0.710033] pci 0000:04:00.0: BAR 7: failed to assign [mem size 0x01000000 64bit pref]", "a uniform indentation of 1 characters"},
		{"stray backtick", "`host:1:2 [0] NCCL WARN NET/IB : Got completion", "host:1:2 [0] NCCL WARN NET/IB : Got completion", "stray backticks"},
		{"fences stay", "```\nCA 'mlx5_0'\n```", "```\nCA 'mlx5_0'\n```", ""},
		{"quoted fences stay fences", "> ```\n> x0:1:1 [0] NCCL INFO Using network Socket\n> ```", "```\nx0:1:1 [0] NCCL INFO Using network Socket\n```", "mail or markdown quoting"},
		{"paste site line numbers", "  1. root@h:~# ibstat\n  2. CA 'mlx4_0'\n  3. CA type: MT4099\n  4. Port 1:\n  5. State: Down\n  6.  \n  7. root@h:~#",
			"root@h:~# ibstat\nCA 'mlx4_0'\nCA type: MT4099\nPort 1:\nState: Down\n \nroot@h:~#", "line numbers"},
		{"cat -n with a wrapped line", "     9\tCA 'mlx5_0'\n    10\t\tCA type: MT4123\n\t\twrapped tail\n    11\t\tPort 1:",
			"CA 'mlx5_0'\n\tCA type: MT4123\n\t\twrapped tail\n\tPort 1:", "line numbers"},
		{"code viewer bars", "12 | [  5.1] mlx5_core 0000:17:00.0: x\n13 | [  5.2] mlx5_core 0000:17:00.0: y\n14 | [  5.3] mlx5_core 0000:17:00.0: z",
			"[  5.1] mlx5_core 0000:17:00.0: x\n[  5.2] mlx5_core 0000:17:00.0: y\n[  5.3] mlx5_core 0000:17:00.0: z", "line numbers"},
		// An editor's line numbers glued to dmesg stamps, with or without a
		// space, a wrapped line among them (NVIDIA/gpu-operator#2511, analyze
		// testdata/realworld-fresh26, dmesg-gpuoperator2511-numbered-mlx5-slot-power-not-advertised.txt).
		{"line numbers glued to dmesg stamps",
			"1700[   22.316553] mlx5_core 0000:13:00.0: mlx5_pcie_event:297:(pid 11): PCIe slot power capability was not advertised.\n" +
				"1701 [   22.325345] mlx5_core 0000:63:00.0: 504.112 Gb/s available PCIe bandwidth (32.0 GT/s PCIe x16 link)\n" +
				"1702 [   22.648340] mlx5_core 0000:63:00.0: mlx5_pcie_event:297:(pid 2071): PCIe slot power capability was not advertised.\n" +
				"1703 [   22.654391] mlx5_core 0000:75:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)\n" +
				"1704 [   22.879706] input: AVOCENT  AVODSR XRIP SFIQ-VGA SMA as /devices/pci0000:70/0000:70:07.1/0000:71:00.4/usb4/4-1/4-1.\n" +
				"     2/4-1.2.1/4-1.2.1:1.0/0003:0624:0307.0001/input/input2\n" +
				"1705 [   22.960352] input: AVOCENT  AVODSR XRIP SFIQ-VGA SMA Mouse as /devices/pci0000:70/0000:70:07.1/0000:71:00.4/usb4/4-",
			"[   22.316553] mlx5_core 0000:13:00.0: mlx5_pcie_event:297:(pid 11): PCIe slot power capability was not advertised.\n" +
				"[   22.325345] mlx5_core 0000:63:00.0: 504.112 Gb/s available PCIe bandwidth (32.0 GT/s PCIe x16 link)\n" +
				"[   22.648340] mlx5_core 0000:63:00.0: mlx5_pcie_event:297:(pid 2071): PCIe slot power capability was not advertised.\n" +
				"[   22.654391] mlx5_core 0000:75:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)\n" +
				"[   22.879706] input: AVOCENT  AVODSR XRIP SFIQ-VGA SMA as /devices/pci0000:70/0000:70:07.1/0000:71:00.4/usb4/4-1/4-1.\n" +
				"     2/4-1.2.1/4-1.2.1:1.0/0003:0624:0307.0001/input/input2\n" +
				"[   22.960352] input: AVOCENT  AVODSR XRIP SFIQ-VGA SMA Mouse as /devices/pci0000:70/0000:70:07.1/0000:71:00.4/usb4/4-", "line numbers"},
		{"numbered stamped lines counting up",
			"1700[   22.316553] mlx5_core 0000:13:00.0: a\n1701 [   22.325345] mlx5_core 0000:63:00.0: b\n1702 [   22.648340] mlx5_core 0000:63:00.0: c",
			"[   22.316553] mlx5_core 0000:13:00.0: a\n[   22.325345] mlx5_core 0000:63:00.0: b\n[   22.648340] mlx5_core 0000:63:00.0: c", "line numbers"},
		{"numbers before a bracket that is no stamp stay", "1 [0] x\n2 [1] y\n3 [2] z", "1 [0] x\n2 [1] y\n3 [2] z", ""},
		{"a two-step list stays", "1. install\n2. reboot", "1. install\n2. reboot", ""},
		{"nccl-tests rows are not line numbers", "#       size         count      type\n           8             2     float     sum      -1    20.15    0.00    0.00      0\n          16             4     float     sum      -1    19.80    0.00    0.00      0\n          32             8     float     sum      -1    19.93    0.00    0.00      0",
			"#       size         count      type\n           8             2     float     sum      -1    20.15    0.00    0.00      0\n          16             4     float     sum      -1    19.80    0.00    0.00      0\n          32             8     float     sum      -1    19.93    0.00    0.00      0", ""},
		{"markdown list of output lines", "- hca_id: mthca0\n- transport: InfiniBand (0)\n- port: 1\n- state: PORT_INIT (2)",
			"hca_id: mthca0\ntransport: InfiniBand (0)\nport: 1\nstate: PORT_INIT (2)", "markdown list bullets"},
		{"ibdiagnet markers are not bullets", "-E- Link: a - Unexpected actual link speed 25\n-E- Link: b - x\n-I- done",
			"-E- Link: a - Unexpected actual link speed 25\n-E- Link: b - x\n-I- done", ""},
		// realworld-fresh8 nccl-tests-gistcswinter-v100-2node-sockets-ib-disabled.txt
		// (gist.github.com/cswinter/3bc2cbcc7c947e4a2736188dd6e74240 as a docs index stores it).
		{"docs index cell ends", "# bytes N type op time algbw busbw res time algbw busbw res | |\n1048576 262144 float sum 2.059 0.51 0.51 N/A 3.314 0.32 0.32 N/A | |",
			"# bytes N type op time algbw busbw res time algbw busbw res\n1048576 262144 float sum 2.059 0.51 0.51 N/A 3.314 0.32 0.32 N/A", "table cell ends"},
		{"one cell end is text", "| a | b | |\nCA 'mlx5_0'", "| a | b | |\nCA 'mlx5_0'", ""},
		{"nvidia-smi rows keep their bars", "| N/A   34C    P0    43W / 300W |      0MiB / 32510MiB |      0%      Default |\n| N/A   35C    P0    44W / 300W |      0MiB / 32510MiB |      0%      Default |",
			"| N/A   34C    P0    43W / 300W |      0MiB / 32510MiB |      0%      Default |\n| N/A   35C    P0    44W / 300W |      0MiB / 32510MiB |      0%      Default |", ""},
		// A four-level mail quote of a kernel log (linux-pci, analyze
		// testdata/realworld-fresh24, dmesg-linuxpci-edr-dpc-fatal-malftlp-nvme-quoted.txt);
		// three levels before a kernel line are a quote too, before other
		// text Python's prompt.
		{"four-level mail quote", ">>>> [ 6265.268757] pcieport 0000:a5:01.0: EDR: EDR event received\n>>>> [ 6265.276034] pcieport 0000:a5:01.0: EDR: Reported EDR dev: 0000:a9:10.0\n>>>> [ 6326.995253] nvme nvme1: Disabling device after reset failure: -5",
			"[ 6265.268757] pcieport 0000:a5:01.0: EDR: EDR event received\n[ 6265.276034] pcieport 0000:a5:01.0: EDR: Reported EDR dev: 0000:a9:10.0\n[ 6326.995253] nvme nvme1: Disabling device after reset failure: -5", "mail or markdown quoting"},
		{"three-level quote of kernel lines", ">>> [ 6265.268757] pcieport 0000:a5:01.0: EDR: EDR event received\n>>> [ 6265.276034] pcieport 0000:a5:01.0: EDR: Reported EDR dev: 0000:a9:10.0",
			"[ 6265.268757] pcieport 0000:a5:01.0: EDR: EDR event received\n[ 6265.276034] pcieport 0000:a5:01.0: EDR: Reported EDR dev: 0000:a9:10.0", "mail or markdown quoting"},
		{"Python prompt stays", ">>> import ucp\n>>> options = {\"MEMTYPE_CACHE\": \"n\"}\n>>> ucp.init(options)",
			">>> import ucp\n>>> options = {\"MEMTYPE_CACHE\": \"n\"}\n>>> ucp.init(options)", ""},
		{"a one-line paste quoted whole", "> link mlx5_7/1 state DOWN physical_state POLLING", "link mlx5_7/1 state DOWN physical_state POLLING", "mail or markdown quoting"},
		// ibstat copied out of a tmux pane (realworld-fresh38 README:
		// perftest-dockerib-mlx4-qdr-ibstat-devinfo-write-bw-mbs.txt): the
		// pane border "│" starts every line, blanks pad it to the pane.
		{"tmux pane border on the left", "│root@4129f2daa9bf:/# ibstat                   \n│CA 'mlx4_0'                                   \n│        CA type: MT4099                       \n│        Port 1:                               \n│                State: Active                 ",
			"root@4129f2daa9bf:/# ibstat                   \nCA 'mlx4_0'                                   \n        CA type: MT4099                       \n        Port 1:                               \n                State: Active                 ", "terminal pane borders"},
		{"pane borders on both sides, heavy and double", "┃CA 'mlx4_0'        ┃\n┃        Port 1:    ┃\n\n┃        State: Active┃\n║x ║\n║y ║\n║z║",
			"CA 'mlx4_0'\n        Port 1:\n\n        State: Active\nx\ny\nz", "terminal pane borders"},
		{"two lines with a box character stay", "│ a table cell │\n│ another │\nCA 'mlx4_0'", "│ a table cell │\n│ another │\nCA 'mlx4_0'", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ls := Lines(tc.in)
			got, rw := normalize(ls)
			if len(got) != len(ls) {
				t.Fatalf("normalize changed the line count: %d → %d", len(ls), len(got))
			}
			if g := strings.Join(got, "\n"); g != tc.want {
				t.Errorf("got\n%q\nwant\n%q", g, tc.want)
			}
			var whats []string
			for _, r := range rw {
				whats = append(whats, r.What)
				if r.Start < 1 || r.End < r.Start || r.End > len(ls) {
					t.Errorf("rewrite %+v out of the file's %d lines", r, len(ls))
				}
			}
			if tc.what == "" && len(rw) > 0 {
				t.Errorf("rewrites %v, want none", whats)
			}
			if tc.what != "" && !slices.Contains(whats, tc.what) {
				t.Errorf("rewrites %v, want %q among them", whats, tc.what)
			}
		})
	}
}

func TestLinesLineEnds(t *testing.T) {
	for _, in := range []string{"a\nb\nc\n", "a\r\nb\r\nc\r\n", "a\rb\rc\r", "a\r\nb\rc"} {
		if got := Lines(in); !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Errorf("Lines(%q) = %q", in, got)
		}
	}
}

// A wrapped paste is diagnosed as the bare output is, with evidence on
// the file's own line numbers.
func TestAnalyzeWrappedPaste(t *testing.T) {
	bare := "CA 'mlx5_0'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Polling\n\t\tRate: 10\n\t\tLink layer: InfiniBand\n"
	var quoted strings.Builder
	quoted.WriteString("Hi, ibstat says:\n\n")
	for _, l := range Lines(bare) {
		quoted.WriteString("> > " + l + "\r\n")
	}
	want := Run([]Input{{Name: "p", Text: bare}}, Options{})
	got := Run([]Input{{Name: "p", Text: quoted.String()}}, Options{})
	if got.Verdict != want.Verdict || len(got.Findings) != len(want.Findings) || len(want.Findings) == 0 {
		t.Fatalf("quoted: %s %d findings, bare: %s %d findings", got.Verdict, len(got.Findings), want.Verdict, len(want.Findings))
	}
	for i, f := range got.Findings {
		if f.ID != want.Findings[i].ID {
			t.Errorf("finding %d: %s, want %s", i, f.ID, want.Findings[i].ID)
		}
		for _, ev := range f.Evidence {
			if strings.HasPrefix(ev.Source, "p:") && ev.Source < "p:3" {
				t.Errorf("evidence %s: not on the file's line (the output starts at line 3)", ev.Source)
			}
		}
	}
	if len(got.Files[0].Normalized) == 0 {
		t.Error("no rewrite noted")
	}
}
