package fabric

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/tarball"
)

const metaFile = "meta.json"

// maxMeta bounds meta.json (a real one is a few KB).
const maxMeta = 1 << 20

// outputNames are the outputs `fabric collect` saves (steps and the
// follow-up queries in collect.go); nothing else is read from a collection.
var outputNames = map[string]bool{
	"ibnetdiscover": true, "iblinkinfo": true, "ibqueryerrors": true, "dump_fts": true, "sminfo": true,
	"perfquery": true, "saquery-sm": true, "sminfo-sms": true,
	"smpquery-sl2vl": true, "smpquery-vlarb": true, "saquery-path-sl": true, "smpquery-portinfo": true,
}

// outputFile reports whether a collection file name is NAME.txt or
// NAME.stderr of a known output.
func outputFile(name string) bool {
	stem, ok := strings.CutSuffix(name, ".txt")
	if !ok {
		stem, ok = strings.CutSuffix(name, ".stderr")
	}
	return ok && outputNames[stem]
}

// maxOutput bounds one saved output read back (a 16k-HCA dump_fts is about
// 1 GiB uncompressed; larger fabrics should be split per switch).
const maxOutput = 2 << 30

// WriteDir saves the collection r into dir: meta.json and NAME.txt /
// NAME.stderr per tool.
func WriteDir(r *fabricmodel.Raw, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return write(r, func(name string, b []byte) error {
		return os.WriteFile(filepath.Join(dir, name), b, 0o644)
	})
}

// WriteTarGz saves the collection r as a gzip-compressed tar stream.
func WriteTarGz(r *fabricmodel.Raw, w io.Writer) error {
	tw := tarball.NewWriter(w, r.Taken)
	if err := write(r, func(name string, b []byte) error { return tw.File(name, b, 0o644) }); err != nil {
		return err
	}
	return tw.Close()
}

func write(r *fabricmodel.Raw, put func(string, []byte) error) error {
	meta, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := put(metaFile, append(meta, '\n')); err != nil {
		return err
	}
	for _, o := range r.Outputs {
		if err := put(o.Name+".txt", o.Stdout); err != nil {
			return err
		}
		if len(o.Stderr) > 0 {
			if err := put(o.Name+".stderr", o.Stderr); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadFrom reads a saved collection: a directory (through internal/source/rootfs's
// rooted reader: no links out) or a .tar.gz written by `fabric collect`
// (readTarGz: flat, size-bounded). A directory without meta.json is
// accepted too: every NAME.txt in it is taken as that tool's output, so a
// folder of outputs saved by hand works.
func ReadFrom(path string) (*fabricmodel.Raw, error) {
	var fsys fs.FS
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		root, err := rootfs.Open(path)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		fsys = root.FS()
	} else {
		// Not rootfs's bundle reader: its 32 MiB per-file cap is sized for
		// node bundles, and a large fabric's dump_fts is far bigger.
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		if fsys, err = readTarGz(fh); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	raw, err := ReadFS(fsys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	raw.Source = path
	return raw, nil
}

// Limits of a saved collection read from a .tar.gz.
const (
	maxTarFiles = 256
	maxTarBytes = 4 << 30
)

// readTarGz unpacks a collection tarball into memory. A collection is flat:
// only regular files with plain names (no directories, no "..", no links)
// are accepted, within maxOutput per file, maxTarBytes in all and
// maxTarFiles entries; a name may appear once. Only meta.json and the files
// of known outputs are kept: anything else is skipped without being held
// in memory. Each file is read into one buffer of its header size, so
// reading a 1 GiB output costs 1 GiB, not the 2–3 GiB of a growing buffer.
func readTarGz(r io.Reader) (fstest.MapFS, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("not a gzip-compressed tar (from 'ibdoctor fabric collect --out FILE.tar.gz'): %w", err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	m := fstest.MapFS{}
	var total int64
	for i := 0; ; i++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("tar entry %d: %w", i+1, err)
		}
		if i >= maxTarFiles {
			return nil, fmt.Errorf("more than %d entries", maxTarFiles)
		}
		name := strings.TrimPrefix(hdr.Name, "./")
		if hdr.Typeflag == tar.TypeDir && (name == "" || name == ".") {
			continue
		}
		if hdr.Typeflag != tar.TypeReg || !validName(name) {
			return nil, fmt.Errorf("tar entry %d %q: only plain files of a collection are read", i+1, hdr.Name)
		}
		if _, dup := m[name]; dup {
			return nil, fmt.Errorf("tar entry %d %q: appears twice", i+1, hdr.Name)
		}
		if name != metaFile && !outputFile(name) {
			continue
		}
		limit := int64(maxOutput)
		if name == metaFile {
			limit = maxMeta
		}
		if hdr.Size < 0 || hdr.Size > limit || total+hdr.Size > maxTarBytes {
			return nil, fmt.Errorf("tar entry %q: too large (%d bytes)", hdr.Name, hdr.Size)
		}
		b := make([]byte, hdr.Size)
		if _, err := io.ReadFull(tr, b); err != nil {
			return nil, fmt.Errorf("tar entry %q: %w", hdr.Name, err)
		}
		total += hdr.Size
		m[name] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	return m, nil
}

// ReadFS reads a collection from a file system (see ReadFrom).
func ReadFS(fsys fs.FS) (*fabricmodel.Raw, error) {
	raw := &fabricmodel.Raw{}
	b, err := readLimited(fsys, metaFile, maxMeta)
	switch {
	case err == nil:
		if err := json.Unmarshal(b, raw); err != nil {
			return nil, fmt.Errorf("%s: %w", metaFile, err)
		}
		raw.Outputs = slices.DeleteFunc(raw.Outputs, func(o *fabricmodel.Output) bool { return o == nil })
		// Each output is read once: a meta.json naming one large output
		// hundreds of times must not make hundreds of copies.
		if len(raw.Outputs) > len(outputNames) {
			return nil, fmt.Errorf("%s: %d outputs listed, a collection has at most %d", metaFile, len(raw.Outputs), len(outputNames))
		}
		seen := map[string]bool{}
		for _, o := range raw.Outputs {
			if !validName(o.Name) || !outputNames[o.Name] {
				return nil, fmt.Errorf("%s: unknown output name %q (known: %s)", metaFile, o.Name, strings.Join(slices.Sorted(maps.Keys(outputNames)), ", "))
			}
			if seen[o.Name] {
				return nil, fmt.Errorf("%s: output %q listed twice", metaFile, o.Name)
			}
			seen[o.Name] = true
		}
	case errors.Is(err, fs.ErrNotExist):
		// A folder saved by hand: the NAME.txt of every known output.
		ents, err := fs.ReadDir(fsys, ".")
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if n, ok := strings.CutSuffix(e.Name(), ".txt"); ok && e.Type().IsRegular() && outputNames[n] {
				raw.Outputs = append(raw.Outputs, &fabricmodel.Output{Name: n})
			}
		}
	default:
		return nil, err
	}
	for _, o := range raw.Outputs {
		if o.Stdout, err = readLimited(fsys, o.Name+".txt", maxOutput); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if o.Stderr, err = readLimited(fsys, o.Name+".stderr", maxOutput); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if len(raw.Outputs) == 0 {
		return nil, fmt.Errorf("no tool outputs (%s or NAME.txt files) found", metaFile)
	}
	return raw, nil
}

func validName(n string) bool {
	if n == "" || len(n) > 64 {
		return false
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return !strings.Contains(n, "..")
}

// readLimited reads a file of at most limit bytes. A file already in
// memory (a collection unpacked by readTarGz) is returned without a copy.
func readLimited(fsys fs.FS, name string, limit int64) ([]byte, error) {
	if m, ok := fsys.(fstest.MapFS); ok {
		f := m[name]
		if f == nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		if int64(len(f.Data)) > limit {
			return nil, fmt.Errorf("%s: larger than %d bytes", name, limit)
		}
		return f.Data, nil
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized from Stat, as os.ReadFile does: a growing buffer would peak
	// at two to three times a large output.
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() <= limit {
		buf.Grow(int(fi.Size()) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b := buf.Bytes()
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return b, nil
}
