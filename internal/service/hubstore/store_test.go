package hubstore

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func openTest(t *testing.T, path string, o Options) *Store {
	t.Helper()
	s, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func fnd(id string, sev finding.Severity, dev string, ev string) finding.Finding {
	return finding.Finding{ID: id, Severity: sev, Subject: finding.Subject{Host: "gpu01", Device: dev, Port: 1}, Summary: id + " on " + dev,
		Evidence: []finding.Evidence{{Source: "test", Value: ev}}}
}

func TestCommitAndQuery(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, filepath.Join(t.TempDir(), "hub.db"), Options{})
	sym := &FindingRow{Host: "gpu01", Subject: "mlx5_0/1", Opened: t0, Finding: fnd("port.symbol_errors", finding.Warning, "mlx5_0", "12/s")}
	down := &FindingRow{Host: "gpu02", Subject: "mlx5_1/1", Opened: t0.Add(time.Minute), Finding: fnd("port.down", finding.Critical, "mlx5_1", "DOWN")}
	b := &Batch{
		Samples: []NodeSample{{Host: "gpu01", T: t0, Health: "warning", Warning: 1}, {Host: "gpu01", T: t0.Add(15 * time.Second), Health: "ok"}},
		Rates:   []PortRates{{Host: "gpu01", T: t0, Ports: []PortRate{{Port: "mlx5_0/1", RcvBps: 1e9, XmitBps: 2e9, ErrPerS: 12}}}},
		Open:    []*FindingRow{sym, down},
	}
	if err := s.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if sym.Row == 0 || down.Row == 0 || sym.Row == down.Row {
		t.Fatalf("rows not assigned: %d %d", sym.Row, down.Row)
	}
	if err := s.Commit(ctx, &Batch{Close: []Closing{{Row: sym.Row, T: t0.Add(2 * time.Minute)}}}); err != nil {
		t.Fatal(err)
	}
	ns, err := s.NodeSamples(ctx, "gpu01", t0.Add(time.Second))
	if err != nil || len(ns) != 1 || ns[0].Health != "ok" || !ns[0].T.Equal(t0.Add(15*time.Second)) {
		t.Fatalf("samples since t0+1s: %+v %v", ns, err)
	}
	pr, err := s.PortRates(ctx, "gpu01", time.Time{})
	if err != nil || len(pr) != 1 || pr[0].Ports[0].ErrPerS != 12 {
		t.Fatalf("rates: %+v %v", pr, err)
	}
	for _, c := range []struct {
		name string
		q    FindingQuery
		want []string
	}{
		{"all", FindingQuery{}, []string{"port.symbol_errors", "port.down"}},
		{"open", FindingQuery{OpenOnly: true}, []string{"port.down"}},
		{"since after close", FindingQuery{Since: t0.Add(3 * time.Minute)}, []string{"port.down"}},
		{"since before close", FindingQuery{Since: t0.Add(90 * time.Second)}, []string{"port.symbol_errors", "port.down"}},
		{"by id", FindingQuery{ID: "port.symbol_errors"}, []string{"port.symbol_errors"}},
		{"by severity", FindingQuery{Severity: finding.Critical}, []string{"port.down"}},
		{"by host", FindingQuery{Host: "gpu01"}, []string{"port.symbol_errors"}},
		{"limit keeps newest", FindingQuery{Limit: 1}, []string{"port.down"}},
	} {
		rows, err := s.Findings(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.Finding.ID)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	rows, _ := s.Findings(ctx, FindingQuery{ID: "port.symbol_errors"})
	if r := rows[0]; !r.Closed.Equal(t0.Add(2*time.Minute)) || r.Finding.Evidence[0].Value != "12/s" {
		t.Errorf("closed finding lost its close time or evidence: %+v", r)
	}
}

func TestPerfAndFabric(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, filepath.Join(t.TempDir(), "hub.db"), Options{})
	if _, _, _, ok, err := s.LatestFabric(ctx); ok || err != nil {
		t.Fatalf("empty store has a fabric: %v %v", ok, err)
	}
	for i, src := range []string{"a", "b"} {
		if err := s.PutFabric(ctx, t0.Add(time.Duration(i)*time.Hour), src, []byte(`{"n":`+strconv.Itoa(i)+`}`)); err != nil {
			t.Fatal(err)
		}
	}
	tm, src, doc, ok, err := s.LatestFabric(ctx)
	if !ok || err != nil || src != "b" || string(doc) != `{"n":1}` || !tm.Equal(t0.Add(time.Hour)) {
		t.Fatalf("latest fabric: %v %s %s %v %v", tm, src, doc, ok, err)
	}
	if err := s.PutPerfRun(ctx, PerfRunRef{ID: "r1", Started: t0, Test: "tcp bw", Hosts: 4}, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPerfRun(ctx, PerfRunRef{ID: "r2", Started: t0.Add(time.Hour), Test: "tcp bw", Hosts: 8}, []byte(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	refs, err := s.PerfRuns(ctx)
	if err != nil || len(refs) != 2 || refs[0].ID != "r2" || refs[1].Hosts != 4 {
		t.Fatalf("runs: %+v %v", refs, err)
	}
	if d, err := s.PerfRun(ctx, "r2"); err != nil || string(d) != `{"x":1}` {
		t.Fatalf("run r2: %s %v", d, err)
	}
	if _, err := s.PerfRun(ctx, "nope"); err != ErrNotFound {
		t.Fatalf("unknown run: %v", err)
	}
}

func TestPruneKeepsWhatIsWithinRetention(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, filepath.Join(t.TempDir(), "hub.db"), Options{Retention: 24 * time.Hour})
	old, recent := t0.Add(-48*time.Hour), t0.Add(-time.Hour)
	oldOpen := &FindingRow{Host: "h", Subject: "a", Opened: old, Finding: fnd("port.down", finding.Critical, "a", "")}
	oldClosed := &FindingRow{Host: "h", Subject: "b", Opened: old, Closed: old.Add(time.Hour), Finding: fnd("port.down", finding.Critical, "b", "")}
	recentClosed := &FindingRow{Host: "h", Subject: "c", Opened: old, Closed: recent, Finding: fnd("port.down", finding.Critical, "c", "")}
	err := s.Commit(ctx, &Batch{
		Samples: []NodeSample{{Host: "h", T: old, Health: "ok"}, {Host: "h", T: recent, Health: "ok"}},
		Rates:   []PortRates{{Host: "h", T: old}, {Host: "h", T: recent}},
		Open:    []*FindingRow{oldOpen, oldClosed, recentClosed},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range []time.Time{old, old.Add(time.Hour)} {
		s.PutFabric(ctx, tm, "x", []byte("{}"))
	}
	s.PutPerfRun(ctx, PerfRunRef{ID: "old", Started: old}, []byte("{}"))
	s.PutPerfRun(ctx, PerfRunRef{ID: "new", Started: recent}, []byte("{}"))
	n, err := s.Prune(ctx, t0)
	if err != nil {
		t.Fatal(err)
	}
	// old sample, old rates, oldClosed, the older fabric, the old run.
	if n != 5 {
		t.Errorf("pruned %d rows, want 5", n)
	}
	ns, _ := s.NodeSamples(ctx, "h", time.Time{})
	pr, _ := s.PortRates(ctx, "h", time.Time{})
	fs, _ := s.Findings(ctx, FindingQuery{})
	runs, _ := s.PerfRuns(ctx)
	_, _, _, haveFabric, _ := s.LatestFabric(ctx)
	if len(ns) != 1 || len(pr) != 1 || len(fs) != 2 || len(runs) != 1 || runs[0].ID != "new" || !haveFabric {
		t.Errorf("after prune: %d samples, %d rates, %d findings, runs %+v, fabric %v", len(ns), len(pr), len(fs), runs, haveFabric)
	}
	for _, f := range fs {
		if f.Subject == "b" {
			t.Error("a finding closed before the retention survived")
		}
	}
}

// TestMigratesFromVersion1 builds a database at schema version 1, with a
// row, and opens it: it must reach the current version and keep the row.
func TestMigratesFromVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hub.db")
	s, err := openAt(path, Options{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Version(ctx); v != 1 {
		t.Fatalf("built version %d", v)
	}
	if err := s.Commit(ctx, &Batch{Samples: []NodeSample{{Host: "h", T: t0, Health: "critical", Critical: 2}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PortRates(ctx, "h", time.Time{}); err == nil {
		t.Fatal("version 1 already has port_rates: the test builds nothing to migrate")
	}
	s.Close()
	s = openTest(t, path, Options{})
	if v, _ := s.Version(ctx); v != SchemaVersion || SchemaVersion < 2 {
		t.Fatalf("after open: version %d, want %d", v, SchemaVersion)
	}
	ns, err := s.NodeSamples(ctx, "h", time.Time{})
	if err != nil || len(ns) != 1 || ns[0].Critical != 2 {
		t.Fatalf("row of version 1 after migration: %+v %v", ns, err)
	}
	if err := s.Commit(ctx, &Batch{Rates: []PortRates{{Host: "h", T: t0}}}); err != nil {
		t.Fatalf("migrated table unusable: %v", err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hub.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.db.Exec(`UPDATE schema_version SET version = 99`)
	s.Close()
	_, err = Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), "newer ibdoctor") {
		t.Fatalf("newer schema: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal("a newer database was moved aside")
	}
}

func TestCorruptFileMovedAside(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) {
			os.WriteFile(path, []byte(strings.Repeat("not sqlite at all\n", 500)), 0o600)
		}},
		{"damaged header", func(t *testing.T, path string) {
			bigDB(t, path)
			f, _ := os.OpenFile(path, os.O_WRONLY, 0)
			f.WriteAt([]byte("SQLite format 9\x00"), 0)
			f.Close()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "hub.db")
			c.write(t, path)
			s, err := Open(path, Options{})
			if err != nil {
				t.Fatalf("corrupt database not recovered: %v", err)
			}
			defer s.Close()
			if s.Recovered == "" || !strings.Contains(s.Recovered, ".corrupt-") || !strings.Contains(s.Note, s.Recovered) {
				t.Fatalf("recovered %q, note %q", s.Recovered, s.Note)
			}
			if _, err := os.Stat(s.Recovered); err != nil {
				t.Fatalf("moved-aside file: %v", err)
			}
			if err := s.Commit(context.Background(), &Batch{Samples: []NodeSample{{Host: "h", T: t0, Health: "ok"}}}); err != nil {
				t.Fatalf("fresh store unusable: %v", err)
			}
		})
	}
}

// bigDB writes a database of a few hundred KiB at path.
func bigDB(t *testing.T, path string) {
	t.Helper()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := &Batch{}
	for i := range 2000 {
		b.Samples = append(b.Samples, NodeSample{Host: fmt.Sprintf("gpu%04d", i), T: t0, Health: "ok", Error: strings.Repeat("x", 100)})
	}
	if err := s.Commit(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	s.Close()
}

// TestTruncatedFile cuts a real database at several sizes: Open must never
// fail or crash, and the store must be usable afterwards (moved aside
// when SQLite finds it damaged).
func TestTruncatedFile(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src.db")
	bigDB(t, src)
	full, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, frac := range []float64{0.01, 0.3, 0.5, 0.9} {
		path := filepath.Join(t.TempDir(), "hub.db")
		os.WriteFile(path, full[:int(float64(len(full))*frac)], 0o600)
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("cut at %.0f%%: %v", frac*100, err)
		}
		if err := s.Commit(context.Background(), &Batch{Samples: []NodeSample{{Host: "new", T: t0, Health: "ok"}}}); err != nil {
			t.Fatalf("cut at %.0f%%: store unusable: %v (recovered %q)", frac*100, err, s.Recovered)
		}
		s.Close()
	}
}

// TestKillLosesNothingAcknowledged runs a child process that commits
// batches in a loop and prints the sequence number of each after Commit
// returned, kills it with SIGKILL at a random moment, reopens the database
// and checks that every acknowledged batch is there, 20 times over.
func TestKillLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "hub.db")
	rng := rand.New(rand.NewPCG(3, 4))
	acked := -1
	for round := range 20 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCommitLoop$")
		cmd.Env = append(os.Environ(), "IBDOCTOR_HUBSTORE_CHILD="+path, fmt.Sprintf("IBDOCTOR_HUBSTORE_START=%d", acked+1))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		acks := make(chan int, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if n, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
					i, _ := strconv.Atoi(n)
					acks <- i
				}
			}
			close(acks)
		}()
		select {
		case i, ok := <-acks:
			if !ok {
				cmd.Wait()
				t.Fatalf("round %d: the child exited without committing", round)
			}
			acked = max(acked, i)
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("round %d: the child made no commit in 30 s", round)
		}
		time.Sleep(time.Duration(rng.IntN(50)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		for i := range acks {
			acked = max(acked, i)
		}
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("round %d: reopen after kill -9: %v", round, err)
		}
		if s.Recovered != "" {
			t.Fatalf("round %d: database needed recovery: %s", round, s.Note)
		}
		ns, err := s.NodeSamples(context.Background(), "h", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		fs, err := s.Findings(context.Background(), FindingQuery{})
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		have := map[int]bool{}
		for _, x := range ns {
			have[int(x.T.UnixMilli())] = true
		}
		opened := map[string]bool{}
		for _, f := range fs {
			opened[f.Subject] = true
		}
		for i := 0; i <= acked; i++ {
			if !have[i+1] || !opened[strconv.Itoa(i)] {
				t.Fatalf("round %d: acknowledged batch %d lost (sample %v, finding %v)", round, i, have[i+1], opened[strconv.Itoa(i)])
			}
		}
	}
	if acked < 20 {
		t.Fatalf("only %d batches acknowledged in 20 rounds", acked+1)
	}
}

// TestHelperCommitLoop is the child of TestKillLosesNothingAcknowledged.
func TestHelperCommitLoop(t *testing.T) {
	path := os.Getenv("IBDOCTOR_HUBSTORE_CHILD")
	if path == "" {
		t.Skip("child process of TestKillLosesNothingAcknowledged")
	}
	start, _ := strconv.Atoi(os.Getenv("IBDOCTOR_HUBSTORE_START"))
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(os.Stdout)
	for i := start; ; i++ {
		b := &Batch{
			Samples: []NodeSample{{Host: "h", T: time.UnixMilli(int64(i + 1)), Health: "ok"}},
			Rates:   []PortRates{{Host: "h", T: time.UnixMilli(int64(i + 1)), Ports: []PortRate{{Port: "mlx5_0/1", RcvBps: float64(i)}}}},
			Open:    []*FindingRow{{Host: "h", Subject: strconv.Itoa(i), Opened: time.UnixMilli(int64(i + 1)), Finding: fnd("port.down", finding.Critical, "mlx5_0", strconv.Itoa(i))}},
		}
		if err := s.Commit(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "ack %d\n", i)
		w.Flush()
	}
}
