package mst

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		file    string
		paths   []string
		pcis    []string
		notLoad int
	}{
		{"cx4-one-device-aorus.txt", []string{"/dev/mst/mt4115_pciconf0"}, []string{"0000:06:00.0"}, 1},
		{"cx3pro-hp544-pciconf-and-cr.txt", []string{"/dev/mst/mt4103_pciconf0", "/dev/mst/mt4103_pci_cr0"}, []string{"0000:02:00.0", "0000:02:00.0"}, 0},
		{"bf3-status-v.txt", []string{"/dev/mst/mt41692_pciconf0.1", "/dev/mst/mt41692_pciconf0"}, []string{"03:00.1", "03:00.0"}, 1},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		st, err := Parse(strings.NewReader(string(b)), tc.file)
		if err != nil {
			t.Fatal(err)
		}
		var paths, pcis []string
		for _, d := range st.Devices {
			paths, pcis = append(paths, d.Path), append(pcis, d.PCI)
		}
		notLoaded := 0
		for _, m := range st.Modules {
			if !m.Loaded {
				notLoaded++
			}
		}
		if !slices.Equal(paths, tc.paths) || !slices.Equal(pcis, tc.pcis) || notLoaded != tc.notLoad || len(st.Modules) != 2 {
			t.Errorf("%s: paths %v pcis %v modules %+v", tc.file, paths, pcis, st.Modules)
		}
	}
	st, _ := Parse(strings.NewReader(readFile(t, "bf3-status-v.txt")), "x")
	if st.Devices[0].RDMA != "mlx5_1" || st.Devices[0].Type != "BlueField3(rev:1)" {
		t.Errorf("%+v", st.Devices[0])
	}
	if _, err := Parse(strings.NewReader("hello\n"), "x"); !errors.Is(err, ErrNoStatus) {
		t.Errorf("err %v", err)
	}
}

func readFile(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func FuzzParse(f *testing.F) {
	ents, _ := os.ReadDir("testdata")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			b, _ := os.ReadFile(filepath.Join("testdata", e.Name()))
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		st, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, d := range st.Devices {
			if !strings.HasPrefix(d.Path, "/dev/mst/") || d.Line < 1 {
				t.Fatalf("bad device %+v", d)
			}
		}
	})
}
