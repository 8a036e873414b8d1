package rootfs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// entry is one tar header of a test bundle.
type entry struct {
	name, body, link string
	typ              byte
	size             int64 // header size when it must differ from body
}

func file(name, body string) entry { return entry{name: name, body: body, typ: tar.TypeReg} }
func link(name, to string) entry   { return entry{name: name, link: to, typ: tar.TypeSymlink} }
func dir(name string) entry        { return entry{name: name, typ: tar.TypeDir} }

func makeBundle(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: 0o644}
		if e.typ == tar.TypeReg {
			h.Size = int64(len(e.body))
			if e.size != 0 {
				h.Size = e.size
			}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg && e.size == 0 {
			if _, err := io.WriteString(tw, e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	tw.Flush() // a short body (size > len) leaves the archive truncated on purpose
	zw.Close()
	return buf.Bytes()
}

// sysfsLike is a miniature of the real layout: a class symlink into
// sys/devices and a relative "device" link back up.
var sysfsLike = []entry{
	dir("sys/"),
	file("sys/devices/pci0000:3a/0000:3a:00.0/vendor", "0x8086\n"),
	file("sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/vendor", "0x15b3\n"),
	file("sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0/fw_ver", "28.39.2048\n"),
	link("sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0/device", "../../../0000:3b:00.0"),
	link("sys/class/infiniband/mlx5_0", "../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0"),
	link("sys/bus/pci/devices/0000:3b:00.0", "../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"),
	file("./proc/sys/kernel/hostname", "node01\n"),
}

func TestReadBundleLayout(t *testing.T) {
	fsys, err := ReadBundle(bytes.NewReader(makeBundle(t, sysfsLike...)), "b.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0/fw_ver", "proc/sys/kernel/hostname",
		"sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/vendor"); err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(fsys, "sys/class/infiniband/mlx5_0/device/vendor")
	if err != nil || string(b) != "0x15b3\n" {
		t.Fatalf("read through two links = %q, %v", b, err)
	}
	real, err := EvalSymlinks(fsys, "sys/class/infiniband/mlx5_0/device")
	if want := "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"; err != nil || real != want {
		t.Fatalf("EvalSymlinks = %q, %v; want %q", real, err, want)
	}
	target, err := fsys.(fs.ReadLinkFS).ReadLink("sys/class/infiniband/mlx5_0")
	if err != nil || !strings.HasPrefix(target, "../../devices/") {
		t.Fatalf("ReadLink = %q, %v", target, err)
	}
	info, err := fsys.(fs.ReadLinkFS).Lstat("sys/class/infiniband/mlx5_0")
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("Lstat = %v, %v; want a symlink", info, err)
	}
	ents, err := fs.ReadDir(fsys, "sys/class/infiniband")
	if err != nil || len(ents) != 1 || ents[0].Type() != fs.ModeSymlink {
		t.Fatalf("ReadDir = %v, %v", ents, err)
	}
}

func TestReadBundleRejects(t *testing.T) {
	big := strings.Repeat("x", 10)
	tests := []struct {
		name    string
		entries []entry
		want    error
		msg     string // must appear in the error
	}{
		{"zip slip", []entry{file("sys/../../etc/passwd", "x")}, ErrUnsafe, `"sys/../../etc/passwd"`},
		{"dotdot at start", []entry{file("../evil", "x")}, ErrUnsafe, `".." in path`},
		{"absolute", []entry{file("/etc/cron.d/evil", "x")}, ErrUnsafe, "absolute path"},
		{"symlink absolute", []entry{link("sys/x", "/etc")}, ErrUnsafe, `symlink to "/etc"`},
		{"symlink escape", []entry{link("sys/class/x", "../../../etc")}, ErrEscapes, "tar entry 1"},
		{"symlink chain escape", []entry{link("d/up", ".."), link("esc", "d/up/../..")}, ErrEscapes, `symlink "esc"`},
		{"write through symlink", []entry{link("sys/d", "other"), dir("other"), file("sys/d/f", "x")}, ErrUnsafe, "is not a directory"},
		{"symlink loop", []entry{link("a", "b"), link("b", "a")}, ErrSymlinkLoop, "too many levels"},
		{"hard link", []entry{file("a", "x"), {name: "b", link: "a", typ: tar.TypeLink}}, ErrUnsafe, "hard link"},
		{"char device", []entry{{name: "dev/mem", typ: tar.TypeChar}}, ErrUnsafe, "device or fifo"},
		{"fifo", []entry{{name: "p", typ: tar.TypeFifo}}, ErrUnsafe, "device or fifo"},
		{"duplicate", []entry{file("a", "1"), file("./a", "2")}, ErrUnsafe, "duplicate"},
		{"file over dir", []entry{file("a/b", "1"), file("a", "2")}, ErrUnsafe, "already exists"},
		{"huge file", []entry{{name: "big", typ: tar.TypeReg, size: MaxBundleFileBytes + 1, body: big}}, ErrLimit, "MaxBundleFileBytes"},
		{"backslash", []entry{file(`a\..\b`, "x")}, ErrUnsafe, "backslash"},
		{"long link", []entry{link("a", strings.Repeat("b/", 3000))}, ErrUnsafe, "longer than 4096"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadBundle(bytes.NewReader(makeBundle(t, tt.entries...)), "evil.tar.gz")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), "evil.tar.gz") {
				t.Fatalf("err = %q, want it to name the bundle and contain %q", err, tt.msg)
			}
		})
	}
}

func TestReadBundleTooManyFiles(t *testing.T) {
	lim := defaultLimits
	lim.files = 100
	entries := make([]entry, lim.files) // d/0..d/99 and the implied d/
	for i := range entries {
		entries[i] = file("d/"+itoa(i), "0\n")
	}
	if _, err := readBundle(bytes.NewReader(makeBundle(t, entries[:lim.files-1]...)), "ok.tar.gz", lim); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := readBundle(bytes.NewReader(makeBundle(t, entries...)), "many.tar.gz", lim)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxBundleFiles") {
		t.Fatalf("err = %v, want the MaxBundleFiles limit", err)
	}
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}

func TestReadBundleTotalSize(t *testing.T) {
	// Highly compressible files that each pass the per-file limit but
	// together exceed MaxBundleBytes: the classic decompression bomb.
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	lim := defaultLimits
	lim.total, lim.file = 4<<20, 1<<20
	zeros := make([]byte, lim.file)
	for i := 0; i < int(lim.total/lim.file)+1; i++ {
		tw.WriteHeader(&tar.Header{Name: "f" + itoa(i), Typeflag: tar.TypeReg, Size: int64(len(zeros)), Mode: 0o644})
		tw.Write(zeros)
	}
	tw.Close()
	zw.Close()
	_, err := readBundle(&buf, "bomb.tar.gz", lim)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxBundleBytes") {
		t.Fatalf("err = %v, want the MaxBundleBytes limit", err)
	}
}

func TestReadBundleNotGzip(t *testing.T) {
	_, err := ReadBundle(strings.NewReader("plain text"), "x.tar.gz")
	if err == nil || !strings.Contains(err.Error(), "x.tar.gz: not a gzip") {
		t.Fatalf("err = %v", err)
	}
	// Truncated archive: header says 100 bytes, body has 1.
	b := makeBundle(t, entry{name: "a", typ: tar.TypeReg, body: "", size: 100})
	if _, err := ReadBundle(bytes.NewReader(b), "cut.tar.gz"); err == nil {
		t.Fatal("truncated archive accepted")
	}
}

func TestOpenNothingWrittenOutside(t *testing.T) {
	work := t.TempDir()
	bundle := filepath.Join(work, "evil.tar.gz")
	os.WriteFile(bundle, makeBundle(t, file("../escaped", "x"), file("ok", "y")), 0o644)
	if _, err := Open(bundle); err == nil {
		t.Fatal("Open accepted a zip-slip bundle")
	}
	ents, _ := os.ReadDir(work)
	if len(ents) != 1 {
		t.Fatalf("work dir holds %v, want only the bundle", ents)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(work), "escaped")); !os.IsNotExist(err) {
		t.Fatalf("file written outside: %v", err)
	}
}

func TestOpen(t *testing.T) {
	work := t.TempDir()
	bundle := filepath.Join(work, "node.tar.gz")
	if err := os.WriteFile(bundle, makeBundle(t, sysfsLike...), 0o644); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(work, "root")
	os.MkdirAll(filepath.Join(d, "sys/devices/x"), 0o755)
	os.WriteFile(filepath.Join(d, "sys/devices/x/a"), []byte("1\n"), 0o644)
	os.Symlink("devices/x", filepath.Join(d, "sys/class"))
	os.Symlink("../../..", filepath.Join(d, "sys/devices/up"))
	for _, tc := range []struct {
		path   string
		bundle bool
		file   string
	}{{bundle, true, "sys/class/infiniband/mlx5_0/fw_ver"}, {d, false, "sys/class/a"}} {
		r, err := Open(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if r.Name() != tc.path || r.IsBundle() != tc.bundle {
			t.Errorf("Name/IsBundle = %q %v", r.Name(), r.IsBundle())
		}
		if _, ok := r.FS().(fs.ReadLinkFS); !ok {
			t.Errorf("%s: FS does not implement fs.ReadLinkFS", tc.path)
		}
		if _, err := ReadAttr(r.FS(), tc.file); err != nil {
			t.Errorf("%s: %v", tc.path, err)
		}
		r.Close()
	}
	// A directory root does not let a symlink leave it.
	r, _ := Open(d)
	defer r.Close()
	if _, err := fs.ReadFile(r.FS(), "sys/devices/up/etc/passwd"); err == nil {
		t.Error("directory root followed a symlink outside")
	}
	if _, err := EvalSymlinks(r.FS(), "sys/devices/up"); !errors.Is(err, ErrEscapes) {
		t.Errorf("EvalSymlinks escape err = %v", err)
	}
	for _, bad := range []string{filepath.Join(work, "missing"), "/dev/null"} {
		if _, err := Open(bad); err == nil {
			t.Errorf("Open(%s) succeeded", bad)
		}
	}
}

func TestReadAttr(t *testing.T) {
	fsys := fstest.MapFS{
		"small": {Data: []byte("0x15b3\n")},
		"exact": {Data: bytes.Repeat([]byte("a"), MaxAttrBytes)},
		"big":   {Data: bytes.Repeat([]byte("a"), MaxAttrBytes+1)},
	}
	if b, err := ReadAttr(fsys, "small"); err != nil || string(b) != "0x15b3\n" {
		t.Errorf("small = %q, %v", b, err)
	}
	if _, err := ReadAttr(fsys, "exact"); err != nil {
		t.Errorf("exact: %v", err)
	}
	_, err := ReadAttr(fsys, "big")
	var pe *fs.PathError
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &pe) || pe.Path != "big" {
		t.Errorf("big: %v, want ErrTooLarge naming the file", err)
	}
	if _, err := ReadAttr(fsys, "none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("none: %v", err)
	}
}

func TestEvalSymlinks(t *testing.T) {
	fsys := fstest.MapFS{
		"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor": {Data: []byte("x")},
		"sys/bus/pci/devices/0000:01:00.0":                        {Data: []byte("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0"), Mode: fs.ModeSymlink},
		"sys/class/x":                                             {Data: []byte("../bus/pci/devices/0000:01:00.0"), Mode: fs.ModeSymlink},
		"loop/a":                                                  {Data: []byte("b"), Mode: fs.ModeSymlink},
		"loop/b":                                                  {Data: []byte("a"), Mode: fs.ModeSymlink},
		"esc":                                                     {Data: []byte("../x"), Mode: fs.ModeSymlink},
		"dangling":                                                {Data: []byte("nowhere"), Mode: fs.ModeSymlink},
		"plain/file.txt":                                          {Data: []byte("x")},
	}
	tests := []struct {
		in, want string
		err      error
	}{
		{"sys/class/x/vendor", "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor", nil},
		{"sys/class/x", "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", nil},
		{"plain/file.txt", "plain/file.txt", nil},
		{"loop/a", "", ErrSymlinkLoop},
		{"esc", "", ErrEscapes},
		{"dangling", "", fs.ErrNotExist},
		{"/abs", "", fs.ErrInvalid},
	}
	for _, tt := range tests {
		got, err := EvalSymlinks(fsys, tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("EvalSymlinks(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func FuzzReadBundle(f *testing.F) {
	f.Add(makeBundle(f, sysfsLike...))
	f.Add(makeBundle(f, link("d/up", ".."), link("esc", "d/up/../..")))
	f.Add(makeBundle(f, file("a/b", "1"), link("c", "a"), file("c/d", "2")))
	f.Fuzz(func(t *testing.T, b []byte) {
		fsys, err := ReadBundle(bytes.NewReader(b), "fuzz.tar.gz")
		if err != nil {
			return
		}
		// Whatever was accepted must stay inside the root and be walkable.
		fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if r, err := EvalSymlinks(fsys, p); err == nil && (strings.HasPrefix(r, "..") || strings.HasPrefix(r, "/")) {
				t.Fatalf("%s resolves outside: %s", p, r)
			}
			return nil
		})
	})
}

// The live root reads through os.DirFS (nothing to escape from) and still
// offers what the sysfs reader needs: ReadLink, ReadDir, ReadFile, Stat.
func TestOpenLiveRoot(t *testing.T) {
	r, err := Open("/")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fsys := r.FS()
	if _, ok := fsys.(fs.ReadLinkFS); !ok {
		t.Fatal("live root lacks fs.ReadLinkFS")
	}
	if _, ok := fsys.(fs.ReadDirFS); !ok {
		t.Fatal("live root lacks fs.ReadDirFS")
	}
	if _, err := fs.Stat(fsys, "proc/self"); err != nil {
		t.Fatalf("stat proc/self: %v", err)
	}
	if _, err := fs.ReadLink(fsys, "proc/self/exe"); err != nil {
		t.Fatalf("readlink proc/self/exe: %v", err)
	}
}

func TestIsKernelSysfs(t *testing.T) {
	if !isKernelSysfs("/") {
		t.Skip("/sys is not a sysfs mount here")
	}
	if isKernelSysfs(t.TempDir()) {
		t.Error("a temporary directory is not a sysfs root")
	}
}
