package listlinkup

import (
	"errors"
	"strings"
	"testing"
)

// The listlinkup example of the Sun Datacenter InfiniBand Switch 72
// Command Reference (its author's "." for elided lines kept).
const dcs72 = "# listlinkup\n" +
	"Connector  0A Present <-> I4-A Ports 22 up 21 up 20 up\n" +
	"Connector  1A Not present\n" +
	".\n" +
	"Connector 11B Not present\n" +
	"Link I4-A 01 <-> I4-E 09 up\n" +
	"Link I4-D 18 <-> I4-E 16 up\n" +
	"#\n"

// The Switch 36 / gateway layout of the Exalogic guide's example.
const dcs36 = "# listlinkup\n" +
	"Connector  0A Present <-> Switch Port 20 up (Enabled)\n" +
	"Connector  1A Present <-> Switch Port 22 down (Enabled)\n" +
	"Connector 15A Not present\n" +
	"Connector 0A-ETH Present\n" +
	" Bridge-0-1 Port 0A-ETH-1 up (Enabled)\n" +
	" Bridge-0-1 Port 0A-ETH-2 down (Disabled)\n"

func TestParse(t *testing.T) {
	o, err := Parse(strings.NewReader(dcs72), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Connectors) != 3 || len(o.Links) != 2 {
		t.Fatalf("%+v", o)
	}
	c := o.Connectors[0]
	if c.Name != "0A" || !c.Present || c.Line != 2 || len(c.Ports) != 3 || c.Ports[0].Name != "I4-A Port 22" || !c.Ports[2].Up {
		t.Errorf("%+v", c)
	}
	if c := o.Connectors[1]; c.Name != "1A" || c.Present || len(c.Ports) != 0 {
		t.Errorf("%+v", c)
	}
	if l := o.Links[1]; l.A != "I4-D 18" || l.B != "I4-E 16" || !l.Up || l.Line != 7 {
		t.Errorf("%+v", l)
	}
	o, err = Parse(strings.NewReader(dcs36), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Connectors) != 4 {
		t.Fatalf("%+v", o)
	}
	if p := o.Connectors[1].Ports[0]; p.Name != "Switch Port 22" || p.Up || p.Admin != "Enabled" || p.Line != 3 {
		t.Errorf("%+v", p)
	}
	if e := o.Connectors[3]; e.Name != "0A-ETH" || len(e.Ports) != 2 || e.Ports[1].Name != "Bridge-0-1 Port 0A-ETH-2" || e.Ports[1].Admin != "Disabled" || e.Ports[1].Line != 7 {
		t.Errorf("%+v", e)
	}
	if !IsLine("Connector  3A Not present") || !IsLine("Link I4-A 03 <-> I4-F 07 up") || IsLine("Connector failed") || IsLine("Link up") {
		t.Error("IsLine")
	}
	if _, err := Parse(strings.NewReader("# listlinkup\n"), "p.txt"); !errors.Is(err, ErrNoLine) || !strings.Contains(err.Error(), "p.txt") {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(dcs72)
	f.Add(dcs36)
	f.Add("Connector 0A Present <-> X Ports 1\nConnector -A Present\nBridge- Port x up (\nLink a b <-> c d sideways\n")
	f.Fuzz(func(t *testing.T, in string) {
		o, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil && !strings.Contains(err.Error(), "fuzz") {
			t.Fatalf("error without its source: %v", err)
		}
		if err == nil && len(o.Connectors)+len(o.Links) == 0 {
			t.Fatal("no line and no error")
		}
	})
}
