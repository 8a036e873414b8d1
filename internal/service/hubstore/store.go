package hubstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// DefaultRetention is how long rows are kept unless Options says
// otherwise.
const DefaultRetention = 14 * 24 * time.Hour

// Options configure a Store.
type Options struct {
	// Retention is how long samples, closed findings, fabric results and
	// pairwise runs are kept (default DefaultRetention). Open findings
	// are kept however old.
	Retention time.Duration
}

// Store is an open history database.
type Store struct {
	db   *sql.DB
	path string
	opts Options
	// Recovered names the file an unusable database was moved to, ""
	// when the database opened cleanly.
	Recovered string
	// Note says why the hub starts without its history; "" when it was
	// kept. The hub logs it.
	Note string

	// sets are the port_sets rows both ways: the id of a list of ports
	// (its JSON) and the ports of an id.
	setsMu  sync.Mutex
	setID   map[string]int64
	setList map[int64][]string
	// legacyRates: version 2's port_rates table is still there (until
	// pruning empties it).
	legacyRates atomic.Bool
}

// migrations are the schema's versions: migrations[i] brings a database
// at version i to version i+1. Append only; never edit a released step.
var migrations = []string{
	// 1: node health, the findings timeline, fabric checks, pairwise runs.
	`CREATE TABLE node_samples (
		host TEXT NOT NULL, t INTEGER NOT NULL, health TEXT NOT NULL,
		critical INTEGER NOT NULL, warning INTEGER NOT NULL, info INTEGER NOT NULL,
		error TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (host, t)) WITHOUT ROWID;
	CREATE INDEX node_samples_t ON node_samples (t);
	CREATE TABLE findings (
		row INTEGER PRIMARY KEY, host TEXT NOT NULL, finding_id TEXT NOT NULL,
		subject TEXT NOT NULL, severity TEXT NOT NULL,
		opened INTEGER NOT NULL, closed INTEGER NOT NULL DEFAULT 0,
		evidence TEXT NOT NULL);
	CREATE INDEX findings_open ON findings (closed, host);
	CREATE INDEX findings_opened ON findings (opened);
	CREATE TABLE fabric_checks (t INTEGER PRIMARY KEY, source TEXT NOT NULL, doc TEXT NOT NULL);
	CREATE TABLE perf_runs (id TEXT PRIMARY KEY, started INTEGER NOT NULL, test TEXT NOT NULL,
		hosts INTEGER NOT NULL, doc TEXT NOT NULL);`,
	// 2: per-port data and error rates for the node page's charts.
	`CREATE TABLE port_rates (host TEXT NOT NULL, t INTEGER NOT NULL, ports TEXT NOT NULL,
		PRIMARY KEY (host, t)) WITHOUT ROWID;
	CREATE INDEX port_rates_t ON port_rates (t);`,
	// 3: the rates packed (packRates), with each node's list of ports
	// stored once in port_sets, instead of a JSON document per node and
	// step (about a fifth of the bytes). Version 2's port_rates rows stay
	// where they are, read beside the new ones, until pruning empties the
	// table and drops it: converting them would hold the hub's start for
	// minutes on a large history.
	`CREATE TABLE port_sets (id INTEGER PRIMARY KEY, ports TEXT NOT NULL UNIQUE);
	CREATE TABLE rate_steps (host TEXT NOT NULL, t INTEGER NOT NULL, port_set INTEGER NOT NULL, rates BLOB NOT NULL,
		PRIMARY KEY (host, t)) WITHOUT ROWID;
	CREATE INDEX rate_steps_t ON rate_steps (t);`,
}

// SchemaVersion is the version Open migrates to.
var SchemaVersion = len(migrations)

// Open opens (or creates) the database at path and migrates it to
// SchemaVersion. A file that SQLite cannot read as a database, or whose
// integrity check fails, is moved aside with its -wal and -shm files to
// <path>.corrupt-<UTC time> and a fresh database is created; Recovered and
// Note say so. A database written by a newer ibdoctor (a higher schema
// version) is refused, not moved.
func Open(path string, opts Options) (*Store, error) {
	return openAt(path, opts, SchemaVersion)
}

func openAt(path string, opts Options, version int) (*Store, error) {
	if opts.Retention <= 0 {
		opts.Retention = DefaultRetention
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("history dir: %w", err)
		}
	}
	s, err := open(path, opts, version)
	if err == nil || errors.Is(err, errNewer) {
		return s, err
	}
	if !errors.Is(err, errCorrupt) {
		return nil, err
	}
	to, merr := moveAside(path, err)
	if merr != nil {
		return nil, merr
	}
	s, err2 := open(path, opts, version)
	if err2 != nil {
		return nil, err2
	}
	s.Recovered = to
	s.Note = fmt.Sprintf("%v; moved to %s, starting fresh", err, to)
	return s, nil
}

var (
	errCorrupt = errors.New("not a usable history database")
	errNewer   = errors.New("written by a newer ibdoctor")
)

func dsn(path string) string {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

func open(path string, opts Options, version int) (*Store, error) {
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	ctx := context.Background()
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&check); err != nil {
		db.Close()
		if isNotDB(err) {
			return nil, fmt.Errorf("%s: %w: %v", path, errCorrupt, err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if check != "ok" {
		db.Close()
		return nil, fmt.Errorf("%s: %w: integrity check: %s", path, errCorrupt, check)
	}
	s := &Store{db: db, path: path, opts: opts}
	if err := s.migrate(ctx, version); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.loadPortSets(ctx, version); err != nil {
		db.Close()
		return nil, err
	}
	var legacy int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'port_rates'`).Scan(&legacy); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.legacyRates.Store(legacy > 0 && version >= packedVersion)
	return s, nil
}

// isNotDB says whether err is SQLite's "not a database" or "malformed"
// (SQLITE_NOTADB, SQLITE_CORRUPT).
func isNotDB(err error) bool {
	m := err.Error()
	return strings.Contains(m, "not a database") || strings.Contains(m, "malformed") || strings.Contains(m, "SQLITE_NOTADB") || strings.Contains(m, "SQLITE_CORRUPT")
}

// migrate brings the schema to version, one transaction per step.
func (s *Store) migrate(ctx context.Context, version int) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		if isNotDB(err) {
			return fmt.Errorf("%s: %w: %v", s.path, errCorrupt, err)
		}
		return fmt.Errorf("%s: %w", s.path, err)
	}
	cur := 0
	err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&cur)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: schema version: %w", s.path, err)
	}
	if cur > len(migrations) {
		return fmt.Errorf("%s: %w (schema version %d, this one knows up to %d)", s.path, errNewer, cur, len(migrations))
	}
	for v := cur; v < version; v++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: migrating schema to version %d: %w", s.path, v+1, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, v+1); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("%s: migrating schema to version %d: %w", s.path, v+1, err)
		}
	}
	return nil
}

// Version returns the schema version of the open database.
func (s *Store) Version(ctx context.Context) (int, error) {
	v := 0
	err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	return v, err
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// moveAside renames path and its -wal and -shm files to
// <path>.corrupt-<UTC time>[-wal|-shm].
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
		return "", fmt.Errorf("%w (and could not move it aside: %v)", why, err)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+ext, to+ext); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%w (and could not move %s aside: %v)", why, path+ext, err)
		}
	}
	return to, nil
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// NodeSample is a node's health at one time.
type NodeSample struct {
	Host string    `json:"host"`
	T    time.Time `json:"t"`
	// Health is ok, info, warning, critical or unreachable.
	Health string `json:"health"`
	// Critical, Warning and Info count the node's open findings.
	Critical int `json:"critical"`
	Warning  int `json:"warning"`
	Info     int `json:"info"`
	// Error says why the poll failed.
	Error string `json:"error,omitempty"`
}

// PortRate is one port's rates over a step.
type PortRate struct {
	// Port is "mlx5_0/1".
	Port string `json:"port"`
	// RcvBps and XmitBps are data bytes per second; ErrPerS error
	// counter increments per second (every error counter summed).
	RcvBps  float64 `json:"rcv_bps"`
	XmitBps float64 `json:"xmit_bps"`
	ErrPerS float64 `json:"err_per_s"`
}

// PortRates are a node's port rates at one time.
type PortRates struct {
	Host  string     `json:"host"`
	T     time.Time  `json:"t"`
	Ports []PortRate `json:"ports"`
}

// FindingRow is one finding's life on one host.
type FindingRow struct {
	// Row is the database's id of the row.
	Row     int64
	Host    string
	Subject string
	Opened  time.Time
	// Closed is zero while the finding is open.
	Closed  time.Time
	Finding finding.Finding
}

// Closing closes an open finding.
type Closing struct {
	Row int64
	T   time.Time
}

// Batch is what one commit writes.
type Batch struct {
	Samples []NodeSample
	Rates   []PortRates
	// Open are findings first seen; Commit sets their Row.
	Open  []*FindingRow
	Close []Closing
}

// Empty says whether the batch writes nothing.
func (b *Batch) Empty() bool {
	return len(b.Samples) == 0 && len(b.Rates) == 0 && len(b.Open) == 0 && len(b.Close) == 0
}

// Commit writes b in one transaction; when it returns nil the rows are on
// disk.
func (s *Store) Commit(ctx context.Context, b *Batch) error {
	if b.Empty() {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if len(b.Samples) > 0 {
		st, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO node_samples (host, t, health, critical, warning, info, error) VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		for _, x := range b.Samples {
			if _, err := st.ExecContext(ctx, x.Host, ms(x.T), x.Health, x.Critical, x.Warning, x.Info, x.Error); err != nil {
				return err
			}
		}
		st.Close()
	}
	var newSets map[string]int64
	if len(b.Rates) > 0 {
		st, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO rate_steps (host, t, port_set, rates) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		var buf []byte
		for _, x := range b.Rates {
			id, err := s.portSet(ctx, tx, x.Ports, &newSets)
			if err != nil {
				return err
			}
			buf = packRates(buf[:0], x.Ports)
			if _, err := st.ExecContext(ctx, x.Host, ms(x.T), id, buf); err != nil {
				return err
			}
		}
	}
	for _, f := range b.Open {
		doc, err := json.Marshal(f.Finding)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO findings (host, finding_id, subject, severity, opened, closed, evidence) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			f.Host, f.Finding.ID, f.Subject, string(f.Finding.Severity), ms(f.Opened), ms(f.Closed), string(doc))
		if err != nil {
			return err
		}
		if f.Row, err = res.LastInsertId(); err != nil {
			return err
		}
	}
	for _, c := range b.Close {
		if _, err := tx.ExecContext(ctx, `UPDATE findings SET closed = ? WHERE row = ? AND closed = 0`, ms(c.T), c.Row); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.addSets(newSets)
	return nil
}

// NodeSamples returns host's samples from since on, oldest first.
func (s *Store) NodeSamples(ctx context.Context, host string, since time.Time) ([]NodeSample, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t, health, critical, warning, info, error FROM node_samples WHERE host = ? AND t >= ? ORDER BY t`, host, ms(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []NodeSample
	for rows.Next() {
		x := NodeSample{Host: host}
		var t int64
		if err := rows.Scan(&t, &x.Health, &x.Critical, &x.Warning, &x.Info, &x.Error); err != nil {
			return nil, err
		}
		x.T = fromMS(t)
		out = append(out, x)
	}
	return out, rows.Err()
}

// PortRates returns host's port rates from since on, oldest first.
func (s *Store) PortRates(ctx context.Context, host string, since time.Time) ([]PortRates, error) {
	out, err := s.packedRates(ctx, host, since)
	if err != nil || !s.legacyRates.Load() {
		return out, err
	}
	old, err := s.jsonRates(ctx, host, since)
	if err != nil {
		if !s.legacyRates.Load() {
			return out, nil // pruning dropped the table meanwhile
		}
		return nil, err
	}
	return mergeRates(old, out), nil
}

// packedRates reads host's rows of rate_steps.
func (s *Store) packedRates(ctx context.Context, host string, since time.Time) ([]PortRates, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t, port_set, rates FROM rate_steps WHERE host = ? AND t >= ? ORDER BY t`, host, ms(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PortRates
	for rows.Next() {
		var t, set int64
		var blob []byte
		if err := rows.Scan(&t, &set, &blob); err != nil {
			return nil, err
		}
		x := PortRates{Host: host, T: fromMS(t)}
		ports, err := s.setPorts(ctx, set)
		if err == nil {
			x.Ports, err = unpackRates(ports, blob)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: port rates of %s at %s: %w", s.path, host, x.T, err)
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// jsonRates reads host's rows of version 2's port_rates.
func (s *Store) jsonRates(ctx context.Context, host string, since time.Time) ([]PortRates, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t, ports FROM port_rates WHERE host = ? AND t >= ? ORDER BY t`, host, ms(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PortRates
	for rows.Next() {
		var t int64
		var doc string
		if err := rows.Scan(&t, &doc); err != nil {
			return nil, err
		}
		x := PortRates{Host: host, T: fromMS(t)}
		if err := json.Unmarshal([]byte(doc), &x.Ports); err != nil {
			return nil, fmt.Errorf("%s: port rates of %s at %s: %w", s.path, host, x.T, err)
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// mergeRates merges two lists sorted by time; at the same time the
// packed row wins.
func mergeRates(old, packed []PortRates) []PortRates {
	out := make([]PortRates, 0, len(old)+len(packed))
	i, j := 0, 0
	for i < len(old) || j < len(packed) {
		switch {
		case j == len(packed) || (i < len(old) && old[i].T.Before(packed[j].T)):
			out = append(out, old[i])
			i++
		default:
			if i < len(old) && old[i].T.Equal(packed[j].T) {
				i++
			}
			out = append(out, packed[j])
			j++
		}
	}
	return out
}

// FindingQuery selects findings; zero fields select everything.
type FindingQuery struct {
	// Since selects findings open at or after it (still open, or closed
	// since).
	Since    time.Time
	Host     string
	ID       string
	Severity finding.Severity
	// OpenOnly selects findings not closed yet.
	OpenOnly bool
	// Limit bounds the rows returned (0: no bound); the newest are kept.
	Limit int
}

// Findings returns the findings q selects, by opening time.
func (s *Store) Findings(ctx context.Context, q FindingQuery) ([]FindingRow, error) {
	where := []string{"1=1"}
	var args []any
	if q.OpenOnly {
		where = append(where, "closed = 0")
	}
	if !q.Since.IsZero() {
		where = append(where, "(closed = 0 OR closed >= ?)")
		args = append(args, ms(q.Since))
	}
	if q.Host != "" {
		where = append(where, "host = ?")
		args = append(args, q.Host)
	}
	if q.ID != "" {
		where = append(where, "finding_id = ?")
		args = append(args, q.ID)
	}
	if q.Severity != "" {
		where = append(where, "severity = ?")
		args = append(args, string(q.Severity))
	}
	query := `SELECT row, host, subject, opened, closed, evidence FROM findings WHERE ` + strings.Join(where, " AND ") + ` ORDER BY opened DESC, row DESC`
	if q.Limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FindingRow
	for rows.Next() {
		var r FindingRow
		var opened, closed int64
		var doc string
		if err := rows.Scan(&r.Row, &r.Host, &r.Subject, &opened, &closed, &doc); err != nil {
			return nil, err
		}
		r.Opened, r.Closed = fromMS(opened), fromMS(closed)
		if err := json.Unmarshal([]byte(doc), &r.Finding); err != nil {
			return nil, fmt.Errorf("%s: finding row %d: %w", s.path, r.Row, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Oldest first.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// PutFabric stores one fabric check result (a JSON document).
func (s *Store) PutFabric(ctx context.Context, t time.Time, source string, doc []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO fabric_checks (t, source, doc) VALUES (?, ?, ?)`, ms(t), source, string(doc))
	return err
}

// LatestFabric returns the newest fabric check result; ok is false when
// there is none.
func (s *Store) LatestFabric(ctx context.Context) (t time.Time, source string, doc []byte, ok bool, err error) {
	var tm int64
	var d string
	err = s.db.QueryRowContext(ctx, `SELECT t, source, doc FROM fabric_checks ORDER BY t DESC LIMIT 1`).Scan(&tm, &source, &d)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, "", nil, false, nil
	}
	if err != nil {
		return time.Time{}, "", nil, false, err
	}
	return fromMS(tm), source, []byte(d), true, nil
}

// PerfRunRef names a stored pairwise run.
type PerfRunRef struct {
	ID      string
	Started time.Time
	Test    string
	Hosts   int
}

// PutPerfRun stores a pairwise run's document under id (replacing one of
// the same id).
func (s *Store) PutPerfRun(ctx context.Context, ref PerfRunRef, doc []byte) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO perf_runs (id, started, test, hosts, doc) VALUES (?, ?, ?, ?, ?)`,
		ref.ID, ms(ref.Started), ref.Test, ref.Hosts, string(doc))
	return err
}

// PerfRuns lists the stored runs, newest first.
func (s *Store) PerfRuns(ctx context.Context) ([]PerfRunRef, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, started, test, hosts FROM perf_runs ORDER BY started DESC, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PerfRunRef
	for rows.Next() {
		var r PerfRunRef
		var t int64
		if err := rows.Scan(&r.ID, &t, &r.Test, &r.Hosts); err != nil {
			return nil, err
		}
		r.Started = fromMS(t)
		out = append(out, r)
	}
	return out, rows.Err()
}

// ErrNotFound is returned for a run that is not stored.
var ErrNotFound = errors.New("not found")

// PerfRun returns a stored run's document.
func (s *Store) PerfRun(ctx context.Context, id string) ([]byte, error) {
	var d string
	err := s.db.QueryRowContext(ctx, `SELECT doc FROM perf_runs WHERE id = ?`, id).Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return []byte(d), err
}

// Prune deletes what is older than the retention at now: samples and
// rates, closed findings, fabric results (the newest is always kept) and
// pairwise runs; version 2's rates table goes once it is empty. It
// returns the number of rows deleted.
func (s *Store) Prune(ctx context.Context, now time.Time) (int64, error) {
	cut := ms(now.Add(-s.opts.Retention))
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var n int64
	for _, q := range []string{
		`DELETE FROM node_samples WHERE t < ?`,
		`DELETE FROM rate_steps WHERE t < ?`,
		`DELETE FROM findings WHERE closed != 0 AND closed < ?`,
		`DELETE FROM fabric_checks WHERE t < ? AND t != (SELECT MAX(t) FROM fabric_checks)`,
		`DELETE FROM perf_runs WHERE started < ?`,
	} {
		res, err := tx.ExecContext(ctx, q, cut)
		if err != nil {
			return 0, err
		}
		k, _ := res.RowsAffected()
		n += k
	}
	dropped := false
	if s.legacyRates.Load() {
		res, err := tx.ExecContext(ctx, `DELETE FROM port_rates WHERE t < ?`, cut)
		if err != nil {
			return 0, err
		}
		k, _ := res.RowsAffected()
		n += k
		var left int
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM port_rates)`).Scan(&left); err != nil {
			return 0, err
		}
		if left == 0 {
			if _, err := tx.ExecContext(ctx, `DROP TABLE port_rates`); err != nil {
				return 0, err
			}
			dropped = true
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	if dropped {
		s.legacyRates.Store(false)
	}
	return n, nil
}

// Bytes is the size of the database's content: its pages in use,
// including those still in the write-ahead log, without free pages.
func (s *Store) Bytes(ctx context.Context) (int64, error) {
	var pages, free, size int64
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count()), (SELECT freelist_count FROM pragma_freelist_count()), (SELECT page_size FROM pragma_page_size())`).Scan(&pages, &free, &size)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s.path, err)
	}
	return (pages - free) * size, nil
}

// Retention is the configured retention.
func (s *Store) Retention() time.Duration { return s.opts.Retention }
