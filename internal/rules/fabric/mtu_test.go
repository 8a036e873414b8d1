package fabric

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	sourcefabric "github.com/ibdoctor/ibdoctor/internal/source/fabric"
)

// setMTU rewrites the NeighborMTU and MtuCap of the "# Port info: Lid L
// port P" block of an smpquery-portinfo output (ibsim runs every port at
// 2048 and cannot change it).
func setMTU(s string, lid, port, neighbor, mtuCap int) string {
	head := fmt.Sprintf("# Port info: Lid %d port %d\n", lid, port)
	i := strings.Index(s, head)
	if i < 0 {
		panic("no block " + head)
	}
	end := len(s)
	if j := strings.Index(s[i+len(head):], "# Port info: "); j >= 0 {
		end = i + len(head) + j
	}
	b := s[i:end]
	b = regexp.MustCompile(`NeighborMTU:\.+\d+`).ReplaceAllString(b, fmt.Sprintf("NeighborMTU:.....................%d", neighbor))
	b = regexp.MustCompile(`MtuCap:\.+\d+`).ReplaceAllString(b, fmt.Sprintf("MtuCap:..........................%d", mtuCap))
	return s[:i] + b + s[end:]
}

// The capture's CA links: h1 (LID 2) on leaf1[1], h2 (5) on leaf1[2],
// h3 (6) on leaf2[1], h4 (7) on leaf2[2]; leaf1 is LID 1, leaf2 LID 3.
var mtuEnds = [][2]int{{2, 1}, {5, 1}, {6, 1}, {7, 1}, {1, 1}, {1, 2}, {3, 1}, {3, 2}}

func all4096(s string) string {
	for _, e := range mtuEnds {
		s = setMTU(s, e[0], e[1], 4096, 4096)
	}
	return s
}

func TestCheckMTU(t *testing.T) {
	tests := []struct {
		name string
		edit func(string) string
		want []string // summaries
		ev   string   // in the first finding's evidence
	}{
		{name: "captured: every link at 2048"},
		{name: "every link at 4096", edit: all4096},
		{name: "h3 at 2048, both ends support 4096", edit: func(s string) string { return setMTU(setMTU(all4096(s), 6, 1, 2048, 4096), 3, 1, 2048, 4096) },
			want: []string{"h3[1] runs an IB MTU of 2048 (its host's active_mtu) while 3 of the fabric's 4 CA links run 4096: both ends support 4096 or more (MtuCap 4096 and 4096): the MTU was set lower; reset the link so the subnet manager sets it again"},
			ev:   "leaf2[1]: NeighborMTU 2048, MtuCap 4096"},
		{name: "h3's switch port supports 2048", edit: func(s string) string { return setMTU(setMTU(all4096(s), 6, 1, 2048, 4096), 3, 1, 2048, 2048) },
			want: []string{"h3[1] runs an IB MTU of 2048 (its host's active_mtu) while 3 of the fabric's 4 CA links run 4096: the switch port leaf2[1] supports only 2048 (MtuCap)"},
			ev:   "CA links by MTU: 4096 on 3, 2048 on 1"},
		{name: "h1's HCA supports 2048", edit: func(s string) string { return setMTU(all4096(s), 2, 1, 2048, 2048) },
			want: []string{"h1[1] runs an IB MTU of 2048 (its host's active_mtu) while 3 of the fabric's 4 CA links run 4096: the HCA port supports only 2048 (MtuCap)"},
			ev:   "h1[1]: NeighborMTU 2048, MtuCap 2048"},
		{name: "half the hosts at 2048: the larger MTU is the fabric's", edit: func(s string) string { return setMTU(setMTU(all4096(s), 2, 1, 2048, 4096), 5, 1, 2048, 4096) },
			want: []string{
				"h1[1] runs an IB MTU of 2048 (its host's active_mtu) while 2 of the fabric's 4 CA links run 4096: both ends support 4096 or more (MtuCap 4096 and 4096): the MTU was set lower; reset the link so the subnet manager sets it again",
				"h2[1] runs an IB MTU of 2048 (its host's active_mtu) while 2 of the fabric's 4 CA links run 4096: both ends support 4096 or more (MtuCap 4096 and 4096): the MTU was set lower; reset the link so the subnet manager sets it again",
			}},
		{name: "a host above the fabric's MTU is not judged", edit: func(s string) string { return setMTU(s, 7, 1, 4096, 4096) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := sourcefabric.ReadFrom(filepath.Join("testdata", "mtu-ibsim"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.edit != nil {
				o := raw.Get("smpquery-portinfo")
				o.Stdout = []byte(tt.edit(string(o.Stdout)))
			}
			f := Build(raw)
			if len(f.PortInfos) != 8 {
				t.Fatalf("%d portinfo answers, want 8; gaps %+v", len(f.PortInfos), f.Gaps)
			}
			var got []string
			for _, x := range Check(f, Options{}) {
				if x.ID == "fabric.mtu_below_fabric" {
					got = append(got, x.Summary)
					if x.Subject.Peer == nil || x.Subject.LID == 0 || x.Subject.Peer.Port == 0 {
						t.Errorf("subject %+v", x.Subject)
					}
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %q\nwant %q", got, tt.want)
			}
			if tt.ev != "" {
				for _, x := range Check(f, Options{}) {
					if x.ID != "fabric.mtu_below_fabric" {
						continue
					}
					if !slices.ContainsFunc(x.Evidence, func(e finding.Evidence) bool { return strings.Contains(e.Value, tt.ev) }) {
						t.Errorf("evidence %+v lacks %q", x.Evidence, tt.ev)
					}
					break
				}
			}
		})
	}
}

func TestMTUGap(t *testing.T) {
	raw, err := sourcefabric.ReadFrom(filepath.Join("testdata", "mtu-ibsim"))
	if err != nil {
		t.Fatal(err)
	}
	o := raw.Get("smpquery-portinfo")
	o.Stdout = []byte("# Port info: Lid 2 port 1\nNeighborMTU:.....................3000\n")
	o.Err = "1 of 8 smpquery runs failed"
	f := Build(raw)
	var reasons []string
	for _, g := range f.Gaps {
		if g.Source == "smpquery-portinfo" {
			reasons = append(reasons, g.Reason)
		}
	}
	if len(reasons) != 2 || !strings.Contains(reasons[1], "smpquery-portinfo.txt line 2") || f.PortInfos != nil {
		t.Errorf("gaps %q, portinfo %+v", reasons, f.PortInfos)
	}
}
