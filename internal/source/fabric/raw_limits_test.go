package fabric

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

type tarFile struct {
	name string
	data []byte
}

func writeTgz(t *testing.T, files ...tarFile) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.tar.gz")
	fh, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(fh)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Typeflag: tar.TypeReg, Size: int64(len(f.data)), Mode: 0o644}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func metaListing(names ...string) []byte {
	r := fabricmodel.Raw{}
	for _, n := range names {
		r.Outputs = append(r.Outputs, &fabricmodel.Output{Name: n})
	}
	b, _ := json.Marshal(r)
	return b
}

// allocDuring returns the bytes allocated while f runs: an upper bound of
// the peak it needs.
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

func TestReadFromHostileMeta(t *testing.T) {
	big := bytes.Repeat([]byte("0"), 16<<20)
	many := make([]string, 400)
	for i := range many {
		many[i] = "dump_fts"
	}
	tests := []struct {
		name  string
		files []tarFile
		want  string
	}{
		// Before: every listing copied the 16 MiB output, 7.8 GB in all.
		{"one output 400 times", []tarFile{{"meta.json", metaListing(many...)}, {"dump_fts.txt", big}}, "listed"},
		{"duplicate", []tarFile{{"meta.json", metaListing("sminfo", "dump_fts", "sminfo")}, {"dump_fts.txt", big}}, `"sminfo" listed twice`},
		{"unknown", []tarFile{{"meta.json", metaListing("ibnetdiscover", "passwd")}}, `unknown output name "passwd"`},
		{"too many", []tarFile{{"meta.json", metaListing("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m")}}, "13 outputs listed"},
		{"tar entry twice", []tarFile{{"sminfo.txt", []byte("x")}, {"sminfo.txt", []byte("y")}}, "appears twice"},
		{"meta too large", []tarFile{{"meta.json", bytes.Repeat([]byte(" "), 2<<20)}}, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeTgz(t, tt.files...)
			var err error
			alloc := allocDuring(func() { _, err = ReadFrom(p) })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if alloc > 64<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}

// TestReadFromLargeOutput: a large output costs its size once, not the
// 2–3 times of a growing buffer plus a copy (a 1 GiB dump_fts peaked at
// 3 GB); files outside the collection's names are skipped unread.
func TestReadFromLargeOutput(t *testing.T) {
	const size = 64 << 20
	zeros := make([]byte, size)
	p := writeTgz(t, tarFile{"meta.json", metaListing("dump_fts", "sminfo")}, tarFile{"dump_fts.txt", zeros},
		tarFile{"sminfo.txt", []byte("sminfo: sm lid 1\n")}, tarFile{"notes.txt", zeros})
	zeros = nil
	var raw *fabricmodel.Raw
	var err error
	alloc := allocDuring(func() { raw, err = ReadFrom(p) })
	if err != nil {
		t.Fatal(err)
	}
	if o := raw.Get("dump_fts"); o == nil || len(o.Stdout) != size {
		t.Fatalf("dump_fts not read back whole")
	}
	if len(raw.Outputs) != 2 {
		t.Errorf("%d outputs, want 2", len(raw.Outputs))
	}
	if alloc > size+size/4 {
		t.Errorf("reading a %d MiB output allocated %d MiB", size>>20, alloc>>20)
	}
	// The same from a directory.
	dir := t.TempDir()
	if err := WriteDir(raw, dir); err != nil {
		t.Fatal(err)
	}
	alloc = allocDuring(func() { raw, err = ReadFrom(dir) })
	if err != nil || len(raw.Get("dump_fts").Stdout) != size {
		t.Fatalf("from a directory: %v", err)
	}
	if alloc > size+size/4 {
		t.Errorf("reading a %d MiB output from a directory allocated %d MiB", size>>20, alloc>>20)
	}
}

// TestOutputNamesCoverCollect: every output collect saves is one ReadFrom
// accepts.
func TestOutputNamesCoverCollect(t *testing.T) {
	names := []string{"perfquery", "saquery-sm", "sminfo-sms", "smpquery-sl2vl", "smpquery-vlarb", "saquery-path-sl", "smpquery-portinfo"}
	for _, s := range steps(CollectOptions{}, "") {
		names = append(names, s.name)
	}
	for _, n := range names {
		if !outputNames[n] {
			t.Errorf("%s is collected but not read back", n)
		}
	}
	if len(outputNames) != len(names) {
		t.Errorf("outputNames has %d names, collect saves %d", len(outputNames), len(names))
	}
}
