package analyze

import (
	"strings"
	"unicode/utf8"

	"github.com/ibdoctor/ibdoctor/internal/parse/ibdev2netdev"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiagnet"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/lspci"
)

// Kind names a tool output format analyze recognises.
type Kind string

// The kinds, as --kind names them.
const (
	KindUnknown       Kind = ""
	KindIBStat        Kind = "ibstat"
	KindIBStatus      Kind = "ibstatus"
	KindDevinfo       Kind = "ibv_devinfo"
	KindRdma          Kind = "rdma"
	KindKernel        Kind = "dmesg"
	KindTopo          Kind = "nvidia-smi-topo"
	KindEthtool       Kind = "ethtool"
	KindNCCLLog       Kind = "nccl-log"
	KindNCCLTests     Kind = "nccl-tests"
	KindPerftest      Kind = "perftest"
	KindNetDiscover   Kind = "ibnetdiscover"
	KindLinkInfo      Kind = "iblinkinfo"
	KindQueryErrors   Kind = "ibqueryerrors"
	KindPerfQuery     Kind = "perfquery"
	KindForwardTables Kind = "dump_fts"
	KindSMInfo        Kind = "sminfo"
	KindSMPorts       Kind = "saquery-sm"
	KindIBDiagnet     Kind = "ibdiagnet"
	KindSARecords     Kind = "saquery"
	KindIBDev2Netdev  Kind = "ibdev2netdev"
	KindNvsmiQuery    Kind = "nvidia-smi-q"
	KindLspci         Kind = "lspci"
)

// KindInfo describes a kind for `--kind list`.
type KindInfo struct {
	Kind        Kind   `json:"kind"`
	Description string `json:"description"`
}

// Kinds lists every kind analyze can diagnose.
var Kinds = []KindInfo{
	{KindIBStat, "ibstat (port state, rate, firmware per HCA)"},
	{KindIBStatus, "ibstatus (port state and rate with width and lane speed)"},
	{KindDevinfo, "ibv_devinfo and ibv_devinfo -v"},
	{KindRdma, "rdma link show / rdma statistic show (iproute2)"},
	{KindKernel, "kernel log: dmesg, dmesg -T, journalctl -k, /dev/kmsg records"},
	{KindTopo, "nvidia-smi topo -m"},
	{KindEthtool, "ethtool -S <netdev>"},
	{KindNCCLLog, "NCCL debug log (NCCL_DEBUG=INFO or WARN)"},
	{KindNCCLTests, "nccl-tests output (all_reduce_perf …)"},
	{KindPerftest, "perftest output (ib_write_bw, ib_send_lat …)"},
	{KindNetDiscover, "ibnetdiscover"},
	{KindLinkInfo, "iblinkinfo"},
	{KindQueryErrors, "ibqueryerrors"},
	{KindPerfQuery, "perfquery"},
	{KindForwardTables, "dump_fts / ibroute"},
	{KindSMInfo, "sminfo"},
	{KindSMPorts, "saquery -s (the ports that run a subnet manager)"},
	{KindSARecords, "saquery record dumps (NodeRecord, PortInfoRecord …): read and summarised"},
	{KindNvsmiQuery, "nvidia-smi -q (its Remapped Rows and Retired Pages sections; a fragment or -d ROW_REMAPPER)"},
	{KindIBDev2Netdev, "ibdev2netdev and ibdev2netdev -v (RDMA port to netdev, Up/Down)"},
	{KindLspci, "sudo lspci -vvv (PCIe ACS of the switch ports between GPUs and NICs)"},
	{KindIBDiagnet, "ibdiagnet 1.x/2.x console output, ibdiagnet2.log excerpts, ibdiagnet2.db_csv sections, ibdiagnet(2).lst"},
}

// ParseKind checks a --kind value.
func ParseKind(s string) (Kind, bool) {
	for _, k := range Kinds {
		if string(k.Kind) == s {
			return k.Kind, true
		}
	}
	return KindUnknown, false
}

// Span is one segment of a paste: lines Start..End (1-based, inclusive)
// printed by one tool.
type Span struct {
	Kind  Kind `json:"kind"`
	Start int  `json:"start"`
	End   int  `json:"end"`
}

// Lines splits text into lines without their line ends: LF, CRLF, or a
// bare CR (old Mac files, PuTTY logs, a progress bar's redraws), each
// counted as one line end as editors count them.
func Lines(text string) []string {
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// header returns the kind whose output starts at line i (a header only
// that tool prints) and how many lines before i the header begins (the
// dashes above a perftest title, the "#" above ibnetdiscover's).
func header(ls []string, i int) (Kind, int) {
	l := ls[i]
	t := strings.TrimSpace(l)
	prev := ""
	if i > 0 {
		prev = strings.TrimSpace(ls[i-1])
	}
	if ok, back := ibdiagnet.Header(t, prev); ok {
		return KindIBDiagnet, back
	}
	switch {
	case t == "":
		return KindUnknown, 0
	case strings.HasPrefix(t, "CA '"):
		return KindIBStat, 0
	case strings.HasPrefix(t, "Infiniband device '") && strings.HasSuffix(t, "status:"):
		return KindIBStatus, 0
	case strings.HasPrefix(t, "hca_id:"):
		return KindDevinfo, 0
	case strings.HasPrefix(t, "port:") && strings.HasPrefix(strings.TrimSpace(next(ls, i)), "state:") && strings.Contains(next(ls, i), "PORT_") && !inHCABlock(ls, i):
		return KindDevinfo, 0 // a port block of ibv_devinfo pasted without its hca_id line
	case t == "NIC statistics:":
		return KindEthtool, 0
	case (isPrompt(l) || strings.HasPrefix(t, "ethtool -S ") || strings.HasPrefix(t, "ethtool --statistics ")) &&
		(strings.Contains(t, "ethtool -S ") || strings.Contains(t, "ethtool --statistics ")) && !strings.HasPrefix(strings.TrimSpace(next(ls, i)), "NIC statistics:"):
		return KindEthtool, 0 // the command (with or without a prompt) names the body that follows without its header
	case strings.HasPrefix(t, "show_counters ") || isHWCountersHeader(t) && !strings.HasPrefix(prev, "show_counters"):
		return KindRdma, 0 // MLNX_OFED show_counters: "Port 1 hw counters:"
	case strings.HasPrefix(t, "# nThread ") || strings.HasPrefix(t, "# Collective test starting") || strings.HasPrefix(t, "# nccl-tests version "):
		return KindNCCLTests, 0
	case ncclTestsTableHeader(t):
		// A pasted table without the banner (its "#" kept or stripped).
		if back := strings.TrimSpace(strings.TrimLeft(prev, "#")); strings.Contains(back, "out-of-place") {
			return KindNCCLTests, 1
		}
		return KindNCCLTests, 0
	case (strings.HasSuffix(t, " BW Test") || strings.HasSuffix(t, " Lat Test") || strings.HasSuffix(t, " Latency Test")) && isDashes(prev):
		return KindPerftest, 1
	case t == "* Waiting for client to connect... *":
		if strings.HasPrefix(prev, "****") {
			return KindPerftest, 1
		}
		return KindPerftest, 0
	case isTopoHeader(t):
		return KindTopo, 0
	case t == "==============NVSMI LOG==============",
		(t == "Remapped Rows" || t == "Retired Pages") && strings.Contains(next(ls, i), " : "),
		strings.HasPrefix(t, "GPU 0000") && !strings.Contains(t, " : ") && strings.Contains(next(ls, i), " : ") && strings.HasPrefix(next(ls, i), " "):
		return KindNvsmiQuery, 0 // nvidia-smi -q: its banner, a memory error section, or a GPU's block
	case strings.HasPrefix(t, "# Topology file: generated"):
		if prev == "#" {
			return KindNetDiscover, 1
		}
		return KindNetDiscover, 0
	case ibdiags.HostsLine(t):
		return KindNetDiscover, 0
	case strings.HasPrefix(t, "Unicast lids ["):
		return KindForwardTables, 0
	case strings.HasPrefix(t, "sminfo: sm lid "):
		return KindSMInfo, 0
	case t == "IsSM ports" || t == "IsSMdisabled ports":
		return KindSMPorts, 0
	case ibdiags.IsSARecordHeader(t):
		if strings.Contains(prev, "saquery") {
			return KindSARecords, 1 // the command line above
		}
		return KindSARecords, 0
	case strings.HasPrefix(t, "# Port counters: Lid ") || strings.HasPrefix(t, "# Port extended counters: Lid "):
		return KindPerfQuery, 0
	case strings.HasPrefix(t, "PortSelect:..") && !strings.HasPrefix(prev, "# Port") && !strings.HasPrefix(prev, "0x"):
		return KindPerfQuery, 0 // a perfquery block pasted without its header line (perfquery prints PortSelect first)
	case strings.HasPrefix(t, "Errors for ") || strings.HasPrefix(t, "## Summary:") && strings.Contains(t, "nodes checked") || ibdiags.LegacyLine(t) || ibdiags.ErrorPortLine(t):
		return KindQueryErrors, 0
	case strings.HasPrefix(t, "CA: ") || strings.HasPrefix(t, "Switch: 0x") || strings.HasPrefix(t, "Switch 0x") && strings.HasSuffix(t, ":"):
		return KindLinkInfo, 0
	case strings.HasPrefix(t, "LnkCap:") || strings.HasPrefix(t, "LnkSta:"):
		return KindLspci, 0 // lspci's link lines quoted without their device (or `lspci -vvv | grep Lnk`)
	case l == t && lspci.IsHeader(t):
		return KindLspci, 0 // "17:00.0 PCI bridge: …" at the start of the line
	}
	return KindUnknown, 0
}

// inHCABlock says whether line i follows an "hca_id:" line with no blank
// line between: a port block of that device, not an output of its own.
func inHCABlock(ls []string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		t := strings.TrimSpace(ls[j])
		if t == "" {
			return false
		}
		if strings.HasPrefix(t, "hca_id:") {
			return true
		}
	}
	return false
}

// ncclTestsTableHeader matches nccl-tests' column header "#  size  count
// type  redop  root  time  algbw  busbw  #wrong …", with or without "#".
func ncclTestsTableHeader(t string) bool {
	f := strings.Fields(strings.TrimLeft(t, "#"))
	return len(f) >= 6 && f[0] == "size" && f[1] == "count" && strings.Contains(t, "algbw") && strings.Contains(t, "busbw")
}

func isDashes(t string) bool {
	return len(t) >= 20 && strings.Trim(t, "-") == ""
}

// isTopoHeader matches the column header of `nvidia-smi topo -m` (its
// underline escapes removed).
func isTopoHeader(t string) bool {
	if !strings.Contains(t, "GPU0") || !strings.Contains(t, "Affinity") {
		return false
	}
	t = strings.ReplaceAll(strings.ReplaceAll(t, "\x1b[4m", ""), "\x1b[0m", "")
	return strings.HasPrefix(t, "GPU0")
}

// member returns the kind a line belongs to by its own shape, for tools
// whose outputs are runs of alike lines without a header: kernel logs,
// NCCL logs, rdma lines.
func member(l string) Kind {
	if l == "" {
		return KindUnknown
	}
	if strings.Contains(l, "NCCL INFO") || strings.Contains(l, "NCCL WARN") {
		return KindNCCLLog
	}
	if strings.HasPrefix(l, "link ") {
		f := strings.Fields(l)
		if len(f) >= 3 && strings.Contains(f[1], "/") {
			return KindRdma
		}
		// `rdma stat show -p`: "link mlx5_0/1" alone, its counters on
		// the indented lines below.
		if _, port, ok := strings.Cut(f[len(f)-1], "/"); len(f) == 2 && ok && port != "" && strings.Trim(port, "0123456789") == "" {
			return KindRdma
		}
	}
	if strings.Contains(l, "sys/class/infiniband/") && (strings.Contains(l, "/hw_counters/") || strings.Contains(l, "/counters/")) && strings.Contains(l, ":") {
		return KindRdma // grep . /sys/class/infiniband/*/ports/*/hw_counters/*
	}
	if l[0] == '[' {
		// ibnetdiscover's "[1]" port columns are not dmesg's "[  12.3]".
		end := strings.IndexByte(l, ']')
		if end < 0 || strings.Trim(l[1:end], "0123456789") == "" {
			return KindUnknown
		}
	}
	if kmsg.DetectLine(l) {
		return KindKernel
	}
	if strings.Contains(l, " ==> ") {
		if _, ok := ibdev2netdev.Line(l); ok {
			return KindIBDev2Netdev
		}
	}
	return KindUnknown
}

// deviceName returns the device (and port) an HCA output's header names:
// "mlx5_0" of "CA 'mlx5_0'", "mlx5_0/1" of ibstatus' block header.
func deviceName(k Kind, l string) string {
	t := strings.TrimSpace(l)
	switch k {
	case KindIBStat:
		return strings.TrimSuffix(strings.TrimPrefix(t, "CA '"), "'")
	case KindIBStatus:
		f := strings.Fields(t)
		if len(f) >= 5 {
			return f[2] + "/" + f[4]
		}
	case KindDevinfo:
		return strings.TrimSpace(strings.TrimPrefix(t, "hca_id:"))
	case KindIBDiagnet:
		// A second banner is the next ibdiagnet run.
		if strings.HasPrefix(t, "Running version:") || strings.HasPrefix(t, "Loading IBDIAGNET from:") {
			return "ibdiagnet banner"
		}
	}
	return ""
}

// isFence matches a markdown code fence ("```", "```bash").
func isFence(l string) bool {
	return strings.IndexByte(l, '`') >= 0 && strings.HasPrefix(strings.TrimSpace(l), "```")
}

// compatible says whether a line of kind m may sit inside a segment of kind
// k without starting a new one.
func compatible(k, m Kind) bool {
	return k == m || k == KindNCCLTests && m == KindNCCLLog || k == KindPerftest && m == KindNCCLLog
}

// isPrompt says whether a line is a shell prompt with a command ("$ ibstat",
// "[root@gpu17 ~]# dmesg -T", "user@host:~$ ethtool -S ens1", "# ibstat",
// or `set -x`'s "+ ibstat"): it belongs to the output that follows it.
func isPrompt(l string) bool {
	t := strings.TrimSpace(l)
	switch {
	case strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "+ "):
		return len(t) > 2
	case strings.HasPrefix(t, "# "):
		// "# ibstat" (a root prompt), not a "# nThread" comment line.
		w := strings.Fields(t[2:])
		if len(w) == 0 {
			return false
		}
		for _, c := range promptCommands {
			if strings.HasPrefix(w[0], c) {
				return true
			}
		}
		return false
	case strings.HasPrefix(t, "[") && (strings.Contains(t, "]# ") || strings.Contains(t, "]$ ")):
		return strings.Contains(t[:strings.IndexByte(t, ']')], "@")
	}
	// "user@host:~/dir$ cmd", "root@node2# cmd": the first word holds an
	// @ and ends in the prompt character.
	f := strings.Fields(t)
	if len(f) >= 2 && glyphPrompt(f[0]) {
		// zsh and fish themes: "➜  opensm git:(master) ✗ perfquery 5 1",
		// "❯ ibstat", "λ dmesg".
		return true
	}
	if len(f) >= 2 && consolePrompt(f[0]) {
		// A tool's own console: "sim> PerformanceSet …" (ibsim),
		// "ftp> get x".
		return true
	}
	if len(f) >= 2 && shellPrompt(f[0]) {
		// A container's shell without a host name: "bash-4.2# ibstat".
		return true
	}
	if len(f) >= 3 && strings.HasPrefix(f[0], "(") && strings.HasSuffix(f[0], ")") {
		f = f[1:] // a conda or venv name before the prompt: "(base) user@gpu1:~$ ibstat"
	}
	if len(f) < 2 || !strings.Contains(f[0], "@") || strings.HasPrefix(f[0], "@") {
		return false
	}
	if len(f) >= 3 && (f[1] == "%" || len(f) >= 4 && f[2] == "%") {
		return true // zsh's default "user@host ~ % cmd"
	}
	return strings.HasSuffix(f[0], "$") || strings.HasSuffix(f[0], "#")
}

// shellPrompt says whether a word is a shell's own prompt: "bash-4.2#",
// "sh-5.1$", "bash$".
func shellPrompt(w string) bool {
	if len(w) < 2 || w[len(w)-1] != '#' && w[len(w)-1] != '$' {
		return false
	}
	name, ver, _ := strings.Cut(w[:len(w)-1], "-")
	switch name {
	case "bash", "sh", "zsh", "ash", "dash", "ksh":
	default:
		return false
	}
	return strings.Trim(ver, "0123456789.") == ""
}

// promptCommands start the commands a root prompt "# …" is recognised by.
var promptCommands = []string{"ib", "rdma", "dmesg", "journalctl", "nvidia-smi", "ethtool", "mpirun", "srun", "all_", "perfquery", "dump_fts", "sminfo", "saquery", "cat", "sudo", "./", "show_gids", "mlx", "lspci", "setpci"}

// Split cuts a paste into spans, one per tool output, at the headers only
// one tool prints and where runs of alike lines (kernel log, NCCL log)
// begin and end. Spans cover every line in order; lines before the first
// recognised output form a KindUnknown span. Lines that fit no kind stay in
// the span they appear in (its parser reports them as skipped).
func Split(ls []string) []Span {
	var out []Span
	cur := Span{Kind: KindUnknown, Start: 1}
	open := func(k Kind, start int) {
		// A prompt (and blank lines) right above starts the new output.
		for p := start - 1; (p > cur.Start || p == cur.Start && cur.Kind == KindUnknown) && p >= start-3; p-- {
			if isPrompt(ls[p-1]) {
				start = p
				break
			}
			if strings.TrimSpace(ls[p-1]) != "" {
				break
			}
		}
		if start > cur.Start {
			cur.End = start - 1
			out = append(out, cur)
		}
		cur = Span{Kind: k, Start: start}
	}
	// Device names seen in the current HCA segment: a name seen again is
	// the next host's output (ibstat run over ssh on many nodes).
	seen := map[string]bool{}
	for i := range ls {
		n := i + 1
		// A markdown code fence (GitHub issues, chat) closes the output it
		// follows: the prose after it is not that tool's.
		if isFence(ls[i]) {
			if cur.Kind != KindUnknown {
				open(KindUnknown, n)
				clear(seen)
			}
			continue
		}
		if k, back := header(ls, i); k != KindUnknown {
			start := n - back
			if start < cur.Start {
				start = cur.Start
			}
			name := deviceName(k, ls[i])
			// saquery -s prints PortInfoRecord dumps under "IsSM ports".
			if k == KindSARecords && cur.Kind == KindSMPorts {
				continue
			}
			if k != cur.Kind || name != "" && seen[name] {
				open(k, start)
				clear(seen)
			}
			if name != "" {
				seen[name] = true
			}
			continue
		}
		if m := member(ls[i]); m != KindUnknown && !compatible(cur.Kind, m) {
			open(m, n)
		}
	}
	if len(ls) > 0 {
		cur.End = len(ls)
		out = append(out, cur)
	}
	return out
}

// isHWCountersHeader matches show_counters' "Port 1 hw counters:".
func isHWCountersHeader(t string) bool {
	return strings.HasPrefix(t, "Port ") && strings.HasSuffix(t, " hw counters:") && len(strings.Fields(t)) == 4
}

// next returns the line after i, "" at the end.
func next(ls []string, i int) string {
	if i+1 < len(ls) {
		return ls[i+1]
	}
	return ""
}

// glyphPrompt says whether a line's first word is the prompt glyph of a
// shell theme (oh-my-zsh robbyrussell's ➜, pure's and starship's ❯,
// powerlevel's ▶, fish's λ …): only such glyphs, which no tool starts an
// output line with, and no bullets of prose (•, ·, –).
func glyphPrompt(w string) bool {
	if w == "" || w[0] < utf8.RuneSelf {
		return false
	}
	for _, r := range w {
		if !strings.ContainsRune(promptGlyphs, r) {
			return false
		}
	}
	return true
}

// promptGlyphs are the characters shell themes draw their prompts with.
const promptGlyphs = "➜❯❮λ▶➤»❱⚡➔"

// consolePrompt says whether a word is an interactive console's prompt:
// a short lower-case name and '>' ("sim>", "ftp>").
func consolePrompt(w string) bool {
	name, ok := strings.CutSuffix(w, ">")
	if !ok || len(name) == 0 || len(name) > 12 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; (c < 'a' || c > 'z') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}
