package iplink

import (
	"errors"
	"strings"
	"testing"
)

// The ip link of an SR-IOV network operator issue: the PF ens2f0 down
// with its VFs.
const pfDown = "4: ens2f0: <BROADCAST,MULTICAST> mtu 9000 qdisc mq state DOWN mode DEFAULT group default qlen 1000\n" +
	"    link/ether 0c:42:a1:2b:74:ae brd ff:ff:ff:ff:ff:ff\n" +
	"    vf 0     link/ether 76:ed:fd:cf:eb:c9 brd ff:ff:ff:ff:ff:ff, spoof checking off, link-state auto, trust off, query_rss off\n" +
	"    vf 1     link/ether 16:07:b5:d3:52:75 brd ff:ff:ff:ff:ff:ff, spoof checking off, link-state enable, trust off, query_rss off\n" +
	"5: ib0@ens2f0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 2044 qdisc mq state UP mode DEFAULT group default qlen 256\n" +
	"    vf 0 MAC 00:00:00:00:00:00, spoof checking off, link-state auto\n"

func TestParse(t *testing.T) {
	links, err := Parse(strings.NewReader(pfDown), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 2 {
		t.Fatalf("%+v", links)
	}
	pf := links[0]
	if pf.Name != "ens2f0" || pf.Up() || pf.State != "DOWN" || pf.MTU != 9000 || pf.Line != 1 || len(pf.VFs) != 2 || pf.VFs[1].LinkState != "enable" || pf.VFs[1].Line != 4 {
		t.Errorf("%+v", pf)
	}
	if ib := links[1]; ib.Name != "ib0@ens2f0" || !ib.Up() || ib.State != "UP" || len(ib.VFs) != 1 || ib.VFs[0].LinkState != "auto" {
		t.Errorf("%+v", ib)
	}
	for _, bad := range []string{"4: ens2f0 <UP> mtu 1500", "x: ens2f0: <UP> mtu 1500", "4: ens2f0: <UP> qdisc"} {
		if _, ok := HeadLine(bad); ok {
			t.Errorf("HeadLine(%q) accepted", bad)
		}
	}
	if _, err := Parse(strings.NewReader("nothing\n"), "p.txt"); !errors.Is(err, ErrNoLink) || !strings.Contains(err.Error(), "p.txt") {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(pfDown)
	f.Add("1: a: <> mtu\n vf x link/\n vf 1 link/ether, link-state \n")
	f.Fuzz(func(t *testing.T, in string) {
		links, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil && !strings.Contains(err.Error(), "fuzz") {
			t.Fatalf("error without its source: %v", err)
		}
		for _, lk := range links {
			if lk.Name == "" || lk.Line < 1 {
				t.Fatalf("%+v", lk)
			}
		}
	})
}
