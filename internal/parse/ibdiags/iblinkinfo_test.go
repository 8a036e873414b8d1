package ibdiags

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

func TestParseLinkInfo(t *testing.T) {
	li, err := ParseLinkInfo(openTestdata(t, "iblinkinfo-spineleaf.txt"), "iblinkinfo")
	if err != nil {
		t.Fatal(err)
	}
	if len(li.Ports) != 36 {
		t.Fatalf("got %d ports, want 36", len(li.Ports))
	}
	want := []LinkPort{
		{NodeType: CA, NodeDesc: "h4", PortGUID: 0x100007, LID: 8, Port: 1, Width: 4, Speed: ib.SpeedDDR, State: 4, Phys: 5,
			RemoteLID: 6, RemotePort: 2, RemoteDesc: "leaf2", CouldBeWidth: 12, CouldBeSpeed: ib.SpeedQDR, Line: 2},
		{NodeType: Switch, NodeGUID: 0x200001, NodeDesc: "spine2", LID: 3, Port: 3, State: 1, Phys: 2, RemoteLID: -1, Line: 8},
	}
	got := []LinkPort{li.Ports[0], li.Ports[4]}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var narrow LinkPort
	for _, p := range li.Ports {
		if p.NodeDesc == "leaf2" && p.Port == 5 { // the w=1 link
			narrow = p
		}
	}
	if narrow.NodeDesc != "leaf2" || narrow.Port != 5 || narrow.Width != 1 || narrow.RemoteDesc != "spine1" {
		t.Errorf("narrow link: %+v", narrow)
	}
}

func TestParseLinkInfoReal(t *testing.T) {
	tests := []struct {
		file      string
		ports     int
		speed     ib.Speed
		firstDesc string
	}{
		{"iblinkinfo-edr-sb7700.txt", 7, ib.SpeedEDR, "n02 HCA-1"},
		{"iblinkinfo-qdr-is4.txt", 10, ib.SpeedQDR, "centos-data-200 HCA-1"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			li, err := ParseLinkInfo(openTestdata(t, tt.file), tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(li.Ports) != tt.ports || li.Ports[0].Speed != tt.speed || li.Ports[0].NodeDesc != tt.firstDesc || li.Ports[0].Width != 4 {
				t.Errorf("got %d ports, first %+v", len(li.Ports), li.Ports[0])
			}
		})
	}
}

func TestParseLinkInfoForms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want LinkPort
	}{
		{"line form", `0x506b4b0300820910 "MF0;SB7700:MSB7700/U1"      2   17[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>  0xec0d9a03003d62be      4    1[  ] "n02 HCA-1" ( )`,
			LinkPort{NodeType: Switch, NodeGUID: 0x506b4b0300820910, NodeDesc: "MF0;SB7700:MSB7700/U1", LID: 2, Port: 17, Width: 4, Speed: ib.SpeedEDR, State: 4, Phys: 5,
				RemoteGUID: 0xec0d9a03003d62be, RemoteLID: 4, RemotePort: 1, RemoteDesc: "n02 HCA-1", Line: 1}},
		{"fdr10", "Switch: 0x0002c90200404ad8 sw:\n         223   33[  ] ==( 4X  10.0 Gbps (FDR10) Active/  LinkUp)==>     145    1[  ] \"gpfs-a4-005-p HCA-1\" ( )",
			LinkPort{NodeType: Switch, NodeGUID: 0x0002c90200404ad8, NodeDesc: "sw", LID: 223, Port: 33, Width: 4, Speed: ib.SpeedFDR10, State: 4, Phys: 5,
				RemoteLID: 145, RemotePort: 1, RemoteDesc: "gpfs-a4-005-p HCA-1", Line: 2}},
		{"not available", "Switch: 0x0000000000200000 leaf1:\n           0    1[  ] ==( 4X           2.5 Gbps Initialize/  LinkUp)==>      \"Port not available\"",
			LinkPort{NodeType: Switch, NodeGUID: 0x200000, NodeDesc: "leaf1", LID: 0, Port: 1, Width: 4, Speed: ib.SpeedSDR, State: 2, Phys: 5,
				RemoteLID: -1, RemoteUnavailable: true, Line: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			li, err := ParseLinkInfo(strings.NewReader(tt.in), "x")
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, li.Ports[len(li.Ports)-1]); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseLinkInfoErrors(t *testing.T) {
	tests := []struct{ name, in string }{
		{"garbage", "hello world\n"},
		{"no header", `           6    5[  ] ==( 1X           2.5 Gbps Active/  LinkUp)==>       1    2[  ] "spine1" ( )`},
		{"bad speed", "CA: h:\n 0x1 2 1[  ] ==( 4X 3.3 Gbps Active/  LinkUp)==>  6 2[  ] \"x\" ( )"},
		{"bad state", "CA: h:\n 0x1 2 1[  ] ==( 4X 2.5 Gbps Happy/  LinkUp)==>  6 2[  ] \"x\" ( )"},
		{"bad width", "CA: h:\n 0x1 2 1[  ] ==( 3X 2.5 Gbps Active/  LinkUp)==>  6 2[  ] \"x\" ( )"},
		{"unterminated", "CA: h:\n 0x1 2 1[  ] ==( 4X 2.5 Gbps Active/  LinkUp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseLinkInfo(strings.NewReader(tt.in), "iblinkinfo.txt")
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) || pe.Line == 0 {
				t.Fatalf("got %v, want a malformed-line ParseError", err)
			}
		})
	}
	if _, err := ParseLinkInfo(strings.NewReader(""), "x"); !errors.Is(err, ErrNoData) {
		t.Errorf("empty input: %v", err)
	}
}

func FuzzParseLinkInfo(f *testing.F) {
	for _, n := range []string{"iblinkinfo-spineleaf.txt", "iblinkinfo-edr-sb7700.txt", "iblinkinfo-qdr-is4.txt", "iblinkinfo-dupguid.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		li, err := ParseLinkInfo(strings.NewReader(in), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a ParseError: %v", err)
			}
			return
		}
		for _, p := range li.Ports {
			if p.Port < 0 || p.Port > 255 || (p.Width != 0 && !validWidth(p.Width)) || p.Phys == 0 {
				t.Fatalf("bad port %+v", p)
			}
		}
	})
}

// TestParseLinkInfoPasted: what people paste (NVIDIA/nccl-tests#71, the
// Open MPI users list 2010): the old switch header without a colon after
// "Switch", a literal "..." for the ports left out, prose and prompts.
func TestParseLinkInfoPasted(t *testing.T) {
	in := "ps: if it's any help, this is what iblinkinfo is telling me\n" +
		"faui36a ~ # iblinkinfo -P 1\n" +
		"Switch 0x0008f10500380136 IBM HSSM:\n" +
		"           4    1[  ] ==( 4X 5.0 Gbps Active/  LinkUp)==>       1    1[  ] \"faui36a HCA-1\" ( )\n" +
		"           4    3[  ] ==( 4X 2.5 Gbps   Down/Disabled)==>             [  ] \"\" ( )\n" +
		"CA: gpu-v100-3 HCA-1:\n" +
		"      0xb88303ffff7f61c4      6    1[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>       3    3[  ] \"MF0;ibswitch254:MQM8700/U1\" ( )\n" +
		"           ...\n"
	li, err := ParseLinkInfo(strings.NewReader(in), "l.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(li.Ports) != 3 {
		t.Fatalf("%d ports: %+v", len(li.Ports), li.Ports)
	}
	sw := li.Ports[0]
	if sw.NodeType != Switch || sw.NodeGUID != 0x0008f10500380136 || sw.NodeDesc != "IBM HSSM" || sw.Speed != ib.SpeedDDR || sw.RemoteDesc != "faui36a HCA-1" {
		t.Errorf("old switch header: %+v", sw)
	}
	if ca := li.Ports[2]; ca.NodeType != CA || ca.NodeDesc != "gpu-v100-3 HCA-1" || ca.Speed != ib.SpeedEDR {
		t.Errorf("CA: %+v", ca)
	}
	var lines []int
	for _, n := range li.Skipped {
		lines = append(lines, n.Line)
	}
	if !slices.Equal(lines, []int{1, 2, 8}) {
		t.Errorf("skipped lines %v, want 1 2 8", lines)
	}
}
