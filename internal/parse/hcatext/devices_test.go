package hcatext

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// The lines of ibv_devices (rdma-core libibverbs/examples/device_list.c),
// as siderolabs/docs issue 566 pasted them (tabs expanded).
const siderodocs566Devices = "    device                 node GUID\n" +
	"    ------              ----------------\n" +
	"    mlx5_0              88e9a4ffffa746e6\n" +
	"    mlx5_1              88e9a4ffff8dadde\n" +
	"    mlx5_2              88e9a4ffff8dbdce\n" +
	"    mlx5_3              88e9a4ffff8ddcda\n"

func TestParseDevices(t *testing.T) {
	tests := []struct {
		name, in string
		devices  []string // name/guid@line
		complete bool
		after    []int
	}{
		{"siderolabs/docs 566, then the poster's note", siderodocs566Devices + "\n# => Looks good\nCMD: ibv_devinfo -d mlx5_0\n",
			[]string{"mlx5_0/88e9a4ffffa746e6@3", "mlx5_1/88e9a4ffff8dadde@4", "mlx5_2/88e9a4ffff8dbdce@5", "mlx5_3/88e9a4ffff8ddcda@6"}, true, []int{8, 9}},
		{"as printed, with its tabs", "    device          \t   node GUID\n    ------          \t----------------\n    mlx5_0          \t0c42a10300a1b2c3\n",
			[]string{"mlx5_0/0c42a10300a1b2c3@3"}, true, nil},
		{"no device: the header alone", "    device                 node GUID\n    ------              ----------------\n", nil, true, nil},
		{"cut after the header", "    device                 node GUID\n", nil, false, nil},
		{"a row that is not one ends the table", strings.Join(strings.SplitAfter(siderodocs566Devices, "\n")[:3], "") + "    mlx5_1              88e9a4ff\n", []string{"mlx5_0/88e9a4ffffa746e6@3"}, true, []int{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseDevices(strings.NewReader(tt.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range r.Devices {
				got = append(got, d.Name+"/"+d.GUID+"@"+strconv.Itoa(d.Line))
			}
			if strings.Join(got, " ") != strings.Join(tt.devices, " ") || r.Complete != tt.complete || r.Header.N != 1 {
				t.Errorf("devices %v complete %v header %+v, want %v %v", got, r.Complete, r.Header, tt.devices, tt.complete)
			}
			if len(r.After) != len(tt.after) || len(r.After) > 0 && r.After[0] != tt.after[0] {
				t.Errorf("after %v, want %v", r.After, tt.after)
			}
		})
	}
	if _, err := ParseDevices(strings.NewReader("device node\n"), "p.txt"); !errors.Is(err, ErrNoDevicesTable) || !strings.Contains(err.Error(), "p.txt") {
		t.Errorf("no header: %v", err)
	}
}

func TestIsDevicesHeader(t *testing.T) {
	for in, want := range map[string]bool{
		"device                 node GUID":  true,
		"device          \t   node GUID":    true,
		"device node GUID of mlx5_0 is set": false,
		"device: mlx5_0 node GUID":          false,
		"devices node GUID":                 false,
	} {
		if got := IsDevicesHeader(in); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

func FuzzParseDevices(f *testing.F) {
	f.Add(siderodocs566Devices)
	f.Add("    device                 node GUID\n    ------              ----------------\n\nnext\n")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ParseDevices(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		lines := strings.Count(in, "\n") + 1
		for _, d := range r.Devices {
			if d.Name == "" || len(d.GUID) != 16 || d.Line <= r.Header.N || d.Line > lines {
				t.Fatalf("bad device %+v of %d lines", d, lines)
			}
		}
		for _, n := range r.After {
			if n <= r.Header.N || n > lines {
				t.Fatalf("after line %d of %d", n, lines)
			}
		}
	})
}
