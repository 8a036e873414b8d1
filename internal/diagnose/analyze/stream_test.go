package analyze

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// streamed analyses text as a big input, whatever its size.
func streamed(t testing.TB, name, text string, opts Options) File {
	t.Helper()
	old := streamAbove
	streamAbove = 0
	defer func() { streamAbove = old }()
	return AnalyzeReader(name, strings.NewReader(text), int64(len(text)), opts)
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every kernel and NCCL log of the real-world corpus gives the same
// report streamed as read whole: segments, summaries, skipped lines and
// findings.
func TestStreamSameAsInMemory(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata/realworld", "*"))
	n := 0
	for _, p := range files {
		base := filepath.Base(p)
		if !strings.HasPrefix(base, "nccl-log") && !strings.HasPrefix(base, "dmesg") && !strings.HasPrefix(base, "journalctl") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Year: 2024}
		want := AnalyzeText(base, string(b), opts)
		if _, ok, why := streamKind(string(b), opts); !ok {
			t.Logf("%s: not streamed: %s", base, why)
			continue
		}
		n++
		got := streamed(t, base, string(b), opts)
		if runs(want, KindNCCLLog) > 1 || runs(want, KindKernel) > 1 {
			// One log in several runs is one segment streamed: the
			// findings are the same.
			want, got = findingsOf(want), findingsOf(got)
		}
		if w, g := jsonOf(t, want), jsonOf(t, got); w != g {
			t.Errorf("%s: streamed report differs:\n--- in memory\n%s\n--- streamed\n%s", base, w, g)
		}
	}
	if n < 10 {
		t.Errorf("only %d corpus files streamed", n)
	}
}

func runs(f File, k Kind) int {
	n := 0
	for _, s := range f.Segments {
		if s.Kind == k {
			n++
		}
	}
	return n
}

// findingsOf is f with its findings only, in one segment.
func findingsOf(f File) File {
	var fs []finding.Finding
	for _, s := range f.Segments {
		fs = append(fs, s.Findings...)
	}
	catalog.Sort(fs)
	return File{File: f.File, Segments: []Segment{{Findings: fs}}}
}

// kernelFloodLine is line i of a kernel log in which faults repeat far
// past what the rules quote: flapping links (and "Link up" printed twice),
// AER floods with and without detail lines, Xids of several processes,
// module and health events, a degraded PCIe link, between ordinary lines.
func kernelFloodLine(i int) string {
	msgs := []string{
		"mlx5_core 0000:3b:00.0 ens1f0np0: Link down",
		"mlx5_core 0000:3b:00.0 ens1f0np0: Link up",
		"mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE",
		"mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE",
		"mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link DOWN",
		"pcieport 0000:00:1c.5: AER: Multiple Corrected error received: id=00e5",
		"pcieport 0000:3a:00.0: AER: Corrected error received: 0000:3b:00.0",
		"mlx5_core 0000:3b:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
		"mlx5_core 0000:3b:00.0:    [ 0] RxErr                  (First)",
		"pcieport 0000:3a:00.0: AER: Uncorrected (Non-Fatal) error received: 0000:5e:00.0",
		"NVRM: Xid (PCI:0000:9b:00): 31, pid=3303, name=pt_main_thread, Ch 00000008, intr 00000000. MMU Fault",
		"NVRM: Xid (PCI:0000:9b:00): 31, pid=3304, name=python3, Ch 00000008, intr 00000000. MMU Fault",
		"NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.",
		"mlx5_core 0000:5e:00.0: Port module event: module 3, Cable error, Bus stuck (I2C or data shorted)",
		"mlx5_core 0000:5e:00.0: Port module event: module 3, Cable unplugged",
		"mlx5_core 0000:5e:00.0: poll_health:800:(pid 0): device's health compromised - reached miss count",
		"mlx5_core 0000:5e:00.0: wait_func:1171:(pid 12): ACCESS_REG(0x805) timeout. Will cause a leak of a command resource",
		"mlx5_core 0000:86:00.0: 15.752 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x2 link at 0000:85:00.0 (capable of 31.504 Gb/s with 8.0 GT/s PCIe x4 link)",
		"bond1: (slave ens3f0): link status definitely down, disabling slave",
		"bond1: (slave ens3f1): link status definitely down, disabling slave",
		"bond1: now running without any active interface!",
		"bond1: (slave ens3f1): link status definitely up, 100000 Mbps full duplex",
		"bond1: active interface up!",
		"ixgbe 0000:03:00.0 eno49: NIC Link is Down",
		"EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.",
		"systemd[1]: Started Session 4 of User root.",
	}
	// Not every message in every round: the order of kinds shifts.
	m := msgs[(i*7+i/len(msgs))%len(msgs)]
	return fmt.Sprintf("[%6d.%06d] %s\n", 100+i/1000, i%1000*997, m)
}

// ncclFloodLine is line i of an NCCL log of 16 processes whose ranks fail
// again and again: completion errors from several peers and statuses,
// failed verbs calls, watchdog timeouts (a rank printing its own twice),
// other warnings, GPU Direct RDMA lines at every communicator.
func ncclFloodLine(i int) string {
	host, pid := fmt.Sprintf("gpu%02d", i%4), 1000+i%16
	p := fmt.Sprintf("%s:%d:%d [%d] ", host, pid, pid+7, i%8)
	msgs := []string{
		p + "NCCL INFO Channel 00/02 : 0 1 2 3 4 5 6 7",
		p + "NCCL INFO Channel 01/0 : 3[3] -> 11[3] [send] via NET/IB/3/GDRDMA",
		p + "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB ; OOB ib0:10.0.0.1<0>",
		p + "NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'",
		p + "NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_3'",
		p + "NCCL INFO comm 0x5581 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 3b000 commId 0x1 - Init COMPLETE",
		p + fmt.Sprintf("transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.%d<33006> with status=%d opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.9 hca mlx5_0", i%3, []int{12, 5, 12, 4}[i%4]),
		p + "misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory",
		p + "NCCL WARN Cuda failure 'out of memory'",
		p + "NCCL WARN NET/IB : req 4/1 tag 7 peer 10.0.0.2 collective timed out",
		fmt.Sprintf("[rank%d]:[E ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600%03d milliseconds before timing out.", i%3, i%3, 41+i%3/2, i%1000),
		"Epoch 3 step 1200 loss 2.31",
	}
	return msgs[(i*5+i/len(msgs))%len(msgs)] + "\n"
}

func gen(n int, line func(int) string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(line(i))
	}
	return b.String()
}

// Logs whose faults repeat far past what the findings quote give the same
// report streamed (events folded into counts) as read whole.
func TestStreamFoldsAsInMemory(t *testing.T) {
	for _, tt := range []struct {
		name string
		text string
	}{
		{"kernel flood", gen(3000, kernelFloodLine)},
		{"nccl flood", gen(3000, ncclFloodLine)},
		// Carrier losses logged in runs, then their gains (a daemon's
		// lines, as systemd-networkd's in azurehpc-health-checks
		// test/data/1dev_6flap_syslog): the gains answer the losses.
		{"carrier runs", gen(3000, func(i int) string {
			if i%2 == 0 {
				return kernelFloodLine(i / 2)
			}
			st := "lost"
			if i/2%20 >= 10 {
				st = "Gained"
			}
			return fmt.Sprintf("Aug 17 06:18:06 vm0 systemd-networkd[5398]: ib6: %s carrier\n", st)
		})},
		// Crashes and EDAC errors past their evidence: folded into counts.
		{"crash and memory floods", gen(3000, func(i int) string {
			switch i % 4 {
			case 1:
				return fmt.Sprintf("[%6d.%06d] pt_main_thread[%d]: segfault at 7f797fe00000 ip 00007f7c7ac69996 sp 00007f7c12fd7c30 error 4 in libnccl.so.2[7f7c7ac00000+d3d3000]\n", 100+i/1000, i%1000, 2536443+i%3)
			case 3:
				return fmt.Sprintf("[%6d.%06d] EDAC MC3: %d %s memory read error on CPU_SrcID#1_MC#1_Chan#2_DIMM#%d (channel:2 slot:0 page:0xb757589)\n", 100+i/1000, i%1000, 1+i%2, []string{"UE", "CE"}[i/4%2], i/8%2)
			}
			return kernelFloodLine(i / 2)
		})},
		// mlx5 command failures past their evidence, each after the
		// kernel's rate-limit note (openucx/ucx#6264): the suppressed
		// counts of the folded ones add up as in memory.
		{"command failures with rate-limit notes", gen(3000, func(i int) string {
			switch i % 4 {
			case 1:
				return fmt.Sprintf("[%6d.%06d] mlx5_cmd_out_err: %d callbacks suppressed\n", 100+i/1000, i%1000, 1000+i)
			case 2:
				return fmt.Sprintf("[%6d.%06d] mlx5_core 0000:41:00.0: mlx5_cmd_out_err:800:(pid %d): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x18af6), err(-12)\n", 100+i/1000, i%1000, 233522+i)
			}
			return kernelFloodLine(i / 2)
		})},
		// mlx5 CQ errors past their evidence (ofiwg/libfabric#4525,
		// linux-nvme/nvme-cli#3268), with queue numbers and vendor
		// syndromes that vary: the queues named, the syndromes and
		// their order are the same streamed.
		{"CQ errors", gen(3000, func(i int) string {
			switch i % 6 {
			case 1:
				return fmt.Sprintf("[%6d.%06d] mlx5_core 0000:02:00.0: mlx5_eq_int:556:(pid 0): CQ error on CQN 0x%x, syndrom 0x1\n", 100+i/1000, i%1000, 0x400+i%50)
			case 2:
				return fmt.Sprintf("[%6d.%06d] infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn 0x%x:\n", 100+i/1000, i%1000, 0x406+i%7)
			case 3:
				return fmt.Sprintf("[%6d.%06d] infiniband rocep33s0f0: mlx5_poll_one:530:(pid 0): syndrome 0x%x, vendor syndrome 0x%x\n", 100+i/1000, i%1000, []int{5, 5, 0x15}[i/6%3], 0xf0+i/6%11)
			}
			return kernelFloodLine(i / 2)
		})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := AnalyzeText("f", tt.text, Options{Year: 2026})
			got := streamed(t, "f", tt.text, Options{Year: 2026})
			if len(want.Segments) != 1 || len(want.Segments[0].Findings) < 3 {
				t.Fatalf("the flood is not what the test needs: %s", jsonOf(t, want))
			}
			if w, g := jsonOf(t, want), jsonOf(t, got); w != g {
				t.Errorf("streamed report differs:\n--- in memory\n%s\n--- streamed\n%s", w, g)
			}
		})
	}
}

// genReader yields lines line(0), line(1), … until size bytes, without
// holding them: the input of the memory and speed tests.
type genReader struct {
	line func(int) string
	i    int
	left int64
	buf  []byte
	// sample, when set, is called every 8 MiB read.
	sample func()
	since  int64
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.left <= 0 && len(g.buf) == 0 {
		return 0, io.EOF
	}
	// Lines are copied straight into p (what is left of the last one
	// waits in buf): the generator costs one copy, as a file's read does.
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	for n < len(p) && g.left > 0 {
		l := g.line(g.i)
		g.i++
		g.left -= int64(len(l))
		c := copy(p[n:], l)
		n += c
		g.buf = append(g.buf[:0], l[c:]...)
	}
	if g.since += int64(n); g.sample != nil && g.since >= 8<<20 {
		g.since = 0
		g.sample()
	}
	return n, nil
}

// ncclOnlyLine is ncclFloodLine with the lines that carry no "NCCL
// INFO" or "NCCL WARN" (watchdog reports, the program's own output)
// replaced by a channel line: interleaved with kernel lines, every line
// starts a new run.
func ncclOnlyLine(i int) string {
	l := ncclFloodLine(i)
	if strings.Contains(l, "NCCL INFO") || strings.Contains(l, "NCCL WARN") {
		return l
	}
	return fmt.Sprintf("gpu%02d:%d:%d [0] NCCL INFO Channel 00/02 : 0 1 2 3\n", i%4, 1000+i%16, 1007+i%16)
}

// interleavedLine alternates kernel and NCCL lines.
func interleavedLine(i int) string {
	if i%2 == 0 {
		return kernelFloodLine(i / 2)
	}
	return ncclOnlyLine(i / 2)
}

// cycle returns the first n lines of line, to be repeated cheaply.
func cycle(n int, line func(int) string) func(int) string {
	ls := make([]string, n)
	for i := range ls {
		ls[i] = line(i)
	}
	return func(i int) string { return ls[i%n] }
}

// Analysing a 200 MB stream keeps the heap small: what is held is the
// folded events and the read buffer, not the input (buffered whole, the
// heap would pass 200 MB).
func TestStreamMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB")
	}
	const size = 200 << 20
	const bound = 48 << 20
	runtime.GC()
	var peak uint64
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	// Kernel and NCCL lines interleaved: both logs, a run per line.
	g := &genReader{line: cycle(20011, interleavedLine), left: size, sample: sample}
	f := AnalyzeReader("big.log", g, -1, Options{Year: 2026})
	sample()
	if len(f.Segments) != 2 || f.Segments[0].Failed || f.Segments[1].Failed || len(f.Segments[0].Findings) == 0 || len(f.Segments[1].Findings) == 0 {
		t.Fatalf("not analysed: %s", jsonOf(t, f))
	}
	t.Logf("heap in use at most %d MiB over %d MiB read", peak>>20, size>>20)
	if peak > bound {
		t.Errorf("heap in use reached %d MiB analysing %d MiB: not bounded (limit %d MiB)", peak>>20, size>>20, bound>>20)
	}
}

// Kernel and NCCL lines interleaved line by line stream as one kernel log
// and one NCCL log, with the findings each gives alone.
func TestStreamInterleaved(t *testing.T) {
	const n = 4000
	got := streamed(t, "p", gen(2*n, interleavedLine), Options{Year: 2026})
	if len(got.Segments) != 2 || got.Segments[0].Kind != KindKernel || got.Segments[1].Kind != KindNCCLLog {
		t.Fatalf("segments: %s", jsonOf(t, got))
	}
	for _, s := range got.Segments {
		if !slices.Contains(s.Skipped, fmt.Sprintf("its lines come in %d runs between other outputs' lines: judged as one log", n)) {
			t.Errorf("%s: skipped %q", s.Kind, s.Skipped)
		}
	}
	alone := func(line func(int) string) []string {
		var ids []string
		for _, s := range streamed(t, "p", gen(n, line), Options{Year: 2026}).Segments {
			for _, f := range s.Findings {
				ids = append(ids, f.ID+": "+f.Summary)
			}
		}
		return ids
	}
	for i, want := range [][]string{alone(kernelFloodLine), alone(ncclOnlyLine)} {
		var ids []string
		for _, f := range got.Segments[i].Findings {
			ids = append(ids, f.ID+": "+f.Summary)
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%s: interleaved findings\n%s\nalone\n%s", got.Segments[i].Kind, strings.Join(ids, "\n"), strings.Join(want, "\n"))
		}
	}
}

// A line too long to hold is skipped with its number; the rest is read.
func TestStreamSkipsOverlongLines(t *testing.T) {
	text := gen(100, ncclFloodLine) + strings.Repeat("x", maxStreamLine+10) + "\n" + gen(100, ncclFloodLine)
	got := streamed(t, "f", text, Options{})
	if len(got.Segments) != 1 || got.Segments[0].Failed {
		t.Fatalf("%s", jsonOf(t, got))
	}
	want := fmt.Sprintf("f:101: longer than %d KiB, not read", maxStreamLine>>10)
	if !slices.Contains(got.Segments[0].Skipped, want) {
		t.Errorf("skipped %q, want %q", got.Segments[0].Skipped, want)
	}
	if !strings.Contains(got.Segments[0].Summary, "16 processes") {
		t.Errorf("summary %q", got.Segments[0].Summary)
	}
}

// Inputs that cannot stream: an endless run of NUL bytes is refused after
// its first bytes; an output of another kind bigger than what is read
// whole is refused by its size, before it is read.
func TestStreamRefuses(t *testing.T) {
	done := make(chan File)
	go func() { done <- AnalyzeReader("zero", zeros{}, -1, Options{}) }()
	select {
	case f := <-done:
		if !strings.Contains(f.Error, "binary data") {
			t.Errorf("endless zeros: %+v", f)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("endless zeros: still reading after 10 s")
	}
	ibstat := strings.Repeat("CA 'mlx5_0'\n\tCA type: MT4123\n\tNumber of ports: 1\n", (StreamAbove+decideOn)/40)
	f := AnalyzeReader("big-ibstat.txt", strings.NewReader(ibstat), MaxInMemory+1, Options{})
	if want := "big-ibstat.txt: 512 MiB, more than the 512 MiB read whole (it holds ibstat output); only kernel and NCCL logs are streamed: split it"; f.Error != want {
		t.Errorf("error %q, want %q", f.Error, want)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// BenchmarkStream measures the streaming path on generated NCCL and kernel
// logs (go test -bench Stream -run ^$ ./internal/diagnose/analyze).
func BenchmarkStream(b *testing.B) {
	for _, bb := range []struct {
		name string
		line func(int) string
	}{
		{"nccl", ncclFloodLine},
		{"kernel", kernelFloodLine},
	} {
		line := cycle(10007, bb.line)
		b.Run(bb.name, func(b *testing.B) {
			const size = 64 << 20
			b.SetBytes(size)
			for b.Loop() {
				AnalyzeReader("b", &genReader{line: line, left: size}, -1, Options{Year: 2026})
			}
		})
	}
}

// BenchmarkStreamFile measures the streaming path on the file named by
// IBDOCTOR_BENCH_FILE (a log from bench/genlog, say), skipped when unset:
// IBDOCTOR_BENCH_FILE=/tmp/nccl.log go test -bench StreamFile -run ^$ ./internal/diagnose/analyze
func BenchmarkStreamFile(b *testing.B) {
	name := os.Getenv("IBDOCTOR_BENCH_FILE")
	if name == "" {
		b.Skip("IBDOCTOR_BENCH_FILE not set")
	}
	st, err := os.Stat(name)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		AnalyzeReader(name, f, st.Size(), Options{Year: 2026})
		f.Close()
	}
}

// chunkReader returns at most n bytes a read, so that lines straddle the
// reader's buffer.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// Lines are split as Lines splits them whatever the reads and block
// boundaries: LF, CRLF and bare CR, lines around the block size, a last
// line without its end.
func TestStreamLinesAcrossBlocks(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("p", n) + "\n" }
	var b strings.Builder
	for i := 0; i < 600; i++ {
		l := ncclFloodLine(i)
		switch i % 5 {
		case 1:
			l = strings.TrimSuffix(l, "\n") + "\r\n"
		case 2:
			l = strings.TrimSuffix(l, "\n") + "\r" // a bare CR ends the line
		case 3:
			l = "\r\n" + l
		}
		b.WriteString(l)
		switch i {
		case 100:
			b.WriteString(pad(readBlock - 1))
		case 200:
			b.WriteString(pad(readBlock))
		case 300:
			b.WriteString(pad(readBlock + 1))
		case 400:
			b.WriteString(pad(3*readBlock) + "\r" + pad(10))
		}
	}
	b.WriteString(strings.TrimSuffix(ncclFloodLine(7), "\n"))
	text := b.String()
	want := jsonOf(t, AnalyzeText("f", text, Options{}))
	old := streamAbove
	streamAbove = 0
	defer func() { streamAbove = old }()
	for _, n := range []int{1 << 30, 4096, 777, readBlock + 3} {
		got := jsonOf(t, AnalyzeReader("f", chunkReader{strings.NewReader(text), n}, -1, Options{}))
		if got != want {
			t.Errorf("reads of %d bytes: streamed report differs:\n--- in memory\n%s\n--- streamed\n%s", n, want, got)
		}
	}
}

// A kernel log that ends inside a crash report (the mail of
// testdata/realworld-fresh12 dmesg-linuxrdma-mlx5-cmd-comp-handler-gpf-shutdown.txt
// stops at the end of the call trace) gives kmsg.kernel_oops streamed as
// read whole: the report is flushed at the end of the input.
func TestStreamOopsAtEnd(t *testing.T) {
	b, err := os.ReadFile("testdata/realworld-fresh12/dmesg-linuxrdma-mlx5-cmd-comp-handler-gpf-shutdown.txt")
	if err != nil {
		t.Fatal(err)
	}
	// The kernel lines only: the mail's prose before and after them is no log.
	var log []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "<") {
			log = append(log, l)
		}
	}
	text := strings.Join(log, "\n") + "\n"
	opts := Options{Year: 2024}
	want, got := findingsOf(AnalyzeText("gpf.txt", text, opts)), findingsOf(streamed(t, "gpf.txt", text, opts))
	if w, g := jsonOf(t, want), jsonOf(t, got); w != g || !strings.Contains(w, "kmsg.kernel_oops") {
		t.Errorf("streamed report differs or lacks the oops:\n--- in memory\n%s\n--- streamed\n%s", w, g)
	}
}
