package lnetctl

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// `lnetctl net show -v` of a sosreport change (sosreport/sos#3749) and
// of a Lustre 2.15 o2ib setup over a RoCE bond, with the lo network.
const netShow = `net:
    - net type: lo
      local NI(s):
        - nid: 0@lo
          status: up
    - net type: tcp
      local NI(s):
        - nid: 10.73.20.11@tcp
          status: up
          interfaces:
              0: bond0
          statistics:
              send_count: 2682857
    - net type: o2ib
      local NI(s):
        - nid: 10.201.0.161@o2ib
          status: down
          interfaces:
              0: ib0
              1: ib1
`

func TestParse(t *testing.T) {
	nis, err := Parse(strings.NewReader(netShow), "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lo 0@lo up [] 4", "tcp 10.73.20.11@tcp up [bond0] 8", "o2ib 10.201.0.161@o2ib down [ib0 ib1] 16"}
	if len(nis) != len(want) {
		t.Fatalf("%d NIs, want %d: %+v", len(nis), len(want), nis)
	}
	for i, ni := range nis {
		got := strings.Join([]string{ni.Net, ni.NID, ni.Status, "[" + strings.Join(ni.Interfaces, " ") + "]", strconv.Itoa(ni.Line)}, " ")
		if got != want[i] {
			t.Errorf("NI %d = %q, want %q", i, got, want[i])
		}
	}
	if _, err := Parse(strings.NewReader("net:\n"), "x"); !errors.Is(err, ErrNoNI) {
		t.Errorf("no NI: err %v", err)
	}
	if _, err := Parse(strings.NewReader("    - net type: tcp\n        - nid:\n"), "x"); err == nil || !strings.Contains(err.Error(), "2") {
		t.Errorf("empty NID: err %v, want one naming line 2", err)
	}
	for l, want := range map[string]bool{"    - net type: o2ib": true, "- net type: tcp": true, "- net type:": false, "net type: tcp": false} {
		if Header(l) != want {
			t.Errorf("Header(%q) = %v", l, !want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(netShow)
	f.Add("- nid: x\n interfaces:\n 0:\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Parse(strings.NewReader(s), "f")
	})
}
