package dshbak

import (
	"errors"
	"strings"
	"testing"
)

const sample = `$pdsh -w  clx-orion-[040-048] ibv_devinfo -d mlx5_2 | grep fw_ver |dshbak -c
----------------
clx-orion-[040-047]
----------------
        fw_ver:                         12.21.2010
----------------
clx-orion-048
----------------
        fw_ver:                         12.20.1010

$pdsh -w  clx-orion-[040-048] ibv_devinfo -d mlx5_2 | grep link_layer |dshbak -c
----------------
clx-orion-[040-048]
----------------
                        link_layer:             Ethernet
`

func TestParse(t *testing.T) {
	bs, err := Parse(strings.NewReader(sample), "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 3 {
		t.Fatalf("%d blocks", len(bs))
	}
	if b := bs[0]; b.Hosts != "clx-orion-[040-047]" || b.Count != 8 || b.Line != 3 || len(b.Lines) != 1 || b.Lines[0].Line != 5 || !strings.Contains(b.Command, "grep fw_ver") {
		t.Errorf("block 0: %+v", b)
	}
	if b := bs[1]; b.Count != 1 || b.Command != bs[0].Command {
		t.Errorf("block 1: %+v", b)
	}
	if b := bs[2]; b.Count != 9 || !strings.Contains(b.Command, "link_layer") {
		t.Errorf("block 2: %+v", b)
	}
	if k, v, ok := Field(bs[2].Lines[0].Text); !ok || k != "link_layer" || v != "Ethernet" {
		t.Errorf("field %q %q %v", k, v, ok)
	}
	if _, err := Parse(strings.NewReader("----------------\nnot a host line\n"), "x"); !errors.Is(err, ErrNoBlock) {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("----------------\nh[1-\n----------------\nx\n")
	f.Fuzz(func(t *testing.T, s string) {
		bs, err := Parse(strings.NewReader(s), "fuzz")
		if err == nil && len(bs) == 0 {
			t.Fatal("no blocks, no error")
		}
	})
}
