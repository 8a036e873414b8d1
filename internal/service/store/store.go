package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
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
	// Note says why the agent starts without its previous state (the file
	// was empty, truncated, or held records that do not decode); "" when
	// the state was restored. The agent logs it.
	Note string
}

// Open opens (or creates) the database in dir. The file is checked before
// bbolt maps it: a file shorter than its own header says (bbolt would
// fault on the missing pages with SIGBUS at every start), a file without
// a valid header, or one whose records do not decode is moved aside to
// <file>.corrupt-<UTC time> and a fresh database is created, so the agent
// keeps running; Recovered and Note say so. An empty file (a crash between
// creating and initialising it) is started fresh with a Note. Another
// agent holding the lock makes Open fail after one second.
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
	note := ""
	// Hold the lock while checking the file and moving it aside: another
	// agent's database is neither.
	release, err := lockFile(path, time.Second)
	switch {
	case errors.Is(err, errLocked):
		return nil, fmt.Errorf("%s: %w", path, err)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", path, err)
	case err == nil:
		size, err := checkFile(path)
		switch {
		case errors.Is(err, errCorrupt):
			recovered, merr := moveAside(path, fmt.Errorf("%s: %w", path, err))
			release()
			if merr != nil {
				return nil, merr
			}
			return fresh(path, opts, recovered, fmt.Errorf("%s: %w", path, err))
		case err != nil:
			release()
			return nil, err
		case size == 0:
			note = fmt.Sprintf("state file %s was empty, starting fresh", path)
		}
		release()
	}
	s, err := open(path, opts)
	if errors.Is(err, errLocked) {
		return nil, err
	}
	if err != nil {
		// bbolt refused the file although its header looked sound.
		return startFresh(path, opts, err)
	}
	s.Note = note
	// Decode every record once now: a store with a bad record is moved
	// aside here, once, instead of failing every Load (and dropping all
	// state) at every restart.
	if _, err := s.load(); err != nil {
		s.db.Close()
		return startFresh(path, opts, fmt.Errorf("%s: %w", path, err))
	}
	return s, nil
}

// startFresh moves the unusable file at path aside and opens a new one.
// The caller holds no lock on path (bbolt's own was released).
func startFresh(path string, opts Options, why error) (*Store, error) {
	recovered, err := moveAside(path, why)
	if err != nil {
		return nil, err
	}
	return fresh(path, opts, recovered, why)
}

// fresh opens a new database at path after the old one was moved to
// recovered.
func fresh(path string, opts Options, recovered string, why error) (*Store, error) {
	s, err := open(path, opts)
	if err != nil {
		return nil, err
	}
	s.Recovered = recovered
	s.Note = fmt.Sprintf("%v; moved to %s, starting fresh", why, recovered)
	return s, nil
}

var (
	errCorrupt = errors.New("not a usable state database")
	errLocked  = errors.New("locked by another process (is another agent running?)")
)

// open opens path with bbolt and creates the buckets.
func open(path string, opts Options) (*Store, error) {
	db, err := bolt.Open(path, 0o640, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("%s: %w: %w", path, errLocked, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
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
	return &Store{db: db, opts: opts}, nil
}

// moveAside renames path to <path>.corrupt-<UTC time>.
func moveAside(path string, why error) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	to := path + ".corrupt-" + stamp
	for i := 2; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			break
		}
		to = fmt.Sprintf("%s.corrupt-%s-%d", path, stamp, i)
	}
	if err := os.Rename(path, to); err != nil {
		return "", fmt.Errorf("%s: %w (and could not move it aside: %v)", path, why, err)
	}
	return to, nil
}

// bbolt's on-disk header (go.etcd.io/bbolt internal/common: page.go,
// meta.go): every page starts with a 16-byte header (id, flags, count,
// overflow); pages 0 and 1 hold a meta record right after it, in host byte
// order: magic, version, page size, flags (4 bytes each), the root bucket
// (root page id, sequence), the freelist page id, pgid (the high-water
// mark: pages 0..pgid-1 are in use), txid, and an FNV-64a checksum of the
// preceding 56 bytes. bbolt uses the valid meta with the higher txid.
const (
	boltPageHeader = 16
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	boltMetaLen    = 64
)

type boltMeta struct {
	pageSize uint32
	root     uint64
	pgid     uint64
	txid     uint64
}

// parseMeta decodes the meta record of a page starting at b[0].
func parseMeta(b []byte) (boltMeta, bool) {
	if len(b) < boltPageHeader+boltMetaLen {
		return boltMeta{}, false
	}
	m := b[boltPageHeader : boltPageHeader+boltMetaLen]
	le := binary.NativeEndian
	h := fnv.New64a()
	h.Write(m[:56])
	if le.Uint32(m[0:]) != boltMagic || le.Uint32(m[4:]) != boltVersion || le.Uint64(m[56:]) != h.Sum64() {
		return boltMeta{}, false
	}
	return boltMeta{pageSize: le.Uint32(m[8:]), root: le.Uint64(m[16:]), pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, true
}

// checkFile reads the meta pages of the database at path and checks that
// the file holds every page they claim, so that mapping it cannot fault.
// It returns the file's size, or an error wrapping errCorrupt that says
// what is wrong.
func checkFile(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	if size == 0 {
		return 0, nil
	}
	read := func(off int64) []byte {
		buf := make([]byte, boltPageHeader+boltMetaLen)
		n, _ := f.ReadAt(buf, off)
		return buf[:n]
	}
	// The page size is in meta 0, or (meta 0 damaged) in meta 1, which
	// sits one page further: try the page sizes bbolt supports.
	var pageSize int64
	if m, ok := parseMeta(read(0)); ok {
		pageSize = int64(m.pageSize)
	} else {
		for sh := 0; sh <= 14 && int64(1024)<<sh < size; sh++ {
			if m, ok := parseMeta(read(1024 << sh)); ok && int64(m.pageSize) == 1024<<sh {
				pageSize = int64(m.pageSize)
				break
			}
		}
	}
	if pageSize < 1024 || pageSize > 1<<24 || pageSize&(pageSize-1) != 0 {
		return size, fmt.Errorf("%w: no valid bbolt header (%d bytes)", errCorrupt, size)
	}
	var best boltMeta
	valid := 0
	for _, off := range []int64{0, pageSize} {
		m, ok := parseMeta(read(off))
		if !ok || int64(m.pageSize) != pageSize {
			continue
		}
		valid++
		if m.pgid < 2 || m.root >= m.pgid {
			return size, fmt.Errorf("%w: header claims %d pages with the root at page %d", errCorrupt, m.pgid, m.root)
		}
		if m.pgid > best.pgid {
			best = m
		}
	}
	if valid == 0 {
		return size, fmt.Errorf("%w: no valid bbolt meta page (%d bytes)", errCorrupt, size)
	}
	// pgid × pageSize without overflow: compare page counts.
	if have := uint64(size) / uint64(pageSize); best.pgid > have {
		return size, fmt.Errorf("%w: truncated: %d bytes, but its header says %d pages of %d bytes (%d bytes)",
			errCorrupt, size, best.pgid, pageSize, best.pgid*uint64(pageSize))
	}
	return size, nil
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
	st, err := s.load()
	if err != nil {
		return State{BestRate: map[trend.PortKey]float64{}}, fmt.Errorf("%s: %w", s.db.Path(), err)
	}
	return st, nil
}

// load reads the whole state; a panic of bbolt on a damaged page is
// returned as an error.
func (s *Store) load() (st State, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged page: %v", r)
		}
	}()
	st = State{BestRate: map[trend.PortKey]float64{}}
	err = s.db.View(func(tx *bolt.Tx) error {
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
	return st, err
}
