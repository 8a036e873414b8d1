package hubstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPackRates(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ports []PortRate
		size  int
	}{
		{"no ports", nil, 1},
		{"idle", []PortRate{{Port: "mlx5_0/1"}, {Port: "mlx5_1/1"}}, 3},
		{"busy", []PortRate{{Port: "mlx5_0/1", RcvBps: 2.5e10, XmitBps: 2.4e10}, {Port: "mlx5_1/1", RcvBps: 1, XmitBps: 3, ErrPerS: 0.25}}, 1 + 9 + 13},
		{"negative and tiny", []PortRate{{Port: "p/1", RcvBps: -1, ErrPerS: 1.5e-7}}, 1 + 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := packRates(nil, tc.ports)
			if len(b) != tc.size {
				t.Errorf("%d bytes, want %d", len(b), tc.size)
			}
			names := make([]string, len(tc.ports))
			for i, p := range tc.ports {
				names[i] = p.Port
			}
			got, err := unpackRates(names, b)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range tc.ports {
				g := got[i]
				for _, v := range [][2]float64{{g.RcvBps, p.RcvBps}, {g.XmitBps, p.XmitBps}, {g.ErrPerS, p.ErrPerS}} {
					if math.Abs(v[0]-v[1]) > 1e-7*math.Abs(v[1]) {
						t.Errorf("port %s: %v reads back as %v", p.Port, v[1], v[0])
					}
				}
				if g.Port != p.Port {
					t.Errorf("port %q reads back as %q", p.Port, g.Port)
				}
			}
		})
	}
	busy := packRates(nil, []PortRate{{Port: "a", RcvBps: 1}, {Port: "b", ErrPerS: 2}})
	for _, tc := range []struct {
		name  string
		names []string
		blob  []byte
		want  string
	}{
		{"empty", []string{"a"}, nil, "unknown format"},
		{"other format", []string{"a"}, []byte{9, 0}, "unknown format"},
		{"fewer ports", []string{"a", "b", "c"}, busy, "end at port 3 of 3"},
		{"cut in a rate", []string{"a", "b"}, busy[:len(busy)-1], "end within port 2 of 2"},
		{"more ports", []string{"a"}, busy, "5 bytes more than 1 ports"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := unpackRates(tc.names, tc.blob)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// sameRates says whether got are want as float32 keeps them.
func sameRates(got, want []PortRates) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Host != w.Host || !g.T.Equal(w.T) || len(g.Ports) != len(w.Ports) {
			return false
		}
		for j := range g.Ports {
			a, b := g.Ports[j], w.Ports[j]
			if a.Port != b.Port || float32(a.RcvBps) != float32(b.RcvBps) || float32(a.XmitBps) != float32(b.XmitBps) || float32(a.ErrPerS) != float32(b.ErrPerS) {
				return false
			}
		}
	}
	return true
}

// TestMigratesFromVersion2 builds a database at schema version 2 with
// rates as version 2 wrote them (a JSON document per node and step) and
// opens it: the old rows read as before beside the packed ones written
// since (a packed row wins at the same time), a row that did not read
// still does not, and pruning drops the old table once it is empty.
func TestMigratesFromVersion2(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hub.db")
	s, err := openAt(path, Options{Retention: 24 * time.Hour}, 2)
	if err != nil {
		t.Fatal(err)
	}
	ten := make([]PortRate, 10)
	for i := range ten {
		ten[i] = PortRate{Port: fmt.Sprintf("mlx5_%d/1", i), RcvBps: float64(i)*1e9 + 0.1, XmitBps: 5e8, ErrPerS: float64(i%3) / 3}
	}
	var old []PortRates
	for k := range 3 {
		x := PortRates{Host: "gpu01", T: t0.Add(time.Duration(k) * time.Hour), Ports: ten}
		doc, _ := json.Marshal(x.Ports)
		if _, err := s.db.ExecContext(ctx, `INSERT INTO port_rates (host, t, ports) VALUES (?, ?, ?)`, x.Host, ms(x.T), string(doc)); err != nil {
			t.Fatal(err)
		}
		old = append(old, x)
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO port_rates (host, t, ports) VALUES ('bad', ?, '{not json')`, ms(t0)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, path, Options{Retention: 24 * time.Hour})
	if v, _ := s.Version(ctx); v != SchemaVersion || SchemaVersion < 3 {
		t.Fatalf("after open: version %d, want %d", v, SchemaVersion)
	}
	got, err := s.PortRates(ctx, "gpu01", time.Time{})
	if err != nil || !reflect.DeepEqual(got, old) {
		t.Fatalf("version 2's rows after open: %v\n%+v\nwant\n%+v", err, got, old)
	}
	if _, err := s.PortRates(ctx, "bad", time.Time{}); err == nil || !strings.Contains(err.Error(), "port rates of bad") {
		t.Errorf("unreadable old row: %v", err)
	}
	// New steps: one at the time of the last old row, one after.
	two := []PortRate{{Port: "mlx5_0/1", RcvBps: 7}, {Port: "mlx5_1/1"}}
	newer := []PortRates{{Host: "gpu01", T: old[2].T, Ports: two}, {Host: "gpu01", T: old[2].T.Add(time.Hour), Ports: two}}
	if err := s.Commit(ctx, &Batch{Rates: newer}); err != nil {
		t.Fatal(err)
	}
	got, err = s.PortRates(ctx, "gpu01", old[1].T)
	if want := []PortRates{old[1], newer[0], newer[1]}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("old and new rows since the second: %v\n%+v\nwant\n%+v", err, got, want)
	}
	// Pruning at a time that keeps the last old row keeps the table.
	if _, err := s.Prune(ctx, old[1].T.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.PortRates(ctx, "gpu01", time.Time{}); len(got) != 3 || !s.legacyRates.Load() {
		t.Errorf("after the first prune: %d steps (want 3), old table kept %v", len(got), s.legacyRates.Load())
	}
	if _, err := s.Prune(ctx, old[2].T.Add(25*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if s.legacyRates.Load() {
		t.Error("the emptied old table is still read")
	}
	if _, err := s.db.ExecContext(ctx, `SELECT 1 FROM port_rates`); err == nil {
		t.Error("the emptied old table was not dropped")
	}
	if got, err := s.PortRates(ctx, "gpu01", time.Time{}); err != nil || !sameRates(got, newer[1:]) {
		t.Errorf("after the old table went: %v %+v", err, got)
	}
	s.Close()
	s = openTest(t, path, Options{})
	if s.legacyRates.Load() {
		t.Error("reopened: the old table is read again")
	}
}

// TestRatesSurviveReopen: port sets added by one commit are known after
// the database is opened again, and a failed commit leaves no set behind
// in memory.
func TestRatesSurviveReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hub.db")
	s := openTest(t, path, Options{})
	a := []PortRate{{Port: "mlx5_0/1", RcvBps: 1e9}}
	b := []PortRate{{Port: "mlx5_0/1", RcvBps: 2e9}, {Port: "mlx5_1/1", ErrPerS: 3}}
	if err := s.Commit(ctx, &Batch{Rates: []PortRates{{Host: "h1", T: t0, Ports: a}}}); err != nil {
		t.Fatal(err)
	}
	// A batch that fails (a finding row without its NOT NULL evidence
	// cannot fail here, so a cancelled context does) adds nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Commit(cctx, &Batch{Rates: []PortRates{{Host: "h2", T: t0, Ports: b}}}); err == nil {
		t.Fatal("a commit with a cancelled context succeeded")
	}
	if len(s.setID) != 1 {
		t.Errorf("%d port sets in memory after a failed commit, want 1", len(s.setID))
	}
	if err := s.Commit(ctx, &Batch{Rates: []PortRates{{Host: "h2", T: t0, Ports: b}}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, path, Options{})
	for host, want := range map[string][]PortRate{"h1": a, "h2": b} {
		got, err := s.PortRates(ctx, host, time.Time{})
		if err != nil || len(got) != 1 || !sameRates(got, []PortRates{{Host: host, T: t0, Ports: want}}) {
			t.Errorf("%s: %+v %v, want %+v", host, got, err, want)
		}
	}
}

// TestHistoryBytesPerStep bounds what a node's step costs on disk (health
// sample and ten busy ports' rates, with their indexes): at the default
// retention (720 steps) 2,000 nodes stay under 400 MiB.
func TestHistoryBytesPerStep(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, filepath.Join(t.TempDir(), "hub.db"), Options{})
	const hosts, steps = 200, 30
	before, err := s.Bytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k := range steps {
		b := &Batch{}
		for i := range hosts {
			host := fmt.Sprintf("gpu%04d", i)
			tm := t0.Add(time.Duration(k) * 28 * time.Minute)
			ports := make([]PortRate, 10)
			for j := range ports {
				ports[j] = PortRate{Port: fmt.Sprintf("mlx5_%d/1", j), RcvBps: 2.1e10 + float64(i*j+k), XmitBps: 1.9e10 + float64(k), ErrPerS: float64(j%2) * 0.01}
			}
			b.Samples = append(b.Samples, NodeSample{Host: host, T: tm, Health: "ok"})
			b.Rates = append(b.Rates, PortRates{Host: host, T: tm, Ports: ports})
		}
		if err := s.Commit(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := s.Bytes(ctx)
	per := float64(after-before) / (hosts * steps)
	full := per * 720 * 2000 / (1 << 20)
	t.Logf("%.0f bytes per node and step: %.0f MiB for 2,000 nodes at the default retention", per, full)
	if full > 400 {
		t.Errorf("%.0f bytes per node and step: %.0f MiB for 2,000 nodes, want under 400", per, full)
	}
}
