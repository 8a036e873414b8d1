package fabric

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
)

func sampleRaw() *fabricmodel.Raw {
	return &fabricmodel.Raw{
		Taken: time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC),
		Host:  "sm1",
		Outputs: []*fabricmodel.Output{
			{Name: "ibnetdiscover", Args: []string{"ibnetdiscover"}, Stdout: []byte("Switch\t8 \"S-0000000000200000\"\n"), DurationMS: 12.5},
			{Name: "ibqueryerrors", Args: []string{"ibqueryerrors", "--skip-sl", "--data"}, Stdout: []byte("Errors for \"spine1\"\n"),
				Stderr: []byte("ibwarn: [1] mad_rpc: _do_madrpc failed; dport (Lid 3)\n")},
			{Name: "sminfo", Args: []string{"sminfo"}, Err: "sminfo: exit status 255", Stderr: []byte("sminfo: iberror: failed: query\n")},
		},
	}
}

func sameOutputs(t *testing.T, what string, want, got *fabricmodel.Raw) {
	t.Helper()
	if len(got.Outputs) != len(want.Outputs) {
		t.Fatalf("%s: %d outputs, want %d", what, len(got.Outputs), len(want.Outputs))
	}
	for _, o := range want.Outputs {
		b := got.Get(o.Name)
		if b == nil || !bytes.Equal(b.Stdout, o.Stdout) || !bytes.Equal(b.Stderr, o.Stderr) {
			t.Errorf("%s: %s differs", what, o.Name)
		}
	}
}

func TestRawRoundTrip(t *testing.T) {
	raw := sampleRaw()
	var buf bytes.Buffer
	if err := WriteTarGz(raw, &buf); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tgz := filepath.Join(dir, "fabric.tar.gz")
	if err := os.WriteFile(tgz, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFrom(tgz)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Taken.Equal(raw.Taken) || back.Host != raw.Host || back.Source != tgz {
		t.Errorf("tar.gz round trip: taken %v host %q source %q", back.Taken, back.Host, back.Source)
	}
	if o := back.Get("sminfo"); o == nil || o.Err != raw.Get("sminfo").Err {
		t.Errorf("tar.gz round trip lost the sminfo error: %+v", o)
	}
	sameOutputs(t, "tar.gz", raw, back)

	d := filepath.Join(dir, "d")
	if err := WriteDir(raw, d); err != nil {
		t.Fatal(err)
	}
	back, err = ReadFrom(d)
	if err != nil {
		t.Fatal(err)
	}
	sameOutputs(t, "dir", raw, back)

	// A folder of NAME.txt files saved by hand, without meta.json.
	if err := os.Remove(filepath.Join(d, metaFile)); err != nil {
		t.Fatal(err)
	}
	back, err = ReadFrom(d)
	if err != nil {
		t.Fatal(err)
	}
	sameOutputs(t, "dir without meta.json", raw, back)

	if _, err := ReadFrom(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no tool outputs") {
		t.Errorf("empty dir: %v", err)
	}
}

func TestReadTarGzRejects(t *testing.T) {
	mk := func(hdrs ...*tar.Header) string {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, h := range hdrs {
			if err := tw.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			if h.Size > 0 {
				tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
			}
		}
		tw.Close()
		gz.Close()
		p := filepath.Join(t.TempDir(), "c.tar.gz")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		path string
		want string
	}{
		{"dot-dot", mk(&tar.Header{Name: "../ibnetdiscover.txt", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}), "only plain files"},
		{"subdir", mk(&tar.Header{Name: "a/ibnetdiscover.txt", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}), "only plain files"},
		{"symlink", mk(&tar.Header{Name: "ibnetdiscover.txt", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}), "only plain files"},
		{"not gzip", func() string {
			p := filepath.Join(t.TempDir(), "x.tar.gz")
			os.WriteFile(p, []byte("plain text"), 0o644)
			return p
		}(), "not a gzip-compressed tar"},
		{"no outputs", mk(&tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755}), "no tool outputs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFrom(tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
