package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
)

// FileName is the database file inside the state directory.
const FileName = "ibdoctor-agent.db"

var (
	bucketSamples  = []byte("samples")
	bucketFindings = []byte("findings")
	bucketFlaps    = []byte("flaps")
	bucketMeta     = []byte("meta")
	keyBest        = []byte("best_rate")
	keySchema      = []byte("schema")
	schemaVersion  = []byte("1")
)

// Active is a finding that is currently active, with when it was first
// seen (kept across restarts, so an alert's age survives the agent).
type Active struct {
	Finding   finding.Finding `json:"finding"`
	FirstSeen time.Time       `json:"first_seen"`
}

// State is what the agent restores at start.
type State struct {
	// Samples are the kept samples, oldest first.
	Samples []trend.Sample
	// Findings are the active findings of the last interval.
	Findings []Active
	// Flaps are the flap observations within the retention, oldest first.
	Flaps []trend.Flap
	// BestRate is the best active rate seen per port, in Gb/s.
	BestRate map[trend.PortKey]float64
}

// Interval is what one sampling interval writes.
type Interval struct {
	Sample   trend.Sample
	NewFlaps []trend.Flap
	Findings []Active
	BestRate map[trend.PortKey]float64
}

// Options bound what the store keeps.
type Options struct {
	// KeepSamples is how many samples are kept (default 80: 20 min at 15 s).
	KeepSamples int
	// FlapRetention is how long flaps are kept (default 24 h).
	FlapRetention time.Duration
}

// Store is an open state database.
type Store struct {
	db   *bolt.DB
	opts Options
	// Recovered names the file an unreadable database was moved to, ""
	// when the database opened cleanly.
	Recovered string
}

// Open opens (or creates) the database in dir. A file that is not a valid
// database is moved aside to <file>.corrupt-<unix time> and a fresh one is
// created, so the agent keeps running; Recovered says so. Another agent
// holding the lock makes Open fail after one second.
func Open(dir string, opts Options) (*Store, error) {
	if opts.KeepSamples <= 0 {
		opts.KeepSamples = 80
	}
	if opts.FlapRetention <= 0 {
		opts.FlapRetention = 24 * time.Hour
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	path := filepath.Join(dir, FileName)
	bo := &bolt.Options{Timeout: time.Second}
	db, err := bolt.Open(path, 0o640, bo)
	recovered := ""
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("%s: locked by another process (is another agent running?): %w", path, err)
		}
		if _, statErr := os.Stat(path); statErr != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		recovered = fmt.Sprintf("%s.corrupt-%d", path, time.Now().Unix())
		if rerr := os.Rename(path, recovered); rerr != nil {
			return nil, fmt.Errorf("%s: %w (and could not move it aside: %v)", path, err, rerr)
		}
		if db, err = bolt.Open(path, 0o640, bo); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketSamples, bucketFindings, bucketFlaps, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keySchema, schemaVersion)
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Store{db: db, opts: opts, Recovered: recovered}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

func timeKey(t time.Time, suffix string) []byte {
	k := make([]byte, 8, 8+len(suffix))
	binary.BigEndian.PutUint64(k, uint64(t.UnixNano()))
	return append(k, suffix...)
}

func keyTime(k []byte) time.Time {
	if len(k) < 8 {
		return time.Time{}
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])))
}

// Commit writes one interval in a single transaction: the sample (older
// samples beyond KeepSamples are dropped), new flaps (flaps older than
// FlapRetention before the sample are dropped), the active findings (which
// replace the previous set) and the best rates.
func (s *Store) Commit(iv Interval) error {
	sample, err := json.Marshal(iv.Sample)
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		sb := tx.Bucket(bucketSamples)
		if err := sb.Put(timeKey(iv.Sample.T, ""), sample); err != nil {
			return err
		}
		if extra := count(sb) - s.opts.KeepSamples; extra > 0 {
			if err := deleteFirst(sb, extra, func([]byte) bool { return true }); err != nil {
				return err
			}
		}
		fb := tx.Bucket(bucketFlaps)
		for _, f := range iv.NewFlaps {
			v, err := json.Marshal(f)
			if err != nil {
				return err
			}
			if err := fb.Put(timeKey(f.T, trend.PortKey{Device: f.Device, Port: f.Port}.String()), v); err != nil {
				return err
			}
		}
		cutoff := iv.Sample.T.Add(-s.opts.FlapRetention)
		if err := deleteFirst(fb, -1, func(k []byte) bool { return keyTime(k).Before(cutoff) }); err != nil {
			return err
		}
		if err := tx.DeleteBucket(bucketFindings); err != nil {
			return err
		}
		ab, err := tx.CreateBucket(bucketFindings)
		if err != nil {
			return err
		}
		for i, a := range iv.Findings {
			v, err := json.Marshal(a)
			if err != nil {
				return err
			}
			k := make([]byte, 4)
			binary.BigEndian.PutUint32(k, uint32(i))
			if err := ab.Put(k, v); err != nil {
				return err
			}
		}
		best, err := json.Marshal(bestList(iv.BestRate))
		if err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyBest, best)
	})
}

func count(b *bolt.Bucket) int {
	n := 0
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

// deleteFirst deletes keys from the start of the bucket while ok(k) holds,
// at most n of them (n < 0: no limit).
func deleteFirst(b *bolt.Bucket, n int, ok func([]byte) bool) error {
	c := b.Cursor()
	for k, _ := c.First(); k != nil && n != 0 && ok(k); k, _ = c.Next() {
		if err := c.Delete(); err != nil {
			return err
		}
		n--
	}
	return nil
}

type bestEntry struct {
	trend.PortKey
	Gbps float64 `json:"gbps"`
}

func bestList(m map[trend.PortKey]float64) []bestEntry {
	out := make([]bestEntry, 0, len(m))
	for k, v := range m {
		out = append(out, bestEntry{k, v})
	}
	return out
}

// Load reads the whole state. A record that does not decode is an error
// naming its bucket and key: it means the file was written by something
// else, since a committed transaction is never half-written.
func (s *Store) Load() (State, error) {
	st := State{BestRate: map[trend.PortKey]float64{}}
	err := s.db.View(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketSamples).ForEach(func(k, v []byte) error {
			var smp trend.Sample
			if err := json.Unmarshal(v, &smp); err != nil {
				return fmt.Errorf("samples/%x: %w", k, err)
			}
			st.Samples = append(st.Samples, smp)
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketFlaps).ForEach(func(k, v []byte) error {
			var f trend.Flap
			if err := json.Unmarshal(v, &f); err != nil {
				return fmt.Errorf("flaps/%x: %w", k, err)
			}
			st.Flaps = append(st.Flaps, f)
			return nil
		}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketFindings).ForEach(func(k, v []byte) error {
			var a Active
			if err := json.Unmarshal(v, &a); err != nil {
				return fmt.Errorf("findings/%x: %w", k, err)
			}
			st.Findings = append(st.Findings, a)
			return nil
		}); err != nil {
			return err
		}
		if v := tx.Bucket(bucketMeta).Get(keyBest); v != nil {
			var list []bestEntry
			if err := json.Unmarshal(v, &list); err != nil {
				return fmt.Errorf("meta/best_rate: %w", err)
			}
			for _, e := range list {
				st.BestRate[e.PortKey] = e.Gbps
			}
		}
		return nil
	})
	if err != nil {
		return State{BestRate: map[trend.PortKey]float64{}}, fmt.Errorf("%s: %w", s.db.Path(), err)
	}
	return st, nil
}
