package sysfspci

import (
	"errors"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// resources512 is `tail -v -n +1 /sys/bus/pci/devices/0000\:01\:00.0/*_link_*`
// as pasted in nokyan/resources issue 512 (comment by pktpls, 2025-07-16).
const resources512 = "```\n" +
	"> tail -v -n +1 /sys/bus/pci/devices/0000\\:01\\:00.0/*_link_*\n" +
	"==> /sys/bus/pci/devices/0000:01:00.0/current_link_speed <==\n" +
	"16.0 GT/s PCIe\n" +
	"\n" +
	"==> /sys/bus/pci/devices/0000:01:00.0/current_link_width <==\n" +
	"8\n" +
	"\n" +
	"==> /sys/bus/pci/devices/0000:01:00.0/max_link_speed <==\n" +
	"32.0 GT/s PCIe\n" +
	"\n" +
	"==> /sys/bus/pci/devices/0000:01:00.0/max_link_width <==\n" +
	"16\n" +
	"```\n"

func sp(s pcie.Speed) *pcie.Speed { return &s }
func w(n int) *int                { return &n }

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Link
		lines   map[string]int // attribute: the value's line, of the first link
		skipped int
	}{
		{"tail -v of one function (resources 512)", resources512,
			[]Link{{Address: "0000:01:00.0", CurSpeed: sp(pcie.Gen4), MaxSpeed: sp(pcie.Gen5), CurWidth: w(8), MaxWidth: w(16)}},
			map[string]int{"current_link_speed": 4, "current_link_width": 7, "max_link_speed": 10, "max_link_width": 13}, 0},
		{"head -v through the device tree, kernel 5.6 speeds",
			"==> /sys/devices/pci0000:00/0000:00:03.1/0000:0b:00.0/current_link_speed <==\n8 GT/s\n==> /sys/devices/pci0000:00/0000:00:03.1/0000:0b:00.0/max_link_speed <==\n8 GT/s\n",
			[]Link{{Address: "0000:0b:00.0", CurSpeed: sp(pcie.Gen3), MaxSpeed: sp(pcie.Gen3)}}, map[string]int{"current_link_speed": 2}, 0},
		{"grep over the files of two functions",
			"$ grep . /sys/bus/pci/devices/*/*_link_width\n" +
				"/sys/bus/pci/devices/0000:3b:00.0/current_link_width:8\n" +
				"/sys/bus/pci/devices/0000:3b:00.0/max_link_width:16\n" +
				"/sys/bus/pci/devices/0000:5e:00.0/current_link_width:16\n",
			[]Link{{Address: "0000:3b:00.0", CurWidth: w(8), MaxWidth: w(16)}, {Address: "0000:5e:00.0", CurWidth: w(16)}},
			map[string]int{"current_link_width": 2, "max_link_width": 3}, 0},
		{"cat through a class device",
			"# cat /sys/class/infiniband/mlx5_0/device/current_link_width\n4\n# cat /sys/class/infiniband/mlx5_0/device/max_link_width\n16\n",
			[]Link{{Class: "infiniband", Name: "mlx5_0", CurWidth: w(4), MaxWidth: w(16)}}, map[string]int{"current_link_width": 2}, 0},
		{"an Unknown speed and a garbled width are listed, not read",
			"==> /sys/bus/pci/devices/0000:00:1c.0/current_link_speed <==\nUnknown\n==> /sys/bus/pci/devices/0000:00:1c.0/max_link_width <==\n3\n==> /sys/bus/pci/devices/0000:00:1c.0/current_link_width <==\n0\n",
			[]Link{{Address: "0000:00:1c.0", CurWidth: w(0)}}, map[string]int{"current_link_width": 6}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(strings.NewReader(tt.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Links) != len(tt.want) {
				t.Fatalf("links %+v, want %+v", r.Links, tt.want)
			}
			for i, want := range tt.want {
				got := r.Links[i]
				if got.Address != want.Address || got.Class != want.Class || got.Name != want.Name ||
					!eqSpeed(got.CurSpeed, want.CurSpeed) || !eqSpeed(got.MaxSpeed, want.MaxSpeed) ||
					!eqInt(got.CurWidth, want.CurWidth) || !eqInt(got.MaxWidth, want.MaxWidth) {
					t.Errorf("link %d = %+v, want %+v", i, got, want)
				}
			}
			for a, n := range tt.lines {
				ls := r.Links[0].Lines[a]
				if len(ls) == 0 || ls[len(ls)-1].N != n {
					t.Errorf("%s lines %+v, want the value at %d", a, ls, n)
				}
			}
			if len(r.Skipped) != tt.skipped {
				t.Errorf("skipped %q, want %d", r.Skipped, tt.skipped)
			}
		})
	}
}

func eqSpeed(a, b *pcie.Speed) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
func eqInt(a, b *int) bool          { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func TestParseNothing(t *testing.T) {
	for _, in := range []string{"", "The `pp_dpm_pcie` sys entry looks like a winner\n0: 2.5GT/s, x8 250Mhz\n",
		"==> /sys/class/drm/card1/device/pp_dpm_pcie <==\n1: 16.0GT/s, x8 1143Mhz *\n"} {
		_, err := Parse(strings.NewReader(in), "p.txt")
		var pe *parse.Error
		if !errors.As(err, &pe) || pe.Source != "p.txt" {
			t.Errorf("Parse(%q) = %v, want a parse.Error naming the file", in, err)
		}
	}
}

func TestIsLine(t *testing.T) {
	tests := []struct {
		l    string
		want bool
	}{
		{"==> /sys/bus/pci/devices/0000:01:00.0/current_link_speed <==", true},
		{"/sys/bus/pci/devices/0000:3b:00.0/max_link_width:16", true},
		{"root@gpu1:~# cat /sys/class/net/ens1f0/device/current_link_speed", true},
		{"==> /sys/class/infiniband/mlx5_0/ports/1/state <==", false},
		{"> tail -v -n +1 /sys/bus/pci/devices/0000\\:01\\:00.0/*_link_*", false},
		{"echo 1 > /sys/bus/pci/devices/0000:3b:00.0/remove", false},
		{"[   12.3] mlx5_core 0000:3b:00.0: current_link_speed unknown", false},
	}
	for _, tt := range tests {
		if got := IsLine(tt.l); got != tt.want {
			t.Errorf("IsLine(%q) = %v, want %v", tt.l, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(resources512)
	f.Add("/sys/bus/pci/devices/0000:3b:00.0/current_link_width:8\n")
	f.Add("cat /sys/class/net/eth0/device/max_link_speed\n8.0 GT/s PCIe\n")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := Parse(strings.NewReader(in), "fuzz.txt")
		if err == nil && len(r.Links) == 0 {
			t.Fatal("no error and no link")
		}
		for _, l := range strings.Split(in, "\n") {
			IsLine(l)
		}
	})
}
