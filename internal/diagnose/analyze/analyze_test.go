package analyze

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/hcatext"
)

func read(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// piece is one tool output of the concatenated paste and the kind and
// findings it must produce there.
type piece struct {
	file     string
	kind     Kind
	findings []string // ID/severity, sorted
}

var pieces = []piece{
	{"ibstat-cx6-ib-down-nccl-tests-128.txt", KindIBStat, []string{"port.disabled/warning"}}, // Disabled, no LID: maybe switched off on purpose
	{"dmesg-T-flaps.txt", KindKernel, []string{"kmsg.link_flap/warning"}},
	{"mlx5-roce-pfc-storm.txt", KindEthtool, []string{"roce.pause_heavy/warning", "roce.pfc_storm/critical"}},
	{"h100-4gpu-8nic-vm.txt", KindTopo, nil},
	{"nccl952-socket-channels.log", KindNCCLLog, []string{"nccl.socket_fallback/warning"}},
	{"spark-2node-allreduce.txt", KindNCCLTests, nil},
	{"perftest132-write-a-gbits-cut.txt", KindPerftest, []string{"perf.test_invalid/info"}},
	{"ibnetdiscover-spineleaf.txt", KindNetDiscover, []string{"fabric.link_degraded/critical"}},
	{"sminfo-master.txt", KindSMInfo, nil},
	{"saquery-s.txt", KindSMPorts, nil},
	{"ibstatus-roce-after-topo-nccl-1866.txt", KindIBStatus, nil},
	{"ibv_devinfo-port-down-deepep-60.txt", KindDevinfo, []string{"port.down/critical"}}, // pasted, and no port of it works
	{"rdma-link-polling-rccl-1423.txt", KindRdma, []string{"port.polling/critical"}},     // LID 3403 from the SM: it was in use
	{"dmesg-gpu-node.txt", KindKernel, nil},                                              // findings checked in TestPieces
}

// paste concatenates the pieces and returns the text and each piece's
// first and last line.
func paste(t testing.TB, ps []piece) (string, [][2]int) {
	var b strings.Builder
	var at [][2]int
	line := 1
	for _, p := range ps {
		s := read(t, p.file)
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		n := strings.Count(s, "\n")
		at = append(at, [2]int{line, line + n - 1})
		line += n
		b.WriteString(s)
	}
	return b.String(), at
}

func ids(fs []finding.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.ID+"/"+string(f.Severity))
	}
	slices.Sort(out)
	return out
}

// Each piece alone: its kind is recognised and it produces its findings.
func TestPieces(t *testing.T) {
	for _, p := range pieces {
		t.Run(p.file, func(t *testing.T) {
			fr := AnalyzeText(p.file, read(t, p.file), Options{})
			if fr.NotRecognised || fr.Unparsed {
				t.Fatalf("not analysed: %+v", fr)
			}
			var kinds []Kind
			var fs []finding.Finding
			for _, s := range fr.Segments {
				if s.Kind != KindUnknown {
					kinds = append(kinds, s.Kind)
				}
				fs = append(fs, s.Findings...)
			}
			if !slices.Equal(kinds, []Kind{p.kind}) {
				t.Errorf("kinds %v, want [%s]", kinds, p.kind)
			}
			if p.file == "dmesg-gpu-node.txt" {
				if got := ids(fs); len(got) < 4 || !slices.Contains(got, "gpu.xid/critical") || !slices.Contains(got, "pcie.aer_errors/warning") && !slices.Contains(got, "pcie.aer_errors/critical") {
					t.Errorf("dmesg findings %v, want Xid and AER among them", got)
				}
				return
			}
			if got, want := ids(fs), p.findings; !slices.Equal(got, append([]string{}, want...)) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("findings %v, want %v", got, want)
			}
			for _, f := range fs {
				if f.Subject.File != p.file {
					t.Errorf("%s: Subject.File = %q", f.ID, f.Subject.File)
				}
			}
		})
	}
}

// All pieces in one paste: split back into the same kinds, each span
// holding its piece, with the same findings; evidence lines point into the
// paste.
func TestConcatenatedPaste(t *testing.T) {
	text, at := paste(t, pieces)
	for _, variant := range []struct {
		name string
		text string
	}{
		{"LF", text},
		{"CRLF", strings.ReplaceAll(text, "\n", "\r\n")},
	} {
		t.Run(variant.name, func(t *testing.T) {
			ls := Lines(variant.text)
			spans := Split(ls)
			for i, p := range pieces {
				last := at[i][1]
				j := slices.IndexFunc(spans, func(s Span) bool { return s.Start <= last && last <= s.End })
				if j < 0 || spans[j].Kind != p.kind || spans[j].Start < at[i][0] {
					t.Errorf("%s (lines %d-%d): span %+v, want kind %s starting within the piece", p.file, at[i][0], at[i][1], spans[j], p.kind)
				}
			}
			fr := AnalyzeText("paste.txt", variant.text, Options{})
			got := map[string]int{}
			for _, s := range fr.Segments {
				for _, f := range s.Findings {
					got[f.ID]++
					for _, e := range f.Evidence {
						if strings.HasPrefix(e.Source, "paste.txt:") {
							var n int
							if _, err := fmt.Sscanf(e.Source, "paste.txt:%d", &n); err != nil || n < s.Start || n > s.End {
								t.Errorf("%s evidence %s outside its segment %s", f.ID, e.Source, s.Lines)
							}
						}
					}
				}
			}
			for _, id := range []string{"port.disabled", "kmsg.link_flap", "roce.pfc_storm", "nccl.socket_fallback", "perf.test_invalid", "port.polling", "gpu.xid"} {
				if got[id] == 0 {
					t.Errorf("%s missing from the paste's findings %v", id, got)
				}
			}
		})
	}
}

func TestMessyPastes(t *testing.T) {
	ibstat := read(t, "ibstat-cx6-ib-down-nccl-tests-128.txt")
	dmesg := read(t, "dmesg-T-flaps.txt")
	tests := []struct {
		name  string
		text  string
		kinds []Kind
		want  []string // finding IDs
		skip  string   // substring of some skipped note
	}{
		{"ibpanic in the middle, then dmesg", read(t, "ibstat-ibpanic-gpud-752.txt") + dmesg,
			[]Kind{KindUnknown, KindIBStat, KindKernel}, []string{"kmsg.link_flap"}, "ibpanic"},
		{"a mail: prose, journal call trace, prose, ibstat, signature", read(t, "linux-rdma-2020-02-journal-ibstat-mail.txt"),
			[]Kind{KindUnknown, KindKernel, KindIBStat}, []string{"port.polling", "port.disabled"}, ":95,96,97: not a \"Key: value\" line"},
		{"markdown notes: a plain lspci, fenced ibstat of two hosts, filtered ibv_devinfo -v, prose", read(t, "bluefield3-sm-disabled-notes.md"),
			[]Kind{KindUnknown, KindLspci, KindUnknown, KindIBStat, KindUnknown, KindIBStat, KindUnknown, KindDevinfo, KindUnknown, KindMlxlink, KindUnknown}, []string{"port.down"}, "read as port 1"},
		{"tabs instead of spaces", strings.ReplaceAll(ibstat, "        ", "\t"), []Kind{KindIBStat}, []string{"port.disabled"}, ""},
		{"truncated mid-line", ibstat[:len(ibstat)-10], []Kind{KindIBStat}, []string{"port.disabled"}, ""},
		{"debug noise between outputs", ibstat + "ibwarn: [168988] umad_init: umad_init\n+ dmesg -T\n" + dmesg,
			[]Kind{KindIBStat, KindKernel}, []string{"port.disabled", "kmsg.link_flap"}, "tool diagnostic"},
		{"prompt before ethtool names the netdev", "$ ethtool -S ens1f0np0\n" + read(t, "mlx5-roce-pfc-storm.txt"),
			[]Kind{KindEthtool}, []string{"roce.pfc_storm", "roce.pause_heavy"}, ""},
		{"an ibstat port block with ellipses, no CA line, after prose", "With ibstat outputs like\n\n...\nPort 1:\n                State: Down\n                Physical state: Polling\n...\n",
			[]Kind{KindUnknown, KindIBStat}, []string{"port.polling"}, "an ellipsis: lines the poster cut"},
		{"ibstat | grep -i state, after prose", "The HCA says:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tState: Down\n\t\tPhysical state: Polling\n",
			[]Kind{KindUnknown, KindIBStat}, []string{"port.polling"}, "a filtered paste?"},
		{"ibstat port blocks inside a CA block stay in it", ibstat, []Kind{KindIBStat}, []string{"port.disabled"}, ""},
		{"UCX completion errors between prose and a kernel log", "The job died with:\n" +
			"[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)\n" +
			"[master:19546:0:19546] ib_mlx5_log.c:139  DCI QP 0xa9f wqe[0]: SEND s-e [rqpn 0xa66 rlid 703] [inl len 18]\n" +
			"==== backtrace (tid:  19546) ====\n 0  /usr/lib/libucs.so.0(ucs_handle_error+0x1ac) [0x7f79af9b000c]\n" + dmesg,
			[]Kind{KindUnknown, KindUCXLog, KindKernel}, []string{"ucx.completion_error", "kmsg.link_flap"}, ""},
		{"show_gids after its prompt, v2 GIDs only link-local", "[root@localhost ~]# show_gids mlx5_0\n" +
			"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n" +
			"---     ----    -----   ---                                     ------------    ---     ---\n" +
			"mlx5_0  1       0       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8                 v1      ens1f0\n" +
			"mlx5_0  1       1       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8                 v2      ens1f0\n" +
			"n_gids_found=2\n",
			[]Kind{KindShowGIDs}, []string{"roce.gid_missing_v2"}, ""},
		{"ethtool with junk lines", read(t, "mlx5-roce-pfc-storm.txt") + "     rx_prio3_pause_transition\n",
			[]Kind{KindEthtool}, []string{"roce.pfc_storm", "roce.pause_heavy"}, "not a \"name: counter\" line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tt.text, Options{})
			var kinds []Kind
			got := map[string]bool{}
			notes := ""
			for _, s := range fr.Segments {
				kinds = append(kinds, s.Kind)
				for _, f := range s.Findings {
					got[f.ID] = true
				}
				notes += strings.Join(s.Skipped, "\n") + "\n"
			}
			if !slices.Equal(kinds, tt.kinds) {
				t.Errorf("kinds %v, want %v", kinds, tt.kinds)
			}
			for _, id := range tt.want {
				if !got[id] {
					t.Errorf("finding %s missing (got %v)", id, got)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("findings %v, want exactly %v", got, tt.want)
			}
			if !strings.Contains(notes, tt.skip) {
				t.Errorf("skipped notes %q lack %q", notes, tt.skip)
			}
		})
	}
}

func TestEthtoolNetdevFromPrompt(t *testing.T) {
	fr := AnalyzeText("p.txt", "$ ethtool -S ens1f0np0\n"+read(t, "mlx5-roce-pfc-storm.txt"), Options{})
	seg := fr.Segments[len(fr.Segments)-1]
	if !strings.Contains(seg.Summary, "ens1f0np0") || len(seg.Findings) == 0 || seg.Findings[0].Subject.NetDev != "ens1f0np0" {
		t.Errorf("segment %+v", seg)
	}
	for _, f := range seg.Findings {
		for _, e := range f.Evidence {
			if !strings.HasPrefix(e.Source, "p.txt:") {
				t.Errorf("%s evidence without a line: %+v", f.ID, e)
			}
		}
	}
}

func TestNotRecognised(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		closest Kind
	}{
		{"prose", "The cluster was slow yesterday.\nPlease check node 17.\n", KindUnknown},
		{"ibstat fields without a State or Port line", "Physical state: LinkUp\nRate: 200\nLink layer: InfiniBand\nBase lid: 5\n", KindIBStat},
		{"empty", "", KindUnknown},
		{"binary", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", KindUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "x.txt", Text: tt.text}}, Options{})
			f := r.Files[0]
			if tt.name == "binary" {
				if !f.NotRecognised || r.ExitCode != finding.ExitCannot || !strings.Contains(f.Error, "binary data") {
					t.Errorf("binary: %+v exit %d", f, r.ExitCode)
				}
				return
			}
			if !f.NotRecognised || r.ExitCode != finding.ExitCannot || f.Closest == nil || f.Closest.Kind != tt.closest {
				t.Errorf("file %+v exit %d, want not recognised, closest %q, exit 3", f, r.ExitCode, tt.closest)
			}
			if tt.closest != KindUnknown && f.Closest.Score < 50 {
				t.Errorf("score %d, want >= 50", f.Closest.Score)
			}
		})
	}
}

func TestRunExitCodes(t *testing.T) {
	healthy := read(t, "sminfo-master.txt")
	// The ArchWiki ibstat with port 1 unplugged too: no port of the
	// host is ACTIVE (its spare port 2 Polling alone is a warning).
	down := strings.Replace(read(t, "ibstat-mlx4-polling-archwiki.txt"), "State: Active\n                Physical state: LinkUp", "State: Down\n                Physical state: Polling", 1)
	tests := []struct {
		name string
		in   []Input
		opts Options
		code int
	}{
		{"healthy", []Input{{Name: "a", Text: healthy}}, Options{}, finding.ExitHealthy},
		{"warning", []Input{{Name: "a", Text: read(t, "dmesg-T-flaps.txt")}}, Options{}, finding.ExitWarning},
		{"critical over warning", []Input{{Name: "a", Text: read(t, "dmesg-T-flaps.txt")}, {Name: "b", Text: down}}, Options{}, finding.ExitCritical},
		{"unreadable file", []Input{{Name: "a", Text: healthy}, {Name: "b", Err: errors.New("permission denied")}}, Options{}, finding.ExitCannot},
		{"forced kind that does not parse", []Input{{Name: "a", Text: healthy}}, Options{Kind: KindIBStat}, finding.ExitCannot},
		{"forced kind that fits", []Input{{Name: "a", Text: down}}, Options{Kind: KindIBStat}, finding.ExitCritical},
		{"spare port Polling beside an ACTIVE port 1", []Input{{Name: "a", Text: read(t, "ibstat-mlx4-polling-archwiki.txt")}}, Options{}, finding.ExitWarning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Run(tt.in, tt.opts)
			if r.ExitCode != tt.code {
				t.Errorf("exit %d, want %d (%+v)", r.ExitCode, tt.code, r.Files)
			}
			if len(r.Files) != len(tt.in) {
				t.Errorf("%d files reported, want %d", len(r.Files), len(tt.in))
			}
		})
	}
}

func TestFirstLineCutsWholeCharacters(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	got := firstLine([]string{"", "```", long})
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 63 {
		t.Errorf("firstLine = %q", got)
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range Kinds {
		if got, ok := ParseKind(string(k.Kind)); !ok || got != k.Kind {
			t.Errorf("ParseKind(%q) = %q %v", k.Kind, got, ok)
		}
	}
	if _, ok := ParseKind("ibstats"); ok {
		t.Error("ParseKind accepted ibstats")
	}
}

func checkSpans(t *testing.T, ls []string, spans []Span) {
	t.Helper()
	next := 1
	for _, s := range spans {
		if s.Start != next || s.End < s.Start || s.End > len(ls) {
			t.Fatalf("spans %+v do not cover %d lines in order", spans, len(ls))
		}
		next = s.End + 1
	}
	if next != len(ls)+1 {
		t.Fatalf("spans %+v end at %d of %d lines", spans, next-1, len(ls))
	}
}

func FuzzSplit(f *testing.F) {
	text, _ := paste(f, pieces)
	f.Add(text)
	for _, p := range pieces {
		f.Add(read(f, p.file))
	}
	f.Fuzz(func(t *testing.T, in string) {
		ls := Lines(in)
		checkSpans(t, ls, Split(ls))
		for i, l := range ls {
			prev, next := "", ""
			if i > 0 {
				prev = ls[i-1]
			}
			if i+1 < len(ls) {
				next = ls[i+1]
			}
			if k, _ := header(l, prev, "", next, i%2 == 0, i%3 == 0); k != KindUnknown && !maybeHeader(l, maybePrompt(l)) {
				t.Fatalf("line %d %q is a %s header, maybeHeader says no", i+1, l, k)
			}
		}
		fr := AnalyzeText("f", in, Options{})
		for _, s := range fr.Segments {
			if s.Start < 1 || s.End > len(ls) || s.Start > s.End {
				t.Fatalf("segment %+v outside %d lines", s, len(ls))
			}
		}
	})
}

// BenchmarkSplit splits a 100k-line kernel log with other outputs in it.
func BenchmarkSplit(b *testing.B) {
	text, _ := paste(b, pieces)
	big := strings.Repeat(read(b, "dmesg-gpu-node.txt"), 4000) + text
	ls := Lines(big)
	b.SetBytes(int64(len(big)))
	b.ReportAllocs()
	for b.Loop() {
		Split(ls)
	}
}

func BenchmarkAnalyzeLargePaste(b *testing.B) {
	text, _ := paste(b, pieces)
	big := strings.Repeat(text, 50)
	b.SetBytes(int64(len(big)))
	b.ReportAllocs()
	for b.Loop() {
		AnalyzeText("big.txt", big, Options{})
	}
}

// Fabric outputs of one paste are joined into one fabric: iblinkinfo alone
// cannot be judged, with ibnetdiscover it can.
func TestFabricOutputsJudgedTogether(t *testing.T) {
	// ibqueryerrors alone is judged port by port (by GUID and description);
	// spine1 shows only its "port ALL" aggregate (relay errors: info);
	// h1's PortXmitWait 12345 is congestion, as with the topology.
	alone := AnalyzeText("q.txt", read(t, "ibqueryerrors-spineleaf.txt"), Options{})
	if len(alone.Segments) != 1 || alone.Segments[0].Kind != KindQueryErrors ||
		!slices.Equal(ids(alone.Segments[0].Findings), []string{"fabric.congestion/warning", "fabric.link_errors/info", "fabric.link_errors/warning", "fabric.link_errors/warning"}) ||
		strings.Contains(strings.Join(alone.Segments[0].Skipped, "\n"), "not judged") {
		t.Errorf("ibqueryerrors alone: %+v", alone.Segments)
	}
	healthy := AnalyzeText("e.txt", read(t, "iblinkinfo-edr-sb7700.txt"), Options{})
	if s := healthy.Segments; len(s) != 1 || s[0].Kind != KindLinkInfo || s[0].Failed || len(s[0].Findings) != 0 {
		t.Errorf("healthy EDR iblinkinfo: %+v", s)
	}
	// iblinkinfo names both ends of switch links: those are judged alone.
	links := AnalyzeText("l.txt", read(t, "iblinkinfo-spineleaf.txt"), Options{})
	if got := ids(links.Segments[0].Findings); !slices.Equal(got, []string{"fabric.link_degraded/critical"}) {
		t.Errorf("iblinkinfo alone: findings %v", got)
	} else if ev := links.Segments[0].Findings[0].Evidence[0]; ev.Source != "l.txt:23" {
		t.Errorf("evidence %+v, want l.txt:23", ev)
	}
	both := AnalyzeText("b.txt", read(t, "ibnetdiscover-spineleaf.txt")+read(t, "ibqueryerrors-spineleaf.txt"), Options{})
	var kinds []Kind
	var got []string
	for _, s := range both.Segments {
		kinds = append(kinds, s.Kind)
		got = append(got, ids(s.Findings)...)
		if s.Kind == KindQueryErrors && strings.Contains(strings.Join(s.Skipped, "\n"), "not judged") {
			t.Errorf("ibqueryerrors with its topology skipped %v", s.Skipped)
		}
	}
	if !slices.Equal(kinds, []Kind{KindNetDiscover, KindQueryErrors}) || !slices.Contains(got, "fabric.link_degraded/critical") || !slices.Contains(got, "fabric.link_errors/critical") && !slices.Contains(got, "fabric.link_errors/warning") {
		t.Errorf("kinds %v findings %v", kinds, got)
	}
	twice := AnalyzeText("t.txt", read(t, "sminfo-master.txt")+read(t, "ibnetdiscover-spineleaf.txt")+read(t, "sminfo-master.txt"), Options{})
	if n := len(twice.Segments); n != 3 || !twice.Segments[2].Failed || !strings.Contains(twice.Segments[2].Skipped[0], "only the first is judged") {
		t.Errorf("second sminfo: %+v", twice.Segments)
	}
}

// ibv_devinfo without -v prints no physical state: a port that is not
// ACTIVE is still reported, critical only when a like port is ACTIVE.
func TestStateWithoutPhysState(t *testing.T) {
	down := read(t, "ibv_devinfo-port-down-deepep-60.txt")
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"alone", down, []string{"port.down/critical"}}, // pasted, the only port: no RDMA link works
		{"beside an ACTIVE port of the same model and link layer",
			strings.Replace(down, "link_layer:             InfiniBand", "link_layer:             Ethernet", 1) + "\n" + read(t, "ibv_devinfo-roce-h100-deepep-38.txt"),
			[]string{"port.down/warning", "port.fw_mismatch/warning"}}, // 28.39 beside 28.42; LID 65535 is no SM's: maybe unused
		{"ACTIVE only", read(t, "ibv_devinfo-roce-h100-deepep-38.txt"), []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("d.txt", tt.text, Options{})
			var got []string
			for _, s := range fr.Segments {
				got = append(got, ids(s.Findings)...)
				for _, f := range s.Findings {
					if f.ID != "port.down" {
						continue
					}
					if f.Evidence[0].Source != "d.txt:13" || f.Evidence[0].Value != "state:                  PORT_DOWN (1)" {
						t.Errorf("evidence %+v", f.Evidence)
					}
				}
			}
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
		})
	}
}

// What an HCA output in the paste shows informs the other rules.
func TestPasteContext(t *testing.T) {
	ibstat := read(t, "ibstat-cx6-ib-down-nccl-tests-128.txt")
	log := read(t, "nccl952-socket-channels.log")
	sev := func(fr File, id string) string {
		for _, s := range fr.Segments {
			for _, f := range s.Findings {
				if f.ID == id {
					return string(f.Severity)
				}
			}
		}
		return ""
	}
	if got := sev(AnalyzeText("l", log, Options{}), "nccl.socket_fallback"); got != "warning" {
		t.Errorf("log alone: socket_fallback %q, want warning", got)
	}
	if got := sev(AnalyzeText("l", ibstat+log, Options{}), "nccl.socket_fallback"); got != "critical" {
		t.Errorf("log after ibstat: socket_fallback %q, want critical (RDMA devices exist)", got)
	}
	perf := AnalyzeText("p", ibstat+read(t, "perftest132-write-a-gbits-cut.txt"), Options{})
	last := perf.Segments[len(perf.Segments)-1]
	if !strings.Contains(strings.Join(last.Skipped, "\n"), "line rate 200 Gb/s taken from mlx5_0 port 1 in ibstat lines 1-44") {
		t.Errorf("perftest after ibstat: %+v", last)
	}
	forced := AnalyzeText("p", ibstat+read(t, "perftest132-write-a-gbits-cut.txt"), Options{LineRateGbps: 100})
	if strings.Contains(strings.Join(forced.Segments[len(forced.Segments)-1].Skipped, "\n"), "taken from") {
		t.Error("--line-rate did not override the paste's rate")
	}
}

// JSON reports have no line headers: the whole file is recognised.
func TestWholeFileJSON(t *testing.T) {
	for file, want := range map[string]Kind{"k8s-e2e-write-bw.json": KindPerftest, "util-cu-writer-2rank.json": KindNCCLTests} {
		fr := AnalyzeText(file, read(t, file), Options{})
		if len(fr.Segments) != 1 || fr.Segments[0].Kind != want || fr.Segments[0].Failed {
			t.Errorf("%s: %+v, want one %s segment", file, fr.Segments, want)
		}
	}
}

func TestIsPrompt(t *testing.T) {
	for line, want := range map[string]bool{
		"$ ibstat": true,
		"[root@node3 bin]# ib_write_bw -a -d mlx5_0": true,
		"root@f51fec68bf55:~# ibv_devinfo":           true,
		"user@gpu17:/tmp$ ethtool -S ens1f0":         true,
		"# ibstat":                                   true,
		"+ ibstat":                                   true,
		"# Using devices":                            false,
		"# nThread 1 nGpus 8":                        false,
		"        State: Active":                      false,
		"[    1.234] mlx5_core 0000:17:00.0: x":      false,
		"gpu1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>": false,
		" \t$ ibstat":                      true,
		"\u00a0$ ibstat":                   true,
		"\u3000# ibstat":                   true,
		"\v[admin@gpu1 ~]$ ibstat":         true,
		"  admin@gpu1:~$ ibstat":           true,
		"cost $5 # a comment + more":       false,
		"[    2.5] eth0: link #1 + lane 2": false,
		// Shell themes and tool consoles.
		"➜  opensm git:(master) ✗ perfquery 5 1": true,
		"❯ ibstat":   true,
		"λ dmesg -T": true,
		"sim> PerformanceSet \"S-0002c90200405150\"[1] PortCounters.PortXmitWait=123": true,
		"• run ibstat on each node":     false,
		"– ibstat shows the port Down":  false,
		"→ the port is Down":            false,
		"mlx5_3 port 1 ==> net1 (Down)": false,
		"Sim> ok":                       false,
		"bash-4.2# ibstat":              true,
		"sh-5.1$ ibv_devinfo":           true,
		"(base) user@gpu1:~$ ibstat":    true,
		"user@gpu1 ~ % ibstat":          true,
		"rate-4# of 8 ports":            false,
		"(note) see below":              false,
		"50 % of the ports @ 100G":      false,
	} {
		if got := isPrompt(line); got != want {
			t.Errorf("isPrompt(%q) = %v, want %v", line, got, want)
		}
		// The streaming reader's cheap test lets every prompt through.
		if want && !maybePrompt(line) {
			t.Errorf("maybePrompt(%q) = false for a prompt", line)
		}
	}
}

// A perfquery block pasted without its header line, after a shell theme's
// prompt and a tool console's lines, is read: its port from PortSelect.
func TestPerfQueryWithoutHeader(t *testing.T) {
	block := "PortSelect:......................1\nCounterSelect:...................0x0000\nSymbolErrorCounter:..............0\n" +
		"LinkErrorRecoveryCounter:........0\nLinkDownedCounter:...............%d\nPortXmitDiscards:................%d\n"
	for _, tt := range []struct {
		name, prompt string
		downed, disc int
		want         []string
	}{
		{"zsh theme, zero counters", "➜  opensm git:(master) ✗ perfquery 5 1\n", 0, 0, nil},
		{"console prompt above, discards", "sim> PerformanceSet \"S-0002c90200405150\"[1] PortCounters.PortXmitDiscards=9\n\n$ perfquery 5 1\n", 0, 9, []string{"port.xmit_discards"}},
		{"no prompt at all, link downed", "", 3, 0, []string{"port.link_flapping"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := "4. run perfquery\n\n" + tt.prompt + fmt.Sprintf(block, tt.downed, tt.disc)
			r := Run([]Input{{Name: "p.txt", Text: in}}, Options{})
			if r.ExitCode == 3 {
				t.Fatalf("not judged: %s", jsonOf(t, r))
			}
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
			seg := r.Files[0].Segments[len(r.Files[0].Segments)-1]
			if seg.Kind != KindPerfQuery {
				t.Errorf("last segment %s", seg.Kind)
			}
		})
	}
}

// ibdev2netdev pastes: an Ethernet netdev down is its RoCE port down; an
// IPoIB netdev's state says nothing of the IB port; a port down beside an
// up port of its card is a note.
func TestIBDev2NetdevPaste(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		exit     int
		want     []string
	}{
		{"pod with its only RoCE netdev down", "[root@pod /]# ibdev2netdev\nmlx5_3 port 1 ==> net1 (Down)\n[root@pod /]# ifconfig\neth0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1450\n",
			1, []string{"port.down/warning"}},
		{"IPoIB down: worth a look", "$ ibdev2netdev\nmlx5_0 port 1 ==> ib0 (Down)\nmlx5_1 port 1 ==> ibp60s0 (Down)\n", 1, []string{"port.down/warning", "port.down/warning"}},
		{"IPoIB up: an ACTIVE port", "$ ibdev2netdev\nmlx5_0 port 1 ==> ib0 (Up)\n", 0, nil},
		{"IPoIB down with -v ACTIVE: healthy", "0000:02:00.1 mlx5_1 (MT4115 - MT1523X04353) CX456A - ConnectX-4 QSFP fw 12.23.1020 port 1 (ACTIVE) ==> ib1 (Down)\n", 0, nil},
		{"second port of a card: healthy", "mlx5_1 port 1 ==> enp27s0f0np0 (Up)\nmlx5_2 port 1 ==> enp27s0f1np1 (Down)\n", 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "i.txt", Text: tt.in}}, Options{})
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if r.ExitCode != tt.exit || !slices.Equal(got, tt.want) {
				t.Errorf("exit %d findings %q, want %d %q\n%s", r.ExitCode, got, tt.exit, tt.want, jsonOf(t, r))
			}
		})
	}
}

// nvidia-smi -q pasted whole, as -d ROW_REMAPPER, or as a fragment: its
// memory error sections are judged, and only they.
func TestNvsmiQueryPaste(t *testing.T) {
	rows := "    Remapped Rows\n        Correctable Error                 : 0\n        Uncorrectable Error               : %d\n        Pending                           : %s\n        Remapping Failure Occurred        : %s\n"
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"fragment, pending", "the GPU needs a reset:\n\n```\n" + fmt.Sprintf(rows, 4, "Yes", "No") + "```\n", []string{"gpu.row_remap/warning"}},
		{"banner and GPU block, failure", "==============NVSMI LOG==============\n\nAttached GPUs                             : 1\nGPU 00000000:07:00.0\n    Product Name                          : NVIDIA A100-SXM4-80GB\n    Ecc Mode\n        Current                           : Enabled\n        Pending                           : Enabled\n" + fmt.Sprintf(rows, 8, "No", "Yes"),
			[]string{"gpu.row_remap/critical"}},
		{"-d ROW_REMAPPER, healthy", "GPU 00000000:55:00.0\n" + fmt.Sprintf(rows, 0, "No", "No"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "q.txt", Text: tt.in}}, Options{})
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if r.ExitCode == 3 || !slices.Equal(got, tt.want) {
				t.Errorf("exit %d findings %q, want %q\n%s", r.ExitCode, got, tt.want, jsonOf(t, r))
			}
		})
	}
}

// lspci link lines quoted without their device, even split over two code
// blocks with prose between, are one device's LnkCap and LnkSta.
func TestLspciLinkPaste(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"LnkCap and LnkSta in two code blocks, the text names a Mellanox card", "The Mellanox card shows:\n\n```\n  LnkCap:  Port #8, Speed 8GT/s, Width x4, ...\n```\n\nand:\n\n```\n  LnkSta:  Speed 5GT/s, Width x1, ...\n```\n\nThat is one lane.\n",
			[]string{"pcie.link_degraded/critical"}},
		{"speed-only drop of an unnamed device", "riser:\n\n    LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <16us\n    LnkSta: Speed 2.5GT/s (downgraded), Width x16 (ok)\n",
			[]string{"pcie.link_degraded/warning"}},
		{"grep behind a prompt, at capability", "$ sudo lspci -s 3b:00.0 -vvv | grep Lnk\n\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x8, ASPM L0s\n\t\tLnkSta:\tSpeed 8GT/s (ok), Width x8 (ok)\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "l.txt", Text: tt.in}}, Options{})
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if r.ExitCode == 3 || !slices.Equal(got, tt.want) {
				t.Errorf("exit %d findings %q, want %q\n%s", r.ExitCode, got, tt.want, jsonOf(t, r))
			}
		})
	}
}

// ibstat run on several hosts and pasted together: each host's output is
// its own segment, not one node with ports merged.
func TestRepeatedDeviceStartsNewSegment(t *testing.T) {
	one := read(t, "ibstat-cx6-ib-down-nccl-tests-128.txt")
	for _, tt := range []struct {
		name string
		text string
		kind Kind
	}{
		{"ibstat", "$ ssh gpu1 ibstat\n" + one + "$ ssh gpu2 ibstat\n" + one, KindIBStat},
		{"ibv_devinfo", read(t, "ibv_devinfo-roce-h100-deepep-38.txt") + "\n" + read(t, "ibv_devinfo-roce-h100-deepep-38.txt"), KindDevinfo},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("hosts.txt", tt.text, Options{})
			if len(fr.Segments) != 2 || fr.Segments[0].Kind != tt.kind || fr.Segments[1].Kind != tt.kind || fr.Segments[0].Summary != fr.Segments[1].Summary {
				t.Errorf("segments %+v", fr.Segments)
			}
		})
	}
}

// A GPU whose nearest NIC is farther than the others' is reported with the
// line of its row. The V100 matrix is uniform (every GPU at PHB); here GPU0
// gets its NICs at PIX, as in a server with NICs under the GPU's switch.
func TestTopoEvidenceLine(t *testing.T) {
	v100 := read(t, "v100-2gpu-4nic-tabs.txt")
	edited := strings.Replace(v100, "GPU0\t X \tSYS\tPHB\tPHB", "GPU0\t X \tSYS\tPIX\tPIX", 1)
	if edited == v100 {
		t.Fatal("edit did not apply")
	}
	for _, tt := range []struct {
		name, text string
		want       []string
	}{{"uniform", v100, []string{}}, {"GPU1 far", "$ nvidia-smi topo -m\n" + edited, []string{"topo.gpu_nic_far/warning"}}} {
		fr := AnalyzeText("t.txt", tt.text, Options{})
		seg := fr.Segments[len(fr.Segments)-1]
		if got := ids(seg.Findings); seg.Kind != KindTopo || !slices.Equal(got, tt.want) {
			t.Errorf("%s: %s findings %v, want %v", tt.name, seg.Kind, got, tt.want)
		}
		for _, f := range seg.Findings {
			if f.Evidence[0].Source != "t.txt:4" || !strings.HasPrefix(f.Evidence[0].Value, "GPU1:") {
				t.Errorf("%s: evidence %+v, want t.txt:4 (GPU1's row)", tt.name, f.Evidence)
			}
		}
	}
}

// An unreadable topo cell is named, not a parse error; the rows around it
// are still judged.
func TestParseErrorNamesFileLine(t *testing.T) {
	ls := strings.Split(read(t, "h100-4gpu-8nic-vm.txt"), "\n")
	ls[2] = strings.Replace(ls[2], "PHB", "QQQ", 1)
	fr := AnalyzeText("t.txt", "$ dmesg\n[    5.120311] mlx5_core 0000:3b:00.0: firmware version: 28.39.2048\n"+strings.Join(ls, "\n"), Options{})
	if len(fr.Segments) != 2 || fr.Segments[0].Summary != "1 kernel message" {
		t.Fatalf("segments %+v", fr.Segments)
	}
	// A GPU row's cell that is no link word is named, its distance
	// unknown; the other rows and cells are read.
	topo := fr.Segments[1]
	if topo.Failed || len(topo.Skipped) != 1 || !strings.Contains(topo.Skipped[0], `GPU1/NIC0: "QQQ"`) ||
		!strings.Contains(topo.Summary, "4 GPUs") {
		t.Errorf("topo segment %+v", topo)
	}
	if fr.Unparsed || fr.NotRecognised {
		t.Errorf("the kernel log parsed: file %+v", fr)
	}
}

// rdma link of a node whose SR-IOV PFs are down: four Disabled ports
// beside ACTIVE ones, and the last line cut before its physical state.
func TestRdmaLinkPaste(t *testing.T) {
	fr := AnalyzeText("r.txt", read(t, "rdma-link-sriov-operator-635.txt"), Options{})
	if len(fr.Segments) != 1 || fr.Segments[0].Kind != KindRdma || fr.Segments[0].Start != 1 {
		t.Fatalf("segments %+v", fr.Segments)
	}
	seg := fr.Segments[0]
	// Disabled second ports without a LID beside ACTIVE ones: maybe unused.
	want := []string{"port.disabled/warning", "port.disabled/warning", "port.disabled/warning", "port.disabled/warning", "port.down/warning"}
	if got := ids(seg.Findings); !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	notes := strings.Join(seg.Skipped, "\n")
	if !strings.Contains(notes, `r.txt:11: "physical_s" has no value (truncated line?)`) || !strings.Contains(notes, "no physical state printed for mlx5_9/1") {
		t.Errorf("skipped %q", notes)
	}
	if seg.Summary != "10 HCAs, 10 ports (5 ACTIVE)" {
		t.Errorf("summary %q", seg.Summary)
	}
}

// The node given with --root (here: read from a real ibstat) informs the
// rules as an HCA output in the paste would; --expect-ib alone does too.
func TestNodeAndExpectIB(t *testing.T) {
	res, err := hcatext.ParseIBStat(strings.NewReader(read(t, "ibstat-cx6-ib-down-nccl-tests-128.txt")), "node")
	if err != nil {
		t.Fatal(err)
	}
	log := read(t, "nccl952-socket-channels.log")
	sev := func(opts Options) string {
		for _, s := range AnalyzeText("l", log, opts).Segments {
			for _, f := range s.Findings {
				if f.ID == "nccl.socket_fallback" {
					return string(f.Severity)
				}
			}
		}
		return ""
	}
	if got := sev(Options{Node: res.Snap, NodeSource: "--root /n"}); got != "critical" {
		t.Errorf("with the node: %q, want critical", got)
	}
	if got := sev(Options{ExpectIB: true}); got != "critical" {
		t.Errorf("with --expect-ib: %q, want critical", got)
	}
	perf := AnalyzeText("p", read(t, "perftest132-write-a-gbits-cut.txt"), Options{Node: res.Snap, NodeSource: "--root /n"})
	if notes := strings.Join(perf.Segments[len(perf.Segments)-1].Skipped, "\n"); !strings.Contains(notes, "line rate 200 Gb/s taken from mlx5_0 port 1 in --root /n (1 ACTIVE port at that rate)") {
		t.Errorf("perftest notes %q", notes)
	}
}

// The line rate is the one most ACTIVE ports run at: a slower frontend
// port does not set it.
func TestLineRateMajority(t *testing.T) {
	c := &context{}
	for _, f := range []string{"ibstat-cx6dx-roce-l2fwd-nv-6.txt", "ibstat-cx7-roce-mixed-mooncake-1999.txt"} {
		res, err := hcatext.ParseIBStat(strings.NewReader(read(t, f)), f)
		if err != nil {
			t.Fatal(err)
		}
		c.addRates(res.Snap, f)
	}
	// 2 ports at 100 and 2 at 200: a tie goes to the slower.
	if rate, n, _ := c.lineRate(); rate != 100 || n != 2 {
		t.Errorf("tie: %g Gb/s on %d ports, want 100 on 2", rate, n)
	}
	res, _ := hcatext.ParseIBStat(strings.NewReader(read(t, "ibstat-cx7-roce-mixed-mooncake-1999.txt")), "again")
	c.addRates(res.Snap, "again")
	if rate, n, from := c.lineRate(); rate != 200 || n != 4 || from != "mlx5_0 port 1 in ibstat-cx7-roce-mixed-mooncake-1999.txt" {
		t.Errorf("majority: %g Gb/s on %d ports from %q, want 200 on 4", rate, n, from)
	}
}

// ethtool -S beside rdma link (netdev → port) and rdma statistic (the
// port's DCQCN counters): ECN is judged. The statistic line is the Qiita
// sample renamed from mlx5_2 to mlx5_0, the port rdma link puts p1p1 on.
func TestEthtoolWithRdmaCounters(t *testing.T) {
	stat := strings.Replace(read(t, "rdma-statistic-qiita.txt"), "mlx5_2/1", "mlx5_0/1", 1)
	pause := "$ ethtool -S p1p1\n" + read(t, "mlx5-roce-pause-no-ecn.txt")
	for _, tt := range []struct {
		name string
		text string
		want []string
	}{
		{"ethtool alone", pause, []string{"roce.pause_heavy/warning"}},
		{"with rdma link and statistic", pause + read(t, "rdma-link-roce-3fs-283.txt") + stat, []string{"roce.ecn_not_effective/warning", "roce.pause_heavy/warning"}},
		{"with ECN marks counted", pause + read(t, "rdma-link-roce-3fs-283.txt") + strings.Replace(stat, "np_ecn_marked_roce_packets 0", "np_ecn_marked_roce_packets 52311", 1), []string{"roce.pause_heavy/warning"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("e.txt", tt.text, Options{})
			var eth *Segment
			for i := range fr.Segments {
				if fr.Segments[i].Kind == KindEthtool {
					eth = &fr.Segments[i]
				}
			}
			if eth == nil {
				t.Fatalf("no ethtool segment in %+v", fr.Segments)
			}
			if got := ids(eth.Findings); !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
			for _, f := range eth.Findings {
				if f.ID != "roce.ecn_not_effective" {
					continue
				}
				if f.Subject.Device != "mlx5_0" || f.Subject.NetDev != "p1p1" {
					t.Errorf("subject %+v", f.Subject)
				}
				last := fmt.Sprintf("e.txt:%d", len(Lines(tt.text)))
				if !slices.Contains(f.Evidence, finding.Evidence{Source: last, Value: "np_ecn_marked_roce_packets 0"}) {
					t.Errorf("evidence %+v lacks %s = np_ecn_marked_roce_packets 0", f.Evidence, last)
				}
			}
		})
	}
}

// ibnetdiscover and dump_fts pasted together: the routes are judged.
func TestFabricPasteWithRoutes(t *testing.T) {
	dir := filepath.Join("..", "..", "rules", "routing", "testdata", "crafted", "loop")
	topo, err := os.ReadFile(filepath.Join(dir, "ibnetdiscover.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fts, err := os.ReadFile(filepath.Join(dir, "dump_fts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	both := AnalyzeText("paste.txt", string(topo)+string(fts), Options{})
	var got []string
	for _, s := range both.Segments {
		got = append(got, ids(s.Findings)...)
	}
	if !slices.Contains(got, "fabric.route_loop/critical") {
		t.Errorf("topology + tables: findings %v, want fabric.route_loop", got)
	}
	// The tables alone cannot be judged: said, not guessed.
	alone := AnalyzeText("fts.txt", string(fts), Options{})
	for _, s := range alone.Segments {
		if len(s.Findings) > 0 {
			t.Errorf("dump_fts alone produced %v", ids(s.Findings))
		}
		if s.Kind == KindForwardTables && !slices.ContainsFunc(s.Skipped, func(x string) bool { return strings.Contains(x, "paste ibnetdiscover output with it") }) {
			t.Errorf("dump_fts alone: skipped %q", s.Skipped)
		}
	}
}

// A 2-node nccl-tests output whose NCCL log shows TCP sockets: one
// critical socket_fallback (the tests rules and the log rules both read
// it), the busbw shortfall its evidence, not a second finding.
func TestNCCLTestsMultiNodeOnSockets(t *testing.T) {
	var b strings.Builder
	b.WriteString("# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n")
	for r := 0; r < 16; r++ {
		fmt.Fprintf(&b, "#  Rank %2d Group  0 Pid %d on %s device  %d [0000:%02x:00] NVIDIA H100 80GB HBM3\n", r, 4000+r, []string{"gpu-a", "gpu-b"}[r/8], r%8, 0x18+r%8)
	}
	b.WriteString("gpu-a:4000:4100 [0] NCCL INFO NET/IB : No device found.\ngpu-a:4000:4100 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\ngpu-a:4000:4100 [0] NCCL INFO Using network Socket\n")
	b.WriteString("  1073741824     268435456     float     sum      -1  223696.2    4.80    9.00       0  223696.2    4.80    9.00       0\n")
	var fs []finding.Finding
	for _, seg := range AnalyzeText("p", b.String(), Options{LineRateGbps: 400}).Segments {
		fs = append(fs, seg.Findings...)
	}
	if got := ids(fs); !slices.Equal(got, []string{"nccl.socket_fallback/critical"}) {
		t.Fatalf("findings %v, want one critical nccl.socket_fallback", got)
	}
	if s := fs[0].Summary; !strings.Contains(s, "multi-node run over 2 hosts") || !strings.Contains(s, "busbw 9.0 GB/s is 3% of the expected 8 × 400 Gb/s") {
		t.Errorf("summary: %s", s)
	}
}

// TestNCCLSegmentsJoined: one job's NCCL lines cut by prose and fences
// (NVIDIA/nccl#690) are judged together, so the process on IB and the
// one on sockets meet.
func TestNCCLSegmentsJoined(t *testing.T) {
	in := "On the client:\n```\nx1:870114:870114 [1] NCCL INFO Using network IB\n```\nOn the server:\n```\n" +
		"x0:26431:26431 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n[...]\nx0:26431:26431 [0] NCCL INFO Using network Socket\n```\nThat's probably the reason.\n"
	fr := AnalyzeText("t.txt", in, Options{})
	var got []string
	n := 0
	for _, s := range fr.Segments {
		if s.Kind == KindNCCLLog {
			n++
		}
		for _, f := range s.Findings {
			got = append(got, f.ID+"/"+string(f.Severity))
		}
	}
	if n != 2 || !slices.Equal(got, []string{"nccl.socket_fallback/critical"}) {
		t.Errorf("%d NCCL segments, findings %v; want 2 and one critical socket fallback", n, got)
	}
}

// TestWatchdogBesideNCCLLines: PyTorch's watchdog lines followed by the
// NCCL INFO lines of the abort are one NCCL log, and its timeout is
// judged (a pastebin paste of a two-rank job, line numbers taken off).
func TestWatchdogBesideNCCLLines(t *testing.T) {
	in := "[rank1]:[E925 12:18:45.826862671 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1237, OpType=_ALLGATHER_BASE, NumelIn=70795904, NumelOut=141591808, Timeout(ms)=3600000) ran for 3600008 milliseconds before timing out.\n" +
		"[rank0]:[E925 12:18:45.008346520 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1191, OpType=ALLGATHER, NumelIn=1, NumelOut=2, Timeout(ms)=3600000) ran for 3600008 milliseconds before timing out.\n" +
		"x2-h100:3217:4573 [0] NCCL INFO [Service thread] Connection closed by localRank 0\n" +
		"x2-h100:3218:5134 [1] NCCL INFO comm 0x2f5704c0 rank 1 nranks 2 cudaDev 1 busId 200000 - Abort COMPLETE\n"
	for _, text := range []string{in, numbered(in)} {
		r := Run([]Input{{Name: "t.txt", Text: text}}, Options{})
		var got []string
		for _, f := range r.Findings {
			got = append(got, f.ID+"/"+string(f.Severity))
		}
		if !slices.Contains(got, "nccl.timeout/critical") || r.ExitCode != 2 {
			t.Errorf("exit %d, findings %v; want nccl.timeout critical\n%s", r.ExitCode, got, text)
		}
	}
}

// TestWrappedWatchdogAfterProse: a bare watchdog report wrapped after its
// colon, between lines of prose (testdata/realworld-fresh41
// torch-watchdog-stored60302518743, a write-up of an 8x H100 run), is one
// NCCL log with its head: its timeout is judged, not left to the prose.
func TestWrappedWatchdogAfterProse(t *testing.T) {
	in := "The arm later failed in distributed\ninitialization with an NCCL watchdog timeout:\n\n```text\n" +
		"[Rank 3] Watchdog caught collective operation timeout:\n" +
		"WorkNCCL(SeqNum=5, OpType=BROADCAST, NumelIn=2, NumelOut=2,\n" +
		"Timeout(ms)=600000) ran for 600017 milliseconds before timing out.\n```\n\nTorchrun subsequently terminated\nthe sibling ranks.\n"
	r := Run([]Input{{Name: "t.txt", Text: in}}, Options{})
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.ID+"/"+string(f.Severity))
	}
	if !slices.Equal(got, []string{"nccl.timeout/critical"}) || r.ExitCode != 2 {
		t.Errorf("exit %d, findings %v; want one nccl.timeout critical", r.ExitCode, got)
	}
	for _, fr := range r.Files {
		for _, s := range fr.Segments {
			if s.Kind == KindNCCLLog && (s.Start != 5 || s.End != 7) {
				t.Errorf("NCCL segment lines %d-%d, want 5-7 (the head with it)", s.Start, s.End)
			}
		}
	}
}

// numbered puts a paste site's line numbers in front of every line.
func numbered(s string) string {
	var b strings.Builder
	for i, l := range Lines(s) {
		fmt.Fprintf(&b, "%3d. %s\n", i+1, l)
	}
	return b.String()
}

// TestNCCLTestsWithoutRows: a banner and device list with no result row
// (github.com/xxrjun, an H100 pair) is not judged, never healthy.
func TestNCCLTestsWithoutRows(t *testing.T) {
	in := "# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807\n# Collective test starting: alltoall_perf\n" +
		"# nThread 1 nGpus 1 minBytes 33554432 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n" +
		"#  Rank  0 Group  0 Pid 521577 on cnode2-003 device  0 [0000:9d:00] NVIDIA H100 80GB HBM3\n#  Rank  1 Group  0 Pid 501378 on cnode2-008 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3\n"
	r := Run([]Input{{Name: "t.txt", Text: in}}, Options{})
	if r.ExitCode != 3 {
		t.Errorf("exit %d (%s), want 3", r.ExitCode, r.Verdict)
	}
	row := "   33554432       8388608     float    none      -1    350.1   95.84   83.86      0    349.0   96.15   84.13      0\n"
	if r := Run([]Input{{Name: "t.txt", Text: in + row}}, Options{}); r.ExitCode == 3 {
		t.Errorf("with a row: exit 3 (%+v)", r.Files)
	}
}

// TestQueryErrorsAlone: ibqueryerrors (or ibcheckerrors) pasted without
// ibnetdiscover is judged port by port, not left unplaced.
func TestQueryErrorsAlone(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Errors for 0x0002c90300a1b2c3 \"leaf07\"\n   GUID 0x0002c90300a1b2c3 port 7: [SymbolErrorCounter == 65535] [LinkErrorRecoveryCounter == 12]\n", "fabric.link_errors/critical"},
		{"some prose first\n\n#warn: counter LinkRecovers = 181       (threshold 10) lid 193 port 1\nError check on lid 193 (ISR9288/ISR9096 Voltaire sLB-24) port 1:  FAILED \n", "fabric.link_errors/warning"},
	} {
		r := Run([]Input{{Name: "q.txt", Text: tc.in}}, Options{})
		var got []string
		for _, f := range r.Findings {
			got = append(got, f.ID+"/"+string(f.Severity))
		}
		if !slices.Equal(got, []string{tc.want}) {
			t.Errorf("%q: findings %v, want %s", tc.in, got, tc.want)
		}
	}
}

// TestNCCLTestsTableWithoutBanner: a results table pasted without the
// banner, its "#" stripped, an NCCL INFO line between the rows.
func TestNCCLTestsTableWithoutBanner(t *testing.T) {
	in := "Here is the result:\n" +
		"       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
		"        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n" +
		"   33554432       8388608     float     sum      -1    350.1   95.84  179.7      0    349.0   96.15  180.3      0\n" +
		"gpu1:123:456 [0] NCCL INFO comm 0x1 rank 0 nranks 16 cudaDev 0 busId 1000 - Destroy COMPLETE\n" +
		"   67108864      16777216     float     sum      -1    690.1   97.24  182.3      0    689.0   97.40  182.6      0\n"
	fr := AnalyzeText("t.txt", in, Options{})
	var kinds []Kind
	for _, s := range fr.Segments {
		kinds = append(kinds, s.Kind)
	}
	if !slices.Equal(kinds, []Kind{KindUnknown, KindNCCLTests}) || fr.Segments[1].Start != 2 || !strings.HasPrefix(fr.Segments[1].Summary, "nccl-tests, 1 run") {
		t.Errorf("segments %+v", fr.Segments)
	}
}

// TestPerfQueryAlone: perfquery -x of one port (treydock/infiniband_exporter
// fixture) pasted alone: its error counters are judged by themselves.
func TestPerfQueryAlone(t *testing.T) {
	in := "# Port extended counters: Lid 2052 port 1 (CapMask: 0x5300 CapMask2: 0x0000002)\nPortSelect:......................1\nCounterSelect:...................0x0000\n" +
		"SymbolErrorCounter:..............0\nLinkDownedCounter:...............1\nPortRcvSwitchRelayErrors:........7\nPortXmitDiscards:................20046\nPortXmitWait:....................41864608\n"
	r := Run([]Input{{Name: "p.txt", Text: in}}, Options{})
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.ID+"/"+string(f.Severity)+" "+f.Summary[:min(len(f.Summary), 15)])
	}
	// One finding: the port's discards, with the link-downed count beside
	// them (totals since the counters were last cleared).
	if !slices.Equal(got, []string{"port.xmit_discards/warning LID 2052 port 1"}) {
		t.Errorf("findings %q", got)
	}
}

// The IB MTU of a pasted ibv_devinfo: an ACTIVE IB port below its max_mtu,
// or ports that disagree on active_mtu, get a finding; RoCE ports (whose
// active_mtu follows the netdev MTU) and ports that are not ACTIVE do not.
func TestDevinfoIBMTU(t *testing.T) {
	// The first HCA block of a real paste, made ACTIVE, per port.
	block := strings.SplitAfter(read(t, "ibv_devinfo-port-down-deepep-60.txt"), "link_layer:             InfiniBand\n")[0]
	block = block[strings.Index(block, "hca_id:"):]
	enum := map[int]int{1024: 3, 2048: 4, 4096: 5}
	hca := func(name string, active, max int, state string) string {
		b := strings.Replace(block, "hca_id: mlx5_0", "hca_id: "+name, 1)
		b = strings.Replace(b, "PORT_DOWN (1)", state, 1)
		b = strings.Replace(b, "max_mtu:                4096 (5)", fmt.Sprintf("max_mtu:                %d (%d)", max, enum[max]), 1)
		return strings.Replace(b, "active_mtu:             4096 (5)", fmt.Sprintf("active_mtu:             %d (%d)", active, enum[active]), 1) + "\n"
	}
	up := "PORT_ACTIVE (4)"
	tests := []struct {
		name string
		text string
		want []string
		sum  string
	}{
		{"all at 4096", hca("mlx5_0", 4096, 4096, up) + hca("mlx5_1", 4096, 4096, up), []string{}, ""},
		{"one port below its max", hca("mlx5_0", 4096, 4096, up) + hca("mlx5_1", 2048, 4096, up) + hca("mlx5_2", 4096, 4096, up),
			[]string{"port.ib_mtu_reduced/warning"}, "mlx5_1 port 1 runs an IB MTU of 2048 although it supports 4096"},
		{"an HCA that can only do 2048 among 4096 ones", hca("mlx5_0", 4096, 4096, up) + hca("mlx5_1", 2048, 2048, up) + hca("mlx5_2", 4096, 4096, up),
			[]string{"port.ib_mtu_mismatch/warning"}, "mlx5_1 port 1 runs an IB MTU of 2048 while 2 of the node's 2 other active IB ports run 4096"},
		{"no majority: both named", hca("mlx5_0", 4096, 4096, up) + hca("mlx5_1", 1024, 1024, up),
			[]string{"port.ib_mtu_mismatch/warning", "port.ib_mtu_mismatch/warning"}, "the node's active IB ports disagree (4096 on 1, 1024 on 1)"},
		{"a reduced port is not also a mismatch", hca("mlx5_0", 4096, 4096, up) + hca("mlx5_1", 2048, 4096, up),
			[]string{"port.ib_mtu_reduced/warning"}, ""},
		{"not ACTIVE: the state finding only", hca("mlx5_0", 1024, 4096, "PORT_DOWN (1)"), []string{"port.down/critical"}, ""},
		{"RoCE port", strings.Replace(hca("mlx5_0", 1024, 4096, up), "link_layer:             InfiniBand", "link_layer:             Ethernet", 1), []string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("d.txt", tt.text, Options{})
			got := []string{}
			var sums []string
			for _, s := range fr.Segments {
				got = append(got, ids(s.Findings)...)
				for _, f := range s.Findings {
					sums = append(sums, f.Summary)
					if strings.HasPrefix(f.ID, "port.ib_mtu") && !strings.HasPrefix(f.Evidence[0].Source, "d.txt:") {
						t.Errorf("evidence not placed on a line of the paste: %+v", f.Evidence)
					}
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v (%q)", got, tt.want, sums)
			}
			if tt.sum != "" && !strings.Contains(strings.Join(sums, "\n"), tt.sum) {
				t.Errorf("summaries %q lack %q", sums, tt.sum)
			}
		})
	}
}

// TestRepeatedPortBlockSameSegment: a port block after a blank line names
// no device, so the same port number under the next HCA is not a second
// host's output (ibv_devinfo of two dual-port mlx4 HCAs, each "port: 2"
// after a blank line; ibstat with blank lines between its port blocks).
func TestRepeatedPortBlockSameSegment(t *testing.T) {
	devinfo := func(dev string, lid int) string {
		return "hca_id:\t" + dev + "\n\ttransport:\t\t\tInfiniBand (0)\n\tphys_port_cnt:\t\t\t2\n\tDevice ports:\n" +
			"\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tsm_lid:\t\t\t1\n\t\t\tport_lid:\t\t" + fmt.Sprint(lid) + "\n\t\t\tlink_layer:\t\tInfiniBand\n\n" +
			"\t\tport:\t2\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n\t\t\tsm_lid:\t\t\t0\n\t\t\tport_lid:\t\t0\n\t\t\tlink_layer:\t\tInfiniBand\n\n"
	}
	ibstat := func(dev string) string {
		return "CA '" + dev + "'\n\tCA type: MT4099\n\tNumber of ports: 2\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 56\n\t\tBase lid: 3\n\t\tSM lid: 1\n\t\tLink layer: InfiniBand\n\n" +
			"\tPort 2:\n\t\tState: Down\n\t\tPhysical state: Disabled\n\t\tRate: 10\n\t\tBase lid: 0\n\t\tSM lid: 0\n\t\tLink layer: InfiniBand\n\n"
	}
	for _, tt := range []struct {
		name, text string
		kind       Kind
		ports      string
	}{
		{"ibv_devinfo", devinfo("mlx4_1", 22) + devinfo("mlx4_0", 32), KindDevinfo, "4 ports"},
		{"ibstat", ibstat("mlx4_0") + ibstat("mlx4_1"), KindIBStat, "4 ports"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("paste.txt", tt.text, Options{})
			if len(fr.Segments) != 1 || fr.Segments[0].Kind != tt.kind || !strings.Contains(fr.Segments[0].Summary, tt.ports) {
				t.Errorf("segments %+v, want one %s segment of %s", fr.Segments, tt.kind, tt.ports)
			}
		})
	}
}

// TestOldRdmaLinkDetected: the older `rdma link` outputs start each record
// "1/1: mlx5_0/1:" (no "link" word): the first one (netdev 2017, wrapped
// by a mail archive) and that of iproute2 4.16.
func TestOldRdmaLinkDetected(t *testing.T) {
	for _, tt := range []struct {
		name, text, summary string
	}{
		{"first format, wrapped", "Print all links for all devices:\n # rdma link\n" +
			"1/1: mlx5_0/1: ifname ib0 cap_mask 0x2651e848 lid 0x13 lid_mask_count 0 \nlink_layer InfiniBand\n" +
			"        phys_state 5: LinkUp rate 100 Gb/sec (4X EDR) sm_lid 0x2 sm_sl 0 state \n4: ACTIVE\n" +
			"3/2: mlx5_2/2: ifname ib3 cap_mask 0x26516848 lid 0xffff lid_mask_count 0 \nlink_layer InfiniBand\n" +
			"        phys_state 3: Disabled rate 10 Gb/sec (4X) sm_lid 0x0 sm_sl 0 state 1: \nDOWN\n",
			"2 HCAs, 2 ports (1 ACTIVE)"},
		{"iproute2 4.16", "1/1: mlx5_0/1: subnet_prefix fe80:0000:0000:0000 lid 13399 sm_lid 49 lmc 0 state ACTIVE physical_state LINK_UP\n" +
			"2/1: mlx5_1/1: subnet_prefix fe80:0000:0000:0000 lid 13400 sm_lid 49 lmc 0 state ACTIVE physical_state LINK_UP\n",
			"2 HCAs, 2 ports (2 ACTIVE)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fr := AnalyzeText("mail.txt", tt.text, Options{})
			var rdma []Segment
			for _, s := range fr.Segments {
				if s.Kind != KindUnknown {
					rdma = append(rdma, s)
				}
			}
			if len(rdma) != 1 || rdma[0].Kind != KindRdma || rdma[0].Summary != tt.summary || len(rdma[0].Skipped) != 0 {
				t.Errorf("segments %+v, want one rdma segment of %s", fr.Segments, tt.summary)
			}
		})
	}
}

// TestPerfQueryErrorDetails: perfquery -E alone, all zero, is judged
// healthy (the treydock/infiniband_exporter fixture); non-zero details say
// why, merged into the PortRcvErrors finding when that block is pasted too.
func TestPerfQueryErrorDetails(t *testing.T) {
	details := "# PortRcvErrorDetails counters: Lid 134 port 1\nPortSelect:......................1\nCounterSelect:...................0x0000\n" +
		"PortLocalPhysicalErrors:.........%d\nPortMalformedPktErrors:..........0\nPortBufferOverrunErrors:.........0\n" +
		"PortDLIDMappingErrors:...........0\nPortVLMappingErrors:.............0\nPortLoopingErrors:...............0\n"
	counters := "# Port counters: Lid 134 port 1 (CapMask: 0x1600)\nPortSelect:......................1\nCounterSelect:...................0x0000\n" +
		"SymbolErrorCounter:..............0\nPortRcvErrors:...................%d\nPortXmitDiscards:................0\n"
	for _, tt := range []struct {
		name, text string
		exit       int
		want       []string
		evidence   []string
	}{
		{"details all zero", fmt.Sprintf(details, 0), finding.ExitHealthy, nil, nil},
		{"details alone", fmt.Sprintf(details, 412), finding.ExitWarning, []string{"port.rcv_errors"}, []string{"p.txt:4"}},
		{"counters and details", fmt.Sprintf(counters, 415) + fmt.Sprintf(details, 412), finding.ExitWarning, []string{"port.rcv_errors"}, []string{"p.txt:5", "p.txt:10"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Run([]Input{{Name: "p.txt", Text: tt.text}}, Options{})
			if r.ExitCode != tt.exit {
				t.Fatalf("exit %d, want %d: %s", r.ExitCode, tt.exit, jsonOf(t, r))
			}
			var got, ev []string
			for _, f := range r.Findings {
				got = append(got, f.ID)
				for _, e := range f.Evidence {
					ev = append(ev, e.Source)
				}
				if !strings.Contains(f.Summary, "PortLocalPhysicalErrors 412") || strings.Contains(strings.Join(f.Remedy, " "), "lid134") {
					t.Errorf("finding %+v", f)
				}
			}
			if !slices.Equal(got, tt.want) || !slices.Equal(ev, tt.evidence) {
				t.Errorf("findings %q evidence %q, want %q %q", got, ev, tt.want, tt.evidence)
			}
		})
	}
}

// TestLshcaPaste: an lshca table in an issue (openucx/ucx#5970): recognised
// by its header row with the rule and "Nodes:" line above it, its ports
// and PCIe links judged.
func TestLshcaPaste(t *testing.T) {
	const paste = "Configuration\n```\nNodes: swx-rdmz-ucx-arm-hwi-01\n" +
		"-----------------------------------------------------------------------------------------------------------\n" +
		"  PCI_addr   |  RDMA  | Net | Numa | LnkStat | IpStat | Link | Rate | LnkCapWidth | LnkStaWidth | HCA_Type\n" +
		"-----------------------------------------------------------------------------------------------------------\n" +
		"000a:11:00.0 | mlx5_0 | ib0 |  2   |  down   |  down  |  IB  | 10*  |   x16 G3    |   x8 >!<    |  MT4119\n" +
		"000a:11:00.1 | mlx5_1 | ib1 |  2   |  init   |  down  |  IB  | 100  |   x16 G3    |   x8 >!<    |  MT4119\n" +
		"-----------------------------------------------------------------------------------------------------------\n```\n"
	fr := AnalyzeText("l.txt", paste, Options{})
	var segs []Segment
	for _, s := range fr.Segments {
		if s.Kind != KindUnknown {
			segs = append(segs, s)
		}
	}
	if len(segs) != 1 || segs[0].Kind != KindLshca || segs[0].Start != 3 {
		t.Fatalf("segments %+v", fr.Segments)
	}
	if notes := strings.Join(segs[0].Skipped, "\n"); !strings.Contains(notes, "LnkStat is the logical state only") || strings.Contains(notes, "rate and width") {
		t.Errorf("notes %q", notes)
	}
	got := ids(segs[0].Findings)
	want := []string{"pcie.link_degraded/critical", "port.down/critical", "port.init_no_sm/critical"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	for _, f := range segs[0].Findings {
		if f.ID == "pcie.link_degraded" && (f.Evidence[0].Source != "l.txt:7" || !strings.Contains(f.Summary, "x8 instead of x16")) {
			t.Errorf("PCIe finding %+v", f)
		}
	}
}

// TestShowGIDsEmpty: show_gids run in a Kubernetes pod whose interface is
// a veth (k8snetworkplumbingwg/sriov-network-device-plugin#30): the header
// and "n_gids_found=0", no row. No RDMA connection can be set up there:
// judged, not skipped as unparsable.
func TestShowGIDsEmpty(t *testing.T) {
	const paste = "[root@rdma-test-wv8kj tmp]# show_gids \n" +
		"DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n" +
		"---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n" +
		"n_gids_found=0\n"
	r := Run([]Input{{Name: "g.txt", Text: paste}}, Options{})
	if r.ExitCode != finding.ExitCritical || len(r.Findings) != 1 {
		t.Fatalf("exit %d: %s", r.ExitCode, jsonOf(t, r))
	}
	if f := r.Findings[0]; f.ID != "roce.gid_missing_v2" || f.Evidence[0].Source != "g.txt:4" || f.Evidence[0].Value != "n_gids_found=0" {
		t.Errorf("finding %+v", f)
	}
	// A table with rows is judged by its rows, as before.
	r = Run([]Input{{Name: "g.txt", Text: strings.Replace(paste, "n_gids_found=0", "mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:ac13:003c\t172.19.0.60  \tv2\tens1f0\nn_gids_found=1", 1)}}, Options{})
	if r.ExitCode != finding.ExitHealthy {
		t.Errorf("table with a v2 GID: exit %d: %s", r.ExitCode, jsonOf(t, r))
	}
}

// TestHCAHeadersOnlyNotJudged: an HCA output of which no port was read
// (here each line ends in a table's " |" cells, so its values do not
// parse) is not judged, never HEALTHY.
func TestHCAHeadersOnlyNotJudged(t *testing.T) {
	for _, text := range []string{
		"CA 'ibv_device0' |\nCA type: |\nNumber of ports: 1 |\nPort 1: |\nState: Initializing |\nPhysical state: LinkUp |\n",
		"hca_id:\tmlx5_1\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t20.28.1002\n",
	} {
		r := Run([]Input{{Name: "h.txt", Text: text}}, Options{})
		if r.ExitCode != finding.ExitCannot {
			t.Errorf("exit %d, want %d: %s", r.ExitCode, finding.ExitCannot, jsonOf(t, r))
		}
	}
}

// TestGIDIndexBesideShowGIDs: NCCL_IB_GID_INDEX set on a line of the paste
// is judged against the show_gids table beside it (NVIDIA/nccl#1510: both
// nodes export NCCL_IB_GID_INDEX=4, the IPv4 RoCE v1 GID of mlx5_0).
func TestGIDIndexBesideShowGIDs(t *testing.T) {
	const table = "show_gids\n" +
		"DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n" +
		"---     ----    -----   ---                                     ------------    ---     ---\n" +
		"mlx5_0  1       4       0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21      v1      net1\n" +
		"mlx5_0  1       5       0000:0000:0000:0000:0000:ffff:0a0c:0015 10.12.0.21      v2      net1\n" +
		"mlx5_0  1       6       fe80:0000:0000:0000:9cbb:b7ff:feb3:937a                 v1      net1\n" +
		"mlx5_0  1       7       fe80:0000:0000:0000:9cbb:b7ff:feb3:937a                 v2      net1\n"
	const node1 = "Node 1:\nexport NCCL_IB_GID_INDEX=4\nexport NCCL_IB_HCA=mlx5\nexport NCCL_DEBUG=INFO\n\n"
	for _, tc := range []struct {
		name, in string
		want     []string
		evidence string
	}{
		{"exported index is RoCE v1", node1 + "Node 2:\nexport NCCL_IB_GID_INDEX=4\n\n" + table, []string{"nccl.gid_index_wrong/critical"}, "g.txt:2"},
		{"exported index is RoCE v2", strings.Replace(node1, "=4", "=5", 1) + table, nil, ""},
		{"two nodes set different values", node1 + "Node 2:\nexport NCCL_IB_GID_INDEX=5\n\n" + table, nil, ""},
		{"commented out", strings.Replace(node1, "export NCCL_IB_GID_INDEX", "# export NCCL_IB_GID_INDEX", 1) + table, nil, ""},
		{"NCCL_IB_HCA names another device", strings.Replace(node1, "NCCL_IB_HCA=mlx5", "NCCL_IB_HCA=mlx5_1", 1) + table, nil, ""},
		{"no setting", table, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := AnalyzeText("g.txt", tc.in, Options{})
			var got []string
			var fs []finding.Finding
			for _, s := range r.Segments {
				got = append(got, ids(s.Findings)...)
				fs = append(fs, s.Findings...)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			if tc.evidence != "" && (len(fs[0].Evidence) == 0 || fs[0].Evidence[0].Source != tc.evidence) {
				t.Errorf("evidence %+v, want it at %s", fs[0].Evidence, tc.evidence)
			}
		})
	}
}

// TestVerbsProviderMissing: libibverbs' warnings under the ibv_devinfo
// command start its output (NVIDIA/caffe#590: a container given
// /dev/infiniband/uverbs1 lists "0 HCAs found:" after five warnings);
// with a device still listed the missing provider is a warning.
func TestVerbsProviderMissing(t *testing.T) {
	warn := func(n int) string {
		return fmt.Sprintf("libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs%d\n", n)
	}
	const active = "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\tport:\t1\n\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\tlink_layer:\t\tInfiniBand\n"
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"no HCA listed", "Container started and work well, but ibv_devinfo -l gives:\n\n```shell\nibv_devinfo -l\n" + warn(4) + warn(3) + warn(0) + "0 HCAs found:\n\n```\n",
			[]string{"host.verbs_provider_missing/critical"}},
		{"one device listed beside", "$ ibv_devinfo\n" + warn(1) + active, []string{"host.verbs_provider_missing/warning"}},
		{"no IB devices found", "$ ibv_devinfo\n" + warn(0) + "No IB devices found\n", []string{"host.verbs_provider_missing/critical"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := AnalyzeText("v.txt", tc.in, Options{})
			var got []string
			for _, s := range r.Segments {
				got = append(got, ids(s.Findings)...)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v; segments %+v", got, tc.want, r.Segments)
			}
		})
	}
}

// TestFoldSamePorts: ibstat and ibv_devinfo pasted together for one host
// (a ConnectX-3 in a container, realworld-fresh38's dockerib sample) show
// its unused Ethernet port 2 twice: one finding, the one that knows the
// physical state, with both outputs' evidence. Two ibstat outputs are two
// hosts' and keep a finding each.
func TestFoldSamePorts(t *testing.T) {
	b, err := os.ReadFile("testdata/realworld-fresh38/perftest-dockerib-mlx4-qdr-ibstat-devinfo-write-bw-mbs.txt")
	if err != nil {
		t.Fatal(err)
	}
	// As pasted, port 2 is the only Ethernet port beside the ACTIVE
	// InfiniBand one: switched off, a note in both outputs, no finding.
	r := Run([]Input{{Name: "p.txt", Text: string(b)}}, Options{})
	if len(r.Findings) != 0 {
		t.Errorf("findings %v, want none", r.Findings)
	}
	for _, seg := range r.Files[0].Segments[:2] {
		if !slices.ContainsFunc(seg.Skipped, func(s string) bool { return strings.Contains(s, "mlx4_0 port 2 (Ethernet, RoCE) is") }) {
			t.Errorf("%s: no note on the switched-off port: %q", seg.Kind, seg.Skipped)
		}
	}
	// With port 1 on Ethernet too, port 2 is reported once.
	r = Run([]Input{{Name: "p.txt", Text: strings.ReplaceAll(string(b), "InfiniBand", "Ethernet")}}, Options{})
	var got []string
	var port []finding.Finding
	for _, f := range r.Findings {
		if !strings.HasPrefix(f.ID, "port.") {
			continue // the perftest's rate, now judged against 40 GbE
		}
		port = append(port, f)
		got = append(got, fmt.Sprintf("%s/%s %s/%d %d", f.ID, f.Severity, f.Subject.Device, f.Subject.Port, len(f.Evidence)))
	}
	if want := []string{"port.disabled/warning mlx4_0/2 3"}; !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
	if !strings.Contains(port[0].Summary, "other ports of this HCA model are ACTIVE") {
		t.Errorf("summary %q", port[0].Summary)
	}
	ibstat := "CA 'mlx5_0'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Polling\n\t\tRate: 10\n\t\tBase lid: 65535\n\t\tSM lid: 0\n\t\tLink layer: InfiniBand\n"
	r = Run([]Input{{Name: "two.txt", Text: "$ ibstat\n" + ibstat + "\n$ ibstat\n" + ibstat}}, Options{})
	if n := len(r.Findings); n != 2 {
		t.Errorf("two hosts' ibstat: %d findings, want 2: %+v", n, r.Findings)
	}
}
