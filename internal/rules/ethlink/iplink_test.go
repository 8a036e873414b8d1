package ethlink

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/iplink"
)

// TestCheckIPLink: a PF that carries VFs and is down is port.down,
// critical; an interface without VFs is not judged.
func TestCheckIPLink(t *testing.T) {
	vfs := []iplink.VF{{Num: 0, LinkState: "auto", Line: 3}, {Num: 7, LinkState: "auto", Line: 10}}
	links := []iplink.Link{
		{Name: "ens2f0", Flags: []string{"BROADCAST", "MULTICAST"}, State: "DOWN", Line: 1, VFs: vfs},
		{Name: "ens2f1", Flags: []string{"BROADCAST", "MULTICAST", "UP"}, State: "DOWN", Line: 11, VFs: vfs},
		{Name: "ens3", Flags: []string{"BROADCAST", "MULTICAST"}, State: "DOWN", Line: 20},
		{Name: "ens4", Flags: []string{"BROADCAST", "MULTICAST", "UP", "LOWER_UP"}, State: "UP", Line: 21, VFs: vfs},
	}
	fs := CheckIPLink(links, "p.txt")
	if len(fs) != 2 || fs[0].ID != "port.down" || fs[0].Severity != finding.Critical || fs[0].Subject.NetDev != "ens2f0" || fs[1].Subject.NetDev != "ens2f1" {
		t.Fatalf("%+v", fs)
	}
	if !strings.Contains(fs[0].Summary, "administratively down") || !strings.Contains(fs[0].Remedy[0], "ip link set ens2f0 up") || !strings.Contains(fs[1].Summary, "without carrier") {
		t.Errorf("%q %q %q", fs[0].Summary, fs[0].Remedy[0], fs[1].Summary)
	}
}
