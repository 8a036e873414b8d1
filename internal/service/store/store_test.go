package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.IntN(80)) * time.Millisecond)
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
