package metrics

import (
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

func TestPortGUID(t *testing.T) {
	gid := func(s string) snapshot.GIDEntry {
		g, err := ib.ParseGID(s)
		if err != nil {
			t.Fatal(err)
		}
		return snapshot.GIDEntry{GID: g}
	}
	at := func(e snapshot.GIDEntry, i int) snapshot.GIDEntry { e.Index = i; return e }
	for _, tc := range []struct {
		name string
		p    snapshot.Port
		want string
	}{
		{"ib gid 0", snapshot.Port{LinkLayer: ib.LinkLayerInfiniBand, GIDs: []snapshot.GIDEntry{gid("fe80:0000:0000:0000:a088:c203:0046:1a2c")}}, "0xa088c20300461a2c"},
		{"ib gid 0 after others", snapshot.Port{LinkLayer: ib.LinkLayerInfiniBand, GIDs: []snapshot.GIDEntry{at(gid("fe80::1"), 1), gid("fe80::0c42:a103:a1:b2c4")}}, "0x0c42a10300a1b2c4"},
		{"ib without gid 0", snapshot.Port{LinkLayer: ib.LinkLayerInfiniBand, GIDs: []snapshot.GIDEntry{at(gid("fe80::1"), 1)}}, ""},
		{"ethernet", snapshot.Port{LinkLayer: ib.LinkLayerEthernet, GIDs: []snapshot.GIDEntry{gid("fe80::ba59:9fff:fe00:1")}}, ""},
	} {
		if got := PortGUID(&tc.p); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
