package hcatext

import (
	"bufio"
	"io"
	"strings"
)

// DevFile is one character device of /dev/infiniband as `ls -l` lists
// it ("crw-rw-rw- 1 root root 231, 192 Dec 28 14:10 uverbs0", or with
// the directory: "/dev/infiniband/uverbs0").
type DevFile struct {
	Name string `json:"name"` // "uverbs0", "umad1", "issm0", "rdma_cm", "ucm0"
	Mode string `json:"mode"`
	Line int    `json:"line"`
}

// DevFileLine reads one such line: a character device (mode "c…") whose
// name is one of the RDMA devices the kernel creates there (ib_uverbs:
// uverbsN; ib_umad: umadN and issmN; rdma_ucm: rdma_cm; ib_ucm: ucmN).
func DevFileLine(l string) (DevFile, bool) {
	f := strings.Fields(l)
	if len(f) < 8 || len(f[0]) < 10 || f[0][0] != 'c' || strings.Trim(f[0][1:10], "rwxsStT-") != "" {
		return DevFile{}, false
	}
	name := f[len(f)-1]
	name = name[strings.LastIndexByte(name, '/')+1:]
	if !rdmaDevName(name) {
		return DevFile{}, false
	}
	return DevFile{Name: name, Mode: f[0]}, true
}

func rdmaDevName(n string) bool {
	if n == "rdma_cm" {
		return true
	}
	for _, p := range []string{"uverbs", "umad", "issm", "ucm"} {
		if num, ok := strings.CutPrefix(n, p); ok && num != "" && strings.Trim(num, "0123456789") == "" {
			return true
		}
	}
	return false
}

// ParseDevFiles reads the lines of DevFileLine from r (line numbers from
// 1); it fails with ErrNoData (naming source) when r holds none.
func ParseDevFiles(r io.Reader, source string) ([]DevFile, error) {
	var out []DevFile
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if d, ok := DevFileLine(sc.Text()); ok {
			d.Line = n
			out = append(out, d)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoData}
	}
	return out, nil
}

// MadClassLine reads one line of a listing of /sys/class/infiniband_mad,
// where ib_umad (drivers/infiniband/core/user_mad.c) adds, for each
// InfiniBand port, a class device umadN and one issmN: `ls -l` shows them
// as links ("lrwxrwxrwx 1 root root 0 Dec  4 10:15 umad0 ->
// ../../devices/pci0000:80/…/0000:81:00.0/infiniband_mad/umad0/"), a
// plain `ls` by name, several to a line ("abi_version  issm0  umad0").
// It returns the umadN and issmN names the line lists.
func MadClassLine(l string) ([]string, bool) {
	f := strings.Fields(l)
	if len(f) >= 10 && len(f[0]) >= 10 && f[0][0] == 'l' && f[len(f)-2] == "->" {
		name := strings.TrimSuffix(f[len(f)-3], "@")
		if (strings.HasPrefix(name, "umad") || strings.HasPrefix(name, "issm")) && rdmaDevName(name) &&
			strings.Contains(f[len(f)-1], "infiniband_mad/") {
			return []string{name}, true
		}
		return nil, false
	}
	var names []string
	abi := false
	for _, w := range f {
		w = strings.TrimSuffix(w, "@")
		switch {
		case w == "abi_version":
			abi = true
		case (strings.HasPrefix(w, "umad") || strings.HasPrefix(w, "issm")) && rdmaDevName(w):
			names = append(names, w)
		default:
			return nil, false
		}
	}
	if !abi || len(names) == 0 {
		return nil, false
	}
	return names, true
}

// ParseMadClass reads the umadN and issmN names of a listing of
// /sys/class/infiniband_mad (MadClassLine), with the line of each; it
// fails with ErrNoData (naming source) when r holds none.
func ParseMadClass(r io.Reader, source string) ([]DevFile, error) {
	var out []DevFile
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		names, ok := MadClassLine(sc.Text())
		if !ok {
			continue
		}
		for _, name := range names {
			out = append(out, DevFile{Name: name, Line: n})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoData}
	}
	return out, nil
}
