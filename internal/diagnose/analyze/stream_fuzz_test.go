package analyze

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// FuzzAnalyzeReader: any input read from a reader gives, small, the
// report AnalyzeText gives and, streamed as a big one, segments inside
// its lines; an input that streams (a kernel or NCCL log, alone or among
// other outputs) gives the other outputs' segments of the same input
// read whole, and, when each log is in one run, its findings (IDs and
// subjects).
func FuzzAnalyzeReader(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata/realworld", "*"))
	for _, p := range files {
		base := filepath.Base(p)
		if !strings.HasPrefix(base, "nccl-log") && !strings.HasPrefix(base, "dmesg") && !strings.HasPrefix(base, "journalctl") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	// Logs among other tools' outputs.
	rw := func(name string) string { return read(f, filepath.Join("realworld", name)) }
	f.Add("$ ibstat\n" + rw("ibstat-network-operator-249.txt") + "$ nvidia-smi topo -m\n" + rw("nvidia-smi-topo-nccl933-h100-9nic.txt") + gen(30, ncclFloodLine))
	f.Add(gen(20, ncclOnlyLine) + rw("perftest-oci-oke-roce-write-bw-4qp.txt") + rw("ibstat-network-operator-249.txt") + rw("nccl-tests-superbench-allreduce-a100.txt") + gen(10, kernelFloodLine) + rw("ethtool-ethq-tests-mlx5.txt"))
	f.Add(gen(20, kernelFloodLine) + rw("ibnetdiscover-ufm-sdk-small-topo.txt") + rw("iblinkinfo-archwiki-b2b-ddr.txt") + "```\nprose\n```\n" + "$ rdma link show\n" + rw("rdma-link-3fs-263.txt") + gen(5, ncclOnlyLine))
	// An editor's line numbers glued to dmesg stamps, a wrapped line among them (realworld-fresh26).
	f.Add("1700[   22.316553] mlx5_core 0000:13:00.0: mlx5_pcie_event:297:(pid 11): PCIe slot power capability was not advertised.\n" +
		"1701 [   22.325345] mlx5_core 0000:63:00.0: 504.112 Gb/s available PCIe bandwidth (32.0 GT/s PCIe x16 link)\n     2/4-1.2.1\n" +
		"1702 [   22.648340] nvme nvme0: I/O 33 QID 10 timeout\n1703 [   22.7] nvme nvme0: starting error recovery\n")
	// A CONFIG_PRINTK_CALLER kernel's caller ids, alone and after a stamp,
	// two records glued on one line (realworld-fresh32 lore netdev igb).
	f.Add("[ T3256] igb 0000:09:00.0 haeth0: igb: haeth0 NIC Link is Down\n" +
		"[  T292] pcieport 0000:00:1c.5: AER: Uncorrected (Non-Fatal) error received: 0000:09:00.0\n" +
		"[  T292] igb 0000:09:00.0:    [14] CmpltTO [  200.105524,009][  T292] igb 0000:09:00.0: AER:   TLP Header: 00000000 00000000 00000000 00000000\n" +
		"[  200.105524][  T292] kernel BUG at net/core/dev.c:6539!\n[  200.105525] [    C3]  ? die+0x33/0x90\n" + gen(5, ncclOnlyLine))
	f.Fuzz(func(t *testing.T, in string) {
		opts := Options{Year: 2024}
		whole := AnalyzeText("f", in, opts)
		if g, w := jsonOf(t, AnalyzeReader("f", strings.NewReader(in), int64(len(in)), opts)), jsonOf(t, whole); g != w {
			t.Fatalf("small input read from a reader differs:\n%s\nAnalyzeText:\n%s", g, w)
		}
		got := streamed(t, "f", in, opts)
		lines := len(Lines(in))
		for _, s := range got.Segments {
			if s.Start < 1 || s.End > lines || s.Start > s.End {
				t.Fatalf("streamed segment %d-%d outside %d lines", s.Start, s.End, lines)
			}
		}
		if _, ok, _ := streamKind(in, opts); !ok || len(whole.Segments) > maxOutputs {
			return
		}
		// The other tools' outputs are judged as read whole; a log in
		// one run gives its findings, a log in several runs is judged
		// once streamed (each run alone read whole).
		other := func(f File) string {
			var out []Segment
			for _, s := range f.Segments {
				if s.Kind != KindKernel && s.Kind != KindNCCLLog {
					out = append(out, s)
				}
			}
			return jsonOf(t, out)
		}
		if g, w := other(got), other(whole); g != w {
			t.Fatalf("streamed outputs\n%s\nread whole\n%s", g, w)
		}
		if runs(whole, KindKernel) > 1 || runs(whole, KindNCCLLog) > 1 {
			return
		}
		if g, w := findingKeys(got), findingKeys(whole); !slices.Equal(g, w) {
			t.Fatalf("streamed findings %q, read whole %q", g, w)
		}
	})
}

func findingKeys(f File) []string {
	var out []string
	for _, s := range f.Segments {
		for _, x := range s.Findings {
			out = append(out, x.ID+" "+subjectJSON(x.Subject))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func subjectJSON(s finding.Subject) string {
	b, _ := json.Marshal(s)
	return string(b)
}
