package hub

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/output/web"
	pairwiserules "github.com/ibdoctor/ibdoctor/internal/rules/pairwise"
	"github.com/ibdoctor/ibdoctor/internal/service/hubstore"
	"github.com/ibdoctor/ibdoctor/internal/service/pairwise"
)

// MaxPerfRunBytes bounds one pairwise document (a 2,000-node full mesh
// is about 4 million pairs: a few hundred MiB; such runs use patterns).
const MaxPerfRunBytes = 64 << 20

// decodeReport reads a `perf pairwise --format json` document.
func decodeReport(doc []byte, source string) (*pairwise.Report, error) {
	var rep pairwise.Report
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("%s: not a `perf pairwise --format json` document: %w", source, err)
	}
	if rep.Matrix == nil || len(rep.Matrix.Hosts) == 0 {
		return nil, fmt.Errorf("%s: the document has no matrix (no hosts)", source)
	}
	if rep.Matrix.Started.IsZero() {
		return nil, fmt.Errorf("%s: the matrix has no start time", source)
	}
	known := map[string]bool{}
	for _, h := range rep.Matrix.Hosts {
		known[h] = true
	}
	for i, p := range rep.Matrix.Pairs {
		if !known[p.A] || !known[p.B] {
			return nil, fmt.Errorf("%s: pair %d (%s → %s) names a host the matrix does not list", source, i+1, p.A, p.B)
		}
	}
	return &rep, nil
}

// runID names a run by its start time and content, so the same document
// read twice is stored once.
func runID(rep *pairwise.Report, doc []byte) string {
	sum := sha256.Sum256(doc)
	return rep.Matrix.Started.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(sum[:4])
}

func testName(t pairwise.Test) string {
	return strings.TrimSpace(t.Backend + " " + t.Kind)
}

// AddPerfRun validates and stores a pairwise document; it returns the
// run's ID.
func (h *Hub) AddPerfRun(ctx context.Context, doc []byte, source string) (string, error) {
	if len(doc) > MaxPerfRunBytes {
		return "", fmt.Errorf("%s: larger than %d MiB", source, MaxPerfRunBytes>>20)
	}
	rep, err := decodeReport(doc, source)
	if err != nil {
		return "", err
	}
	id := runID(rep, doc)
	ref := hubstore.PerfRunRef{ID: id, Started: rep.Matrix.Started, Test: testName(rep.Matrix.Test), Hosts: len(rep.Matrix.Hosts)}
	if err := h.st.PutPerfRun(ctx, ref, doc); err != nil {
		return "", err
	}
	return id, nil
}

// PerfDir reads the pairwise documents (*.json) of a directory into the
// hub: new files and files that changed since the last scan.
type PerfDir struct {
	h    *Hub
	dir  string
	seen map[string]fileStamp
}

type fileStamp struct {
	size int64
	mod  time.Time
}

// NewPerfDir watches dir for h.
func NewPerfDir(h *Hub, dir string) *PerfDir {
	return &PerfDir{h: h, dir: dir, seen: map[string]fileStamp{}}
}

// Scan stores every new or changed *.json document and returns how many
// it stored. A file that is not one is an error naming it (once, until it
// changes); the others are still stored.
func (p *PerfDir) Scan(ctx context.Context) (int, error) {
	ents, err := os.ReadDir(p.dir)
	if err != nil {
		return 0, fmt.Errorf("--perf-from: %w", err)
	}
	var errs []error
	n := 0
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(p.dir, e.Name())
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		stamp := fileStamp{fi.Size(), fi.ModTime()}
		if p.seen[path] == stamp {
			continue
		}
		p.seen[path] = stamp
		if !fi.Mode().IsRegular() || fi.Size() > MaxPerfRunBytes {
			errs = append(errs, fmt.Errorf("%s: not a regular file under %d MiB", path, MaxPerfRunBytes>>20))
			continue
		}
		doc, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := p.h.AddPerfRun(ctx, doc, path); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Loop scans every interval until ctx ends.
func (p *PerfDir) Loop(ctx context.Context, every time.Duration, logf func(string, ...any)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
		if n, err := p.Scan(ctx); err != nil {
			logf("%v", err)
		} else if n > 0 {
			logf("read %d pairwise runs from %s", n, p.dir)
		}
	}
}

// perfView builds the page of a run: the bandwidth matrix, the reference
// it is judged against and the hosts its findings blame.
func perfView(id string, rep *pairwise.Report) web.PerfRun {
	m := rep.Matrix
	v := web.PerfRun{ID: id, Started: m.Started, Test: testName(m.Test), Hosts: slices.Clone(m.Hosts), Findings: rep.Findings}
	idx := make(map[string]int, len(m.Hosts))
	for i, h := range m.Hosts {
		idx[h] = i
	}
	v.Gbps = make([][]float64, len(m.Hosts))
	for i := range v.Gbps {
		v.Gbps[i] = make([]float64, len(m.Hosts))
		for j := range v.Gbps[i] {
			v.Gbps[i][j] = -1
		}
	}
	for _, p := range m.Pairs {
		if p.Result == nil || p.Result.BitsPerSecond <= 0 {
			continue
		}
		i, j := idx[p.A], idx[p.B]
		// A pair measured in several rounds shows its latest result.
		v.Gbps[i][j] = p.Result.BitsPerSecond / 1e9
	}
	if m.Test.Kind != pairwise.KindLat {
		v.Expected = pairwiserules.Reference(m.Input(nil), 0) / 1e9
	}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		for _, h := range []string{f.Subject.Host, f.Subject.NodeDesc} {
			if h != "" && !seen[h] {
				seen[h] = true
				v.Culprits = append(v.Culprits, h)
			}
		}
	}
	return v
}
