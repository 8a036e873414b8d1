package daosnet

import (
	"errors"
	"strings"
	"testing"
)

// daos-stack/daos PR 9025's functional test log (dmg_network_scan.py).
const scan = "2022-05-20 19:36:08,390 dmg_network_scan L0071 INFO | SYS INFO\n" +
	"2022-05-20 19:36:08,390 dmg_network_scan L0073 INFO |   NetworkDevice(host=wolf-110, device=ib0, ib_device=None, port=1, provider=ofi+verbs;ofi_rxm, numa=0)\n" +
	"2022-05-20 19:36:08,391 dmg_network_scan L0073 INFO |   NetworkDevice(host=wolf-110, device=ib1, ib_device=None, port=1, provider=ofi+verbs;ofi_rxm, numa=1)\n"

func TestParse(t *testing.T) {
	ds, err := Parse(strings.NewReader(scan), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[0].Line != 2 || ds[0].Host != "wolf-110" || ds[0].Device != "ib0" || ds[0].Provider != "ofi+verbs;ofi_rxm" || ds[1].NUMA != "1" {
		t.Errorf("got %+v", ds)
	}
	if _, ok := DeviceLine("NetworkDevice(host=h, device=ib0"); ok {
		t.Error("cut line read")
	}
	if _, err := Parse(strings.NewReader("SYS INFO\n"), "x"); !errors.Is(err, ErrNoDevice) {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(scan)
	f.Add("NetworkDevice(=, device=x, provider=)")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Parse(strings.NewReader(s), "f")
	})
}
