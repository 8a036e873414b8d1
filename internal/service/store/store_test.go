package store

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// interval i: a sample whose symbol_error is i, one flap every 10th
// interval, and one active finding whose summary names i — so a reader can
// check that all parts of a commit belong to the same interval.
func interval(i int) Interval {
	t := t0.Add(time.Duration(i) * 15 * time.Second)
	iv := Interval{
		Sample: trend.Sample{T: t, Ports: []trend.Port{{Device: "mlx5_0", Port: 1, State: "ACTIVE", RateGbps: 400,
			Readings: []trend.Reading{{Source: trend.SrcCounters, Name: "symbol_error", Value: uint64(i), Bits: 16, Saturating: true}}}}},
		Findings: []Active{{Finding: catalog.New("port.symbol_errors", finding.Subject{Device: "mlx5_0", Port: 1}, strconv.Itoa(i)), FirstSeen: t0}},
		BestRate: map[trend.PortKey]float64{{Device: "mlx5_0", Port: 1}: float64(i)},
	}
	if i%10 == 0 {
		iv.NewFlaps = []trend.Flap{{Device: "mlx5_0", Port: 1, T: t, Count: 1, Evidence: strconv.Itoa(i)}}
	}
	return iv
}

func TestCommitLoad(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{KeepSamples: 5, FlapRetention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ { // 500 × 15 s > 2 h: old flaps expire
		if err := s.Commit(interval(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{KeepSamples: 5, FlapRetention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Samples) != 5 || st.Samples[4].Ports[0].Readings[0].Value != 499 || st.Samples[0].Ports[0].Readings[0].Value != 495 {
		t.Errorf("samples: %d kept, want 495..499", len(st.Samples))
	}
	if len(st.Findings) != 1 || st.Findings[0].Finding.Summary != "499" || !st.Findings[0].FirstSeen.Equal(t0) {
		t.Errorf("findings: %+v", st.Findings)
	}
	// Flaps every 150 s within the last hour before interval 499 (t=7485 s):
	// intervals 260..490 → 24 flaps.
	if len(st.Flaps) != 24 || st.Flaps[0].Evidence != "260" || st.Flaps[23].Evidence != "490" {
		t.Errorf("flaps: %d, first %+v", len(st.Flaps), st.Flaps[0])
	}
	if diff := cmp.Diff(map[trend.PortKey]float64{{Device: "mlx5_0", Port: 1}: 499}, st.BestRate); diff != "" {
		t.Errorf("best rate (-want +got):\n%s", diff)
	}
}

func TestCorruptFileIsMovedAside(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("not a bolt database, just text that is long enough to be read as a page header"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Recovered == "" {
		t.Fatal("corrupt database not reported")
	}
	if _, err := os.Stat(s.Recovered); err != nil {
		t.Errorf("moved-aside file: %v", err)
	}
	st, err := s.Load()
	if err != nil || len(st.Samples) != 0 {
		t.Errorf("fresh store: %v %+v", err, st)
	}
}

func TestLockedByAnotherAgent(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// bbolt locks with flock, which is per open file description, so a
	// second Open in the same process contends like another agent would.
	if _, err := Open(dir, Options{}); err == nil {
		t.Fatal("second Open succeeded while the first holds the lock")
	}
}

// TestKillDuringCommit runs a child process that commits intervals in a
// loop, kills it with SIGKILL at a random moment, reopens the store and
// checks it is consistent: every record decodes, samples are consecutive,
// and the finding belongs to the last committed sample (both written by the
// same transaction).
func TestKillDuringCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	last := -1
	for round := 0; round < 8; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCommitLoop$")
		cmd.Env = append(os.Environ(), "IBDOCTOR_STORE_CHILD="+dir, fmt.Sprintf("IBDOCTOR_STORE_START=%d", last+1))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill at a random moment after the child's first commit: on a
		// loaded machine the child may take longer to start than any fixed
		// delay, and a kill before the first commit tests nothing.
		first := make(chan struct{})
		go func() {
			r := bufio.NewReader(out)
			if _, err := r.ReadString('\n'); err == nil {
				close(first)
			}
			io.Copy(io.Discard, r)
		}()
		select {
		case <-first:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("round %d: the child made no commit in 30 s", round)
		}
		time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		s, err := Open(dir, Options{KeepSamples: 20})
		if err != nil {
			t.Fatalf("round %d: reopen after kill -9: %v", round, err)
		}
		st, err := s.Load()
		s.Close()
		if err != nil {
			t.Fatalf("round %d: load after kill -9: %v", round, err)
		}
		if s.Recovered != "" {
			t.Fatalf("round %d: store needed recovery", round)
		}
		if len(st.Samples) == 0 {
			continue // killed before the first commit
		}
		for i := 1; i < len(st.Samples); i++ {
			a, b := st.Samples[i-1].Ports[0].Readings[0].Value, st.Samples[i].Ports[0].Readings[0].Value
			if b != a+1 {
				t.Fatalf("round %d: samples not consecutive: %d then %d", round, a, b)
			}
		}
		n := int(st.Samples[len(st.Samples)-1].Ports[0].Readings[0].Value)
		if len(st.Findings) != 1 || st.Findings[0].Finding.Summary != strconv.Itoa(n) {
			t.Fatalf("round %d: finding %+v does not belong to sample %d", round, st.Findings, n)
		}
		if n < last {
			t.Fatalf("round %d: committed interval %d lost (now %d)", round, last, n)
		}
		last = n
	}
	if last < 0 {
		t.Fatal("no commit survived any round")
	}
}

// TestHelperCommitLoop is the child of TestKillDuringCommit.
func TestHelperCommitLoop(t *testing.T) {
	dir := os.Getenv("IBDOCTOR_STORE_CHILD")
	if dir == "" {
		t.Skip("child process of TestKillDuringCommit")
	}
	start, _ := strconv.Atoi(os.Getenv("IBDOCTOR_STORE_START"))
	s, err := Open(dir, Options{KeepSamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	for i := start; ; i++ {
		if err := s.Commit(interval(i)); err != nil {
			t.Fatal(err)
		}
		if i == start {
			fmt.Println("committed") // the parent kills only after this
		}
	}
}

func BenchmarkCommit(b *testing.B) {
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := s.Commit(interval(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// bigStore writes a store of a few hundred KiB (80 samples of 64 ports)
// into dir and returns the file's path.
func bigStore(t *testing.T, dir string) string {
	t.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 120; i++ {
		iv := interval(i)
		for p := 2; p <= 64; p++ {
			iv.Sample.Ports = append(iv.Sample.Ports, trend.Port{Device: "mlx5_" + strconv.Itoa(p), Port: 1, State: "ACTIVE", RateGbps: 400,
				Readings: []trend.Reading{{Source: trend.SrcCounters, Name: "port_rcv_data", Value: uint64(i * p), Bits: 64}}})
		}
		if err := s.Commit(iv); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, FileName)
}

// TestTruncatedStore cuts a real store file at 10%..99% of its size, both
// on a page boundary and in the middle of a page, and opens it: the agent
// must never crash (bbolt maps the file, and a page past the end faults
// with SIGBUS), and the store must always be usable afterwards. The opens
// run in a child process so a crash is reported, not fatal to the tests.
func TestTruncatedStore(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	bigStore(t, dir)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOpenTruncated$", "-test.v")
	cmd.Env = append(os.Environ(), "IBDOCTOR_STORE_TRUNC="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tail := out[max(0, len(out)-3000):]
		t.Fatalf("opening truncated stores: %v\n%s", err, tail)
	}
	if !strings.Contains(string(out), "checked 180 cuts") {
		t.Fatalf("child did not check every cut:\n%s", out)
	}
}

// TestHelperOpenTruncated is the child of TestTruncatedStore.
func TestHelperOpenTruncated(t *testing.T) {
	dir := os.Getenv("IBDOCTOR_STORE_TRUNC")
	if dir == "" {
		t.Skip("child process of TestTruncatedStore")
	}
	orig, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096 // bbolt's page size is the OS page size
	m, ok := parseMeta(orig)
	if !ok || m.pageSize != page || m.pgid*page > uint64(len(orig)) || m.pgid*page < uint64(len(orig))/4 {
		t.Fatalf("unexpected store: meta %+v, %d bytes", m, len(orig))
	}
	// bbolt grows the file ahead of use: a cut past the high-water mark
	// only drops free space, and the state must survive it.
	inUse := int(m.pgid * page)
	checked := 0
	for pct := 10; pct <= 99; pct++ {
		for _, aligned := range []bool{true, false} {
			n := len(orig) * pct / 100
			if aligned {
				n -= n % page
			}
			name := fmt.Sprintf("%d%%/aligned=%v", pct, aligned)
			fmt.Printf("cut %s at %d of %d bytes\n", name, n, len(orig))
			sub := filepath.Join(dir, fmt.Sprintf("cut%d-%v", pct, aligned))
			if err := os.MkdirAll(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sub, FileName), orig[:n], 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(sub, Options{})
			if err != nil {
				t.Fatalf("%s: open: %v", name, err)
			}
			checked++
			if n >= inUse {
				st, err := s.Load()
				if s.Recovered != "" || err != nil || len(st.Samples) != 80 {
					t.Fatalf("%s: cut past the %d bytes in use: recovered %q, %v, %d samples", name, inUse, s.Recovered, err, len(st.Samples))
				}
				s.Close()
				continue
			}
			if s.Recovered == "" {
				t.Fatalf("%s: a truncated store opened as if whole", name)
			}
			if !strings.Contains(s.Note, "truncated") {
				t.Errorf("%s: note %q does not say truncated", name, s.Note)
			}
			if fi, err := os.Stat(s.Recovered); err != nil || fi.Size() != int64(n) {
				t.Errorf("%s: moved-aside file: %v", name, err)
			}
			if st, err := s.Load(); err != nil || len(st.Samples) != 0 {
				t.Fatalf("%s: fresh store: %v, %d samples", name, err, len(st.Samples))
			}
			if err := s.Commit(interval(1)); err != nil {
				t.Fatalf("%s: commit: %v", name, err)
			}
			s.Close()
			s, err = Open(sub, Options{})
			if err != nil || s.Recovered != "" || s.Note != "" {
				t.Fatalf("%s: reopen: %v %q", name, err, s.Note)
			}
			if st, err := s.Load(); err != nil || len(st.Samples) != 1 {
				t.Fatalf("%s: reopened store: %v, %d samples", name, err, len(st.Samples))
			}
			s.Close()
			os.RemoveAll(sub)
		}
	}
	fmt.Printf("checked %d cuts\n", checked)
}

func TestEmptyFileStartsFresh(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Recovered != "" || !strings.Contains(s.Note, "empty") {
		t.Errorf("empty file: recovered %q, note %q", s.Recovered, s.Note)
	}
	if err := s.Commit(interval(1)); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptRecordMovedAsideOnce: a record that does not decode is found
// at Open, the file is moved aside once with a note naming the record, and
// the next start is clean instead of failing again.
func TestCorruptRecordMovedAsideOnce(t *testing.T) {
	for _, bucket := range [][]byte{bucketSamples, bucketFlaps, bucketFindings} {
		t.Run(string(bucket), func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 12; i++ {
				if err := s.Commit(interval(i)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.db.Update(func(tx *bolt.Tx) error {
				k, _ := tx.Bucket(bucket).Cursor().First()
				return tx.Bucket(bucket).Put(k, []byte("{not json"))
			}); err != nil {
				t.Fatal(err)
			}
			s.Close()
			s, err = Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s.Recovered == "" || !strings.Contains(s.Note, string(bucket)+"/") {
				t.Fatalf("corrupt record: recovered %q, note %q", s.Recovered, s.Note)
			}
			if err := s.Commit(interval(20)); err != nil {
				t.Fatal(err)
			}
			s.Close()
			s, err = Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Recovered != "" || s.Note != "" {
				t.Errorf("second start: recovered %q, note %q", s.Recovered, s.Note)
			}
			if st, err := s.Load(); err != nil || len(st.Samples) != 1 {
				t.Errorf("second start: %v, %d samples", err, len(st.Samples))
			}
		})
	}
}

// TestLockedFileIsNotMovedAside: a file another agent holds is neither
// judged nor moved aside, even when it looks truncated (it may be
// mid-write).
func TestLockedFileIsNotMovedAside(t *testing.T) {
	dir := t.TempDir()
	path := bigStore(t, dir)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:8192], 0o600); err != nil {
		t.Fatal(err)
	}
	release, err := lockFile(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("open of a locked file: %v, want a lock error", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 8192 {
		t.Fatalf("locked file was touched: %v", err)
	}
	release()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Recovered == "" {
		t.Error("truncated file not moved aside once unlocked")
	}
}
