package analyze

import (
	"slices"
	"strings"
	"testing"
)

// One line a parser refuses (the poster's "...", a typed remark) is listed
// with its number and the rest of the output is judged, instead of the
// whole output being lost.
func TestRefusedLinesAreSkipped(t *testing.T) {
	linkinfo := `Switch: 0x0c42a10300b95bfa MF0;sw1:MQM8700/U1:
           3    1[  ] ==( 4X        53.125 Gbps Active/  LinkUp)==>       1    1[  ] "gpu0 HCA-1" ( )
           3    2[  ] ==( 4X        53.125 Gbps Active/  LinkUp)==>       2    1[  ] "gpu1 HCA-1" ( )
%s
           3    3[  ] ==( 4X        53.125 Gbps Active/  LinkUp)==>       4    1[  ] "gpu2 HCA-1" ( )
`
	tests := []struct {
		name, bad string
		wantLine  string // the skipped line's mention; "" when the output must fail
	}{
		{"elision", "           ...", "p:4: "},
		{"typed remark", "           (the other ports are the same)", "p:4: "},
		{"nothing refused", "           3    4[  ] ==( 4X        53.125 Gbps Active/  LinkUp)==>       5    1[  ] \"gpu3 HCA-1\" ( )", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Run([]Input{{Name: "p", Text: strings.Replace(linkinfo, "%s", tc.bad, 1)}}, Options{})
			if r.ExitCode == 3 {
				t.Fatalf("exit 3: %+v", r.Files[0].Segments)
			}
			seg := r.Files[0].Segments[0]
			if seg.Failed || seg.Kind != KindLinkInfo {
				t.Fatalf("segment %+v", seg)
			}
			sk := strings.Join(seg.Skipped, "\n")
			if tc.wantLine != "" && !strings.Contains(sk, tc.wantLine) {
				t.Errorf("skipped %q, want it to name %q", sk, tc.wantLine)
			}
			if tc.wantLine == "" && strings.Contains(sk, "p:") {
				t.Errorf("skipped %q on a clean output", sk)
			}
		})
	}
}

// A file with no header whose lines mostly look like one tool's is read
// as that tool's output, and says so.
func TestHeaderlessReadAsClosest(t *testing.T) {
	text := "Hi, the port counters:\n" +
		"     rx_packets: 1000\n     tx_packets: 2000\n     rx_bytes: 64000\n     tx_bytes: 128000\n" +
		"     rx_discards_phy: 0\n     tx_pause_ctrl_phy: 0\n"
	r := Run([]Input{{Name: "p", Text: text}}, Options{})
	f := r.Files[0]
	if f.NotRecognised || len(f.Segments) != 1 || f.Segments[0].Kind != KindEthtool || r.ExitCode == 3 {
		t.Fatalf("file %+v", f)
	}
	// The prose line in front is listed as skipped, by its number (the
	// ethtool parser reads bodies without their header itself; other
	// kinds say the output was read as the closest kind).
	if sk := strings.Join(f.Segments[0].Skipped, "\n"); !strings.Contains(sk, "p:1:") && !strings.Contains(sk, "read as ethtool output") {
		t.Errorf("skipped %q: want the prose line named", f.Segments[0].Skipped)
	}
	// Lines that resemble a tool's but cannot be read as its output
	// without the header (iblinkinfo port lines need their switch) stay
	// unrecognised, naming the closest kind.
	r = Run([]Input{{Name: "p", Text: "           3    1[  ] ==( 4X 53.125 Gbps Active/  LinkUp)==>  1    1[  ] \"gpu0 HCA-1\" ( )\n"}}, Options{})
	if !r.Files[0].NotRecognised || r.Files[0].Closest == nil || r.Files[0].Closest.Kind != KindLinkInfo {
		t.Errorf("port line alone: %+v", r.Files[0])
	}
	// Prose alone stays unrecognised.
	r = Run([]Input{{Name: "p", Text: "the job hangs after an hour\nany idea?\n"}}, Options{})
	if !r.Files[0].NotRecognised || r.ExitCode != 3 {
		t.Errorf("prose: %+v exit %d", r.Files[0], r.ExitCode)
	}
}

// A parser that numbers lines within its segment (nvidia-smi topo -m
// after prose) has the refused line renumbered to the file's.
func TestRefusedLineInSegmentNumbering(t *testing.T) {
	text := "the box:\n\n" +
		"\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n" +
		"GPU0\t X \tSYS\tSYS\t0-31\t0\n" +
		"GPU1\tSYS\t X \tPIX\t0-31\t0\n" +
		"NIC0\tSYS\tPIX\t X \n" +
		"GPU7 sys\n\nLegend:\n\n  X    = Self\n\nNIC Legend:\n\n  NIC0: mlx5_0\n"
	r := Run([]Input{{Name: "p", Text: text}}, Options{})
	var seg *Segment
	for i, s := range r.Files[0].Segments {
		if s.Kind == KindTopo {
			seg = &r.Files[0].Segments[i]
		}
	}
	if seg == nil || seg.Failed {
		t.Fatalf("segments %+v", r.Files[0].Segments)
	}
	if sk := strings.Join(seg.Skipped, "\n"); !strings.Contains(sk, "p:7: not read") {
		t.Errorf("skipped %q, want line 7 named", sk)
	}
	if len(r.Findings) == 0 || r.Findings[0].ID != "topo.gpu_nic_far" {
		t.Errorf("findings %+v, want topo.gpu_nic_far from the rows read", r.Findings)
	}
}

// A port block of ibv_devinfo pasted without its hca_id line is an
// ibv_devinfo output (its port judged); a "port:" line of another text is not.
func TestDevinfoPortBlockDetected(t *testing.T) {
	block := "                port:   1\n                        state:                  PORT_DOWN (1)\n                        phys_state:             POLLING (2)\n                        link_layer:             InfiniBand\n"
	fr := AnalyzeText("p.txt", block, Options{})
	polling := func(id string) bool { return strings.HasPrefix(id, "port.polling/") }
	if len(fr.Segments) != 1 || fr.Segments[0].Kind != KindDevinfo || !slices.ContainsFunc(ids(fr.Segments[0].Findings), polling) {
		t.Errorf("segments %+v", fr.Segments)
	}
	fr = AnalyzeText("q.txt", "port: 8080\nstate: listening\n", Options{})
	if len(fr.Segments) > 0 && fr.Segments[0].Kind == KindDevinfo {
		t.Errorf("a web server's port line read as ibv_devinfo: %+v", fr.Segments)
	}
}

// The ethtool command pasted without a prompt above a grep of its counters
// (luigirizzo/netmap#649) names the body: an ethtool output of one counter.
func TestEthtoolCommandWithoutPrompt(t *testing.T) {
	fr := AnalyzeText("e.txt", " ethtool -S enp193s0f0np0 | grep \"48\"\n     rx_out_of_buffer: 48\n     ..\n", Options{})
	if len(fr.Segments) != 1 || fr.Segments[0].Kind != KindEthtool || !strings.Contains(fr.Segments[0].Summary, "enp193s0f0np0") {
		t.Errorf("segments %+v", fr.Segments)
	}
}

// TestIbqueryerrorsPortLineAfterProse: one ibqueryerrors port line under a
// sentence and inside a markdown fence (openucx/ucx#9590) starts that
// tool's output by itself, and its aggregate counters are judged.
func TestIbqueryerrorsPortLineAfterProse(t *testing.T) {
	text := "when executing for example `ibqueryerrors -c -s XmWait` did you get something like\n```\n" +
		" GUID 0x1070fd0300370ea2 port ALL: [LinkDownedCounter == 25 (25.000)] [PortRcvErrors == 26 (26.000)] [PortXmitDiscards == 2846 (2.779K)] [PortXmitWait == 14681376621 (13.673G)]\n```\n"
	r := Run([]Input{{Name: "paste.txt", Text: text}}, Options{})
	var ids []string
	for _, f := range r.Findings {
		ids = append(ids, f.ID)
	}
	if r.ExitCode == 3 || !slices.Contains(ids, "fabric.link_errors") {
		t.Fatalf("exit %d, findings %v", r.ExitCode, ids)
	}
}
