package hcatext

import (
	"errors"
	"strings"
	"testing"
)

// TestParseDevFiles: `ls -alh /dev/infiniband` on a Kubernetes GPU host
// (k8s-rdma-shared-dev-plugin issue), and the forms around it.
func TestParseDevFiles(t *testing.T) {
	const ls = "total 0\n" +
		"drwxr-xr-x  2 root root      660 Dec 28 11:15 .\n" +
		"crw-------  1 root root 231,  64 Dec 28 14:10 issm0\n" +
		"crw-rw-rw-  1 root root  10,  56 Dec 28 14:10 rdma_cm\n" +
		"crw-------  1 root root 231,   0 Dec 28 14:10 umad0\n" +
		"crw-rw-rw-  1 root root 231, 192 Dec 28 14:10 uverbs0\n" +
		"crw-rw-rw-. 1 root root 231, 193 Jan  2  2024 /dev/infiniband/uverbs1\n" +
		"crw-rw-rw-  1 root root 4, 1 Dec 28 14:10 tty1\n" +
		"-rw-r--r--  1 root root 0 Dec 28 14:10 uverbs9\n"
	fs, err := ParseDevFiles(strings.NewReader(ls), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "issm0 rdma_cm umad0 uverbs0 uverbs1" || fs[0].Line != 3 || fs[3].Mode != "crw-rw-rw-" {
		t.Errorf("%+v", fs)
	}
	if _, err := ParseDevFiles(strings.NewReader("total 0\n"), "p.txt"); !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "p.txt") {
		t.Errorf("err %v", err)
	}
}

func FuzzParseDevFiles(f *testing.F) {
	f.Add("crw-rw-rw-  1 root root 231, 192 Dec 28 14:10 uverbs0\n")
	f.Add("c         1 2 3 4 5 6 /\ncrw-rw-rw- a b c d e f umad\n")
	f.Fuzz(func(t *testing.T, in string) {
		fs, err := ParseDevFiles(strings.NewReader(in), "fuzz")
		if err != nil && !strings.Contains(err.Error(), "fuzz") {
			t.Fatalf("error without its source: %v", err)
		}
		for _, d := range fs {
			if d.Name == "" || d.Line < 1 {
				t.Fatalf("%+v", d)
			}
		}
	})
}

func TestMadClassLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"  lrwxrwxrwx  1 root root    0 Nov 25 12:29 umad0 -> ../../devices/pci0000:80/0000:80:01.1/0000:81:00.0/infiniband_mad/umad0/", []string{"umad0"}},
		{"lrwxrwxrwx  1 root root    0 Dec  4 18:08 issm1 -> ../../devices/pci0000:80/0000:80:01.1/0000:81:00.1/infiniband_mad/issm1/", []string{"issm1"}},
		{"abi_version  issm0  issm1  umad0  umad1", []string{"issm0", "issm1", "umad0", "umad1"}},
		{"-r--r--r--  1 root root 4096 Nov 25 12:29 abi_version", nil},
		{"drwxr-xr-x  2 root root    0 Nov 25 12:30 ./", nil},
		{"lrwxrwxrwx 1 root root 0 Dec 4 10:15 eth0 -> ../../devices/virtual/net/eth0", nil},
		{"umad0 umad1", nil},
	} {
		got, ok := MadClassLine(tc.in)
		if ok != (tc.want != nil) || strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("MadClassLine(%q) = %v, %v; want %v", tc.in, got, ok, tc.want)
		}
	}
	if _, err := ParseMadClass(strings.NewReader("total 0\n"), "x.txt"); err == nil || !strings.Contains(err.Error(), "x.txt") {
		t.Errorf("ParseMadClass of no listing: %v", err)
	}
}

func FuzzParseMadClass(f *testing.F) {
	f.Add("lrwxrwxrwx  1 root root    0 Nov 25 12:29 umad0 -> ../../devices/pci0000:80/0000:80:01.1/0000:81:00.0/infiniband_mad/umad0/\n")
	f.Add("abi_version  issm0  umad0\n")
	f.Add("l         1 2 3 4 5 6 issm -> x\n")
	f.Fuzz(func(t *testing.T, in string) {
		fs, err := ParseMadClass(strings.NewReader(in), "fuzz")
		if err != nil && !strings.Contains(err.Error(), "fuzz") {
			t.Fatalf("error without its source: %v", err)
		}
		for _, d := range fs {
			if d.Name == "" || d.Line < 1 {
				t.Fatalf("%+v", d)
			}
		}
	})
}
