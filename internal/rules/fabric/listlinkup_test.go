package fabric

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/listlinkup"
)

// TestCheckListLinkup: present connectors with their ports up, empty
// cages and internal links up are healthy; a present connector's port
// down and an internal link down are fabric.link_down warnings.
func TestCheckListLinkup(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"healthy", "Connector  0A Present <-> I4-A Ports 22 up 21 up 20 up\nConnector  1A Not present\nLink I4-A 01 <-> I4-E 09 up\n", ""},
		{"port down", "Connector  0A Present <-> Switch Port 20 up (Enabled)\nConnector  1A Present <-> Switch Port 22 down (Enabled)\n", "fabric.link_down/warning"},
		{"internal link down", "Link I4-A 01 <-> I4-E 09 down\n", "fabric.link_down/warning"},
	} {
		o, err := listlinkup.Parse(strings.NewReader(tc.text), "p.txt")
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, f := range CheckListLinkup(o, "p.txt") {
			got += f.ID + "/" + string(f.Severity)
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
