package cellcli

import (
	"errors"
	"strings"
	"testing"
)

// The example of the Oracle Exadata System Software User's Guide (LIST
// IBPORT and LIST IBPORT DETAIL), cut after the first port's detail.
const guide = "CellCLI> LIST IBPORT\n" +
	"         HCA-1:1         Active\n" +
	"         HCA-1:2         Active\n\n" +
	"CellCLI> LIST IBPORT DETAIL\n" +
	"         name:                   HCA-1:1\n" +
	"         dataRate:               \"40 Gbps\"\n" +
	"         linkDowned:             0\n" +
	"         physLinkState:          LinkUp\n" +
	"         rcvData:                84653709\n" +
	"         status:                 Active\n" +
	"         symbolErrs:             12\n" +
	"         xmtDiscards:            0\n"

func TestParse(t *testing.T) {
	ps, err := Parse(strings.NewReader(guide), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Name != "HCA-1:1" || ps[0].Status != "Active" || ps[0].StatusLine != 11 || ps[1].Name != "HCA-1:2" || ps[1].StatusLine != 3 {
		t.Fatalf("%+v", ps)
	}
	var cs []string
	for _, c := range ps[0].Counters {
		cs = append(cs, c.Name)
	}
	if strings.Join(cs, " ") != "linkDowned symbolErrs xmtDiscards" || ps[0].Counters[1].Value != 12 || ps[0].Counters[1].Line != 12 {
		t.Errorf("%+v", ps[0].Counters)
	}
	if !CommandLine("CellCLI> list ibport detail") || CommandLine("LIST IBPORT") {
		t.Error("CommandLine")
	}
	if _, err := Parse(strings.NewReader("CellCLI> LIST IBPORT\n"), "p.txt"); !errors.Is(err, ErrNoPort) || !strings.Contains(err.Error(), "p.txt") {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(guide)
	f.Add("HCA-1: x\nname: HCA-:\nstatus:\nsymbolErrs: -1\n")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil && !strings.Contains(err.Error(), "fuzz") {
			t.Fatalf("error without its source: %v", err)
		}
		for _, p := range ps {
			if p.Name == "" {
				t.Fatalf("%+v", p)
			}
		}
	})
}
