package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

const fixture = "../sysfs/testdata/node1"

var stamp = time.Date(2026, 11, 29, 16, 30, 0, 0, time.UTC)

func collectFixture(t testing.TB, root string, opts Options) ([]byte, *Meta) {
	t.Helper()
	rt, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	opts.Now = func() time.Time { return stamp }
	var buf bytes.Buffer
	meta, err := Collect(context.Background(), rt.FS(), &buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), meta
}

func readBack(t testing.TB, b []byte) (*snapshot.Snapshot, fs.FS) {
	t.Helper()
	fsys, err := rootfs.ReadBundle(bytes.NewReader(b), "node.tar.gz")
	if err != nil {
		t.Fatalf("bundle does not pass rootfs checks: %v", err)
	}
	s, err := sysfs.Read(context.Background(), fsys, sysfs.Options{Root: "node.tar.gz"})
	if err != nil {
		t.Fatal(err)
	}
	return s, fsys
}

// ignoreSource leaves out what differs by design between the node and its
// bundle: where and when it was read.
var ignoreSource = cmpopts.IgnoreFields(snapshot.Snapshot{}, "Root", "Taken")

func TestRoundTrip(t *testing.T) {
	live, err := sysfs.ReadRoot(context.Background(), fixture)
	if err != nil {
		t.Fatal(err)
	}
	b, meta := collectFixture(t, fixture, Options{Source: fixture, Version: "test"})
	got, fsys := readBack(t, b)
	if d := cmp.Diff(live, got, ignoreSource); d != "" {
		t.Errorf("bundle snapshot differs from the node's (-node +bundle):\n%s", d)
	}
	if len(live.Gaps) == 0 {
		t.Fatal("fixture should have gaps to carry over")
	}
	wantMeta := Collected{Devices: 3, Ports: 3, PCI: 10, GPUs: 1, NetDevs: 4}
	meta.Collected.Files, meta.Collected.Symlinks = 0, 0
	if d := cmp.Diff(wantMeta, meta.Collected); d != "" {
		t.Errorf("collected (-want +got):\n%s", d)
	}
	if meta.Host != "gpu-node-017" || meta.Format != FormatVersion || !meta.Time.Equal(stamp) || meta.Version != "test" {
		t.Errorf("meta = %+v", meta)
	}
	// The layout is sysfs': the class entry is a relative symlink, and
	// nothing that is not needed came along.
	target, err := fs.ReadLink(fsys, "sys/class/infiniband/mlx5_0")
	if err != nil || !strings.HasPrefix(target, "../../devices/pci0000:3a/") {
		t.Errorf("class link = %q, %v", target, err)
	}
	if l, err := fs.ReadLink(fsys, "sys/devices/pci0000:3a/0000:3a:00.0/driver"); err != nil || !strings.HasSuffix(l, "/pcieport") {
		t.Errorf("driver link kept as a link: %q, %v", l, err)
	}
	// Virtual interfaces come along (the NCCL_SOCKET_IFNAME check needs
	// the whole list); the drivers' directories do not.
	if l, err := fs.ReadLink(fsys, "sys/class/net/lo"); err != nil || l != "../../devices/virtual/net/lo" {
		t.Errorf("sys/class/net/lo = %q, %v", l, err)
	}
	if b, err := fs.ReadFile(fsys, "sys/devices/virtual/net/lo/type"); err != nil || string(b) != "772\n" {
		t.Errorf("lo type: %q %v", b, err)
	}
	for _, absent := range []string{"sys/bus/pci/drivers"} {
		if _, err := fs.Lstat(fsys, absent); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s should not be in the bundle (%v)", absent, err)
		}
	}
	// port_rcv_errors is a directory in the fixture, so it is copied as
	// one and reads back with the same gap; the malformed rate is copied
	// byte for byte. Nothing failed to read.
	var m Meta
	mb, _ := fs.ReadFile(fsys, "meta.json")
	if err := json.Unmarshal(mb, &m); err != nil || len(m.Errors) != 0 || m.Host != "gpu-node-017" {
		t.Errorf("meta.json = %+v, %v", m, err)
	}
}

func TestDeterministic(t *testing.T) {
	a, _ := collectFixture(t, fixture, Options{Source: "/"})
	b, _ := collectFixture(t, fixture, Options{Source: "/"})
	if !bytes.Equal(a, b) {
		t.Fatal("two bundles of the same root differ")
	}
	// Entries are sorted and every parent directory comes first.
	zr, _ := gzip.NewReader(bytes.NewReader(a))
	tr := tar.NewReader(zr)
	var prev string
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(h.Name, "/")
		if name <= prev {
			t.Fatalf("%q after %q: not sorted", name, prev)
		}
		if dir := filepath.Dir(name); dir != "." && !seen[dir] {
			t.Fatalf("%q before its directory", name)
		}
		if !h.ModTime.Equal(stamp) {
			t.Fatalf("%s mtime %v", name, h.ModTime)
		}
		seen[name], prev = true, name
	}
}

// errFS fails reads of chosen files, as a live sysfs does (EIO from a MAD
// that timed out).
type errFS struct {
	fs.FS
	fail map[string]error
}

func (e errFS) Open(name string) (fs.File, error) {
	if err, ok := e.fail[name]; ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return e.FS.Open(name)
}

func (e errFS) ReadLink(name string) (string, error)   { return fs.ReadLink(e.FS, name) }
func (e errFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(e.FS, name) }

func TestUnreadableRecorded(t *testing.T) {
	rt, err := rootfs.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	const counter = "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error"
	const speed = "sys/devices/pci0000:3a/0000:3a:00.0/current_link_speed"
	fsys := errFS{FS: rt.FS(), fail: map[string]error{counter: errors.New("input/output error"), speed: errors.New("input/output error")}}
	live, err := sysfs.Read(context.Background(), fsys, sysfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	meta, err := Collect(context.Background(), fsys, &buf, Options{Now: func() time.Time { return stamp }})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range meta.Errors {
		paths = append(paths, e.Path)
	}
	if d := cmp.Diff([]string{speed, counter}, paths, cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
		t.Errorf("meta errors (-want +got):\n%s", d)
	}
	got, _ := readBack(t, buf.Bytes())
	if d := cmp.Diff(live.Gaps, got.Gaps); d != "" {
		t.Errorf("gaps of the bundle differ from the node's (-node +bundle):\n%s", d)
	}
	if got.Port("mlx5_0", 1) == nil || len(got.Port("mlx5_0", 1).Counters) != len(live.Port("mlx5_0", 1).Counters) {
		t.Error("the other counters must survive")
	}
}

func TestCollectNoSys(t *testing.T) {
	_, err := Collect(context.Background(), os.DirFS(t.TempDir()), io.Discard, Options{Source: "/empty"})
	if !errors.Is(err, sysfs.ErrNoSys) {
		t.Fatalf("err = %v", err)
	}
}

// A bundle keeps what the doctor needs of a job (limits, NCCL/RDMA
// variables) and the clock files, and no other environment variable.
func TestCollectJobAndClock(t *testing.T) {
	fsys := fstest.MapFS{
		"sys/class/infiniband":     &fstest.MapFile{Mode: fs.ModeDir | 0o755},
		"proc/uptime":              &fstest.MapFile{Data: []byte("94623.12 180000.40\n")},
		"proc/stat":                &fstest.MapFile{Data: []byte("cpu  1 2 3\nintr 5\nbtime 1764300000\nprocesses 9\n")},
		"proc/4242/limits":         &fstest.MapFile{Data: []byte("Limit                     Soft Limit           Hard Limit           Units     \nMax locked memory         65536                65536                bytes     \n")},
		"proc/4242/environ":        &fstest.MapFile{Data: []byte("PATH=/bin\x00NCCL_IB_HCA=mlx5_0\x00AWS_SECRET_ACCESS_KEY=hunter2\x00CUDA_VISIBLE_DEVICES=0,1\x00")},
		"proc/4242/cmdline":        &fstest.MapFile{Data: []byte("python3\x00train.py\x00")},
		"proc/sys/kernel/hostname": &fstest.MapFile{Data: []byte("gpu017\n")},
	}
	var buf bytes.Buffer
	meta, err := Collect(context.Background(), fsys, &buf, Options{Source: "/", PIDs: []int{4242, 77}, Now: func() time.Time { return time.Unix(1764400000, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rootfs.ReadBundle(&buf, "b.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"proc/uptime":       "94623.12 180000.40\n",
		"proc/stat":         "btime 1764300000\n",
		"proc/4242/environ": "NCCL_IB_HCA=mlx5_0\x00CUDA_VISIBLE_DEVICES=0,1\x00",
		"proc/4242/cmdline": "python3\x00train.py\x00",
	} {
		b, err := fs.ReadFile(got, p)
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", p, b, err, want)
		}
	}
	if b, _ := fs.ReadFile(got, "proc/4242/limits"); !bytes.Contains(b, []byte("Max locked memory")) {
		t.Errorf("limits not kept: %q", b)
	}
	// The missing process is recorded, not fatal.
	found := false
	for _, e := range meta.Errors {
		found = found || e.Path == "proc/77/limits"
	}
	if !found {
		t.Errorf("missing pid not recorded: %+v", meta.Errors)
	}
}
