package fiinfo

import (
	"errors"
	"strings"
	"testing"
)

// fi_info -p efa on an EC2 instance (ofiwg/libfabric#5689, analyze
// testdata realworld-fresh59).
const sample = "provider: efa\n" +
	"    fabric: EFA-fe80::39:beff:fe6e:c23\n" +
	"    domain: efa_0-rdm\n" +
	"    version: 2.0\n" +
	"    type: FI_EP_RDM\n" +
	"    protocol: FI_PROTO_EFA\n" +
	"provider: efa;ofi_rxd\n" +
	"    fabric: EFA-fe80::39:beff:fe6e:c23\n" +
	"    domain: efa_0-dgrm\n" +
	"    version: 1.0\n" +
	"    type: FI_EP_RDM\n" +
	"    protocol: FI_PROTO_RXD\n"

func TestParse(t *testing.T) {
	in, err := Parse(strings.NewReader(sample), "s")
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Provider: "efa", Fabric: "EFA-fe80::39:beff:fe6e:c23", Domain: "efa_0-rdm", Version: "2.0", Type: "FI_EP_RDM", Protocol: "FI_PROTO_EFA", Line: 1},
		{Provider: "efa;ofi_rxd", Fabric: "EFA-fe80::39:beff:fe6e:c23", Domain: "efa_0-dgrm", Version: "1.0", Type: "FI_EP_RDM", Protocol: "FI_PROTO_RXD", Line: 7},
	}
	if len(in.Entries) != len(want) {
		t.Fatalf("got %+v", in.Entries)
	}
	for i := range want {
		if in.Entries[i] != want[i] {
			t.Errorf("entry %d: got %+v, want %+v", i, in.Entries[i], want[i])
		}
	}
	if _, err := Parse(strings.NewReader("fi_getinfo: -61 (No data available)\n"), "s"); !errors.Is(err, ErrNoData) {
		t.Errorf("no entry: %v", err)
	}
	if !Header("provider: efa", "fabric: EFA-fe80::1") || Header("provider: efa", "domain: x") || Header("provider: ", "fabric: x") {
		t.Error("Header")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("provider: \n fabric: \nprovider: a b\n")
	f.Fuzz(func(t *testing.T, s string) {
		in, err := Parse(strings.NewReader(s), "f")
		if err == nil && len(in.Entries) == 0 {
			t.Fatal("no error and nothing read")
		}
		if err == nil {
			for _, e := range in.Entries {
				if e.Provider == "" || e.Line < 1 {
					t.Fatalf("entry %+v", e)
				}
			}
		}
	})
}
