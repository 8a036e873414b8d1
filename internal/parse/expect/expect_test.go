package expect

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

const sample = `# reviewed by ops
version: 1
host: gpu017
devices:
  - name: mlx5_*
    count: 10
    hca_type: MT4129
    fw_ver: 28.39.2048
    pcie: {speed: "32.0 GT/s PCIe", width: 16}
    ports:
      - port: 1
        link_layer: InfiniBand
        state: ACTIVE
        phys_state: LinkUp
        rate: 400 Gb/sec (4X NDR)
  - name: mlx5_8
    fw_ver: 22.39.1002
    pcie: {speed: Gen4, width: x16}
    ports:
      - port: 1
        link_layer: Ethernet
        rate: "200 Gb/sec (4X HDR)"
      - port: 2
        ignore: true
`

func TestParseAndMerge(t *testing.T) {
	e, err := Parse(strings.NewReader(sample), "expect.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if e.Host != "gpu017" || len(e.Devices) != 2 || *e.Devices[0].Count != 10 || e.Devices[0].Line != 5 {
		t.Fatalf("parsed %+v", e)
	}
	d, ok := e.For("mlx5_8")
	if !ok {
		t.Fatal("mlx5_8 not matched")
	}
	if *d.FWVersion != "22.39.1002" || *d.HCAType != "MT4129" || *d.PCIe.Speed != pcie.Gen4 || *d.PCIe.Width != 16 {
		t.Errorf("override merge: fw %s type %s pcie %v x%d", *d.FWVersion, *d.HCAType, *d.PCIe.Speed, *d.PCIe.Width)
	}
	p1 := d.Ports[1]
	if *p1.LinkLayer != ib.LinkLayerEthernet || *p1.State != ib.StateActive || p1.Rate.Speed != ib.SpeedHDR || p1.Line != 20 {
		t.Errorf("port 1 merge: %+v", p1)
	}
	if !d.Ports[2].Ignore {
		t.Error("port 2 ignore")
	}
	d0, _ := e.For("mlx5_0")
	if *d0.FWVersion != "28.39.2048" || *d0.PCIe.Speed != pcie.Gen5 {
		t.Errorf("mlx5_0: %+v", d0)
	}
	if _, ok := e.For("ib0"); ok {
		t.Error("ib0 must not match")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		contains string
	}{
		{"empty", "", 0, "empty file"},
		{"empty driver_version", "version: 1\ndriver_version: \"\"\ndevices:\n  - name: mlx5_0\n", 2, "driver_version is empty"},
		{"driver_version as a list", "version: 1\ndriver_version: [a]\ndevices:\n  - name: mlx5_0\n", 2, "driver_version must be a single value"},
		{"syntax", "version: 1\ndevices:\n  - name: [x\n", 2, "did not find expected"},
		{"no version", "devices:\n  - name: mlx5_0\n", 1, `missing "version: 1"`},
		{"bad version", "version: 2\n", 1, "version must be an integer from 1 to 1"},
		{"unknown top field", "version: 1\nhots: x\n", 2, `unknown field "hots"`},
		{"no devices", "version: 1\n", 1, "at least one device"},
		{"unknown device field", "version: 1\ndevices:\n  - name: mlx5_0\n    firmware: 1\n", 4, `unknown field "firmware" in a device entry`},
		{"bad rate", "version: 1\ndevices:\n  - name: mlx5_0\n    ports:\n      - port: 1\n        rate: 400\n", 6, "rate:"},
		{"bad state", "version: 1\ndevices:\n  - name: mlx5_0\n    ports:\n      - port: 1\n        state: UP\n", 6, "state:"},
		{"bad width", "version: 1\ndevices:\n  - name: mlx5_0\n    pcie: {width: 3}\n", 4, "pcie width"},
		{"bad speed", "version: 1\ndevices:\n  - name: mlx5_0\n    pcie: {speed: Gen9}\n", 4, "pcie speed"},
		{"duplicate port", "version: 1\ndevices:\n  - name: mlx5_0\n    ports:\n      - port: 1\n      - port: 1\n", 6, "port 1 listed twice (first at line 5)"},
		{"port missing number", "version: 1\ndevices:\n  - name: mlx5_0\n    ports:\n      - state: ACTIVE\n", 5, `without "port: N"`},
		{"count without glob", "version: 1\ndevices:\n  - name: mlx5_0\n    count: 2\n", 3, "count only applies to a glob"},
		{"bad glob", "version: 1\ndevices:\n  - name: \"mlx5_[\"\n", 3, "bad glob"},
		{"devices not list", "version: 1\ndevices: mlx5_0\n", 2, "devices must be a list"},
		{"repeated field", "version: 1\nversion: 1\n", 2, `field "version" repeated`},
		{"no name", "version: 1\ndevices:\n  - fw_ver: x\n", 3, "without a name"},
		{"bool", "version: 1\ndevices:\n  - name: x\n    optional: maybe\n", 4, "true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in), "expect.yaml")
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a ParseError", err)
			}
			if pe.Source != "expect.yaml" || pe.Line != tt.line || !strings.Contains(err.Error(), tt.contains) {
				t.Fatalf("err = %q (line %d), want line %d containing %q", err, pe.Line, tt.line, tt.contains)
			}
			if tt.line > 0 && !strings.HasPrefix(err.Error(), fmt.Sprintf("expect.yaml line %d: ", tt.line)) {
				t.Fatalf("error does not start with file:line: %q", err)
			}
		})
	}
}

func p[T any](v T) *T { return &v }

func TestBaselineRoundTrip(t *testing.T) {
	s := &snapshot.Snapshot{Host: "gpu: 017", DriverVersion: "24.10-1.1.4", DriverSrcVersion: "6A2D5B6E7C1F0A3B4C5D6E7", PCI: []snapshot.PCIDevice{
		{Address: "0000:3b:00.0", CurrentLinkSpeed: p(pcie.Gen5), MaxLinkSpeed: p(pcie.Gen5), CurrentLinkWidth: p(8), MaxLinkWidth: p(16)},
	}, Devices: []snapshot.Device{
		{Name: "mlx5_0", HCAType: "MT4129", FWVersion: "28.39.2048", PCI: "0000:3b:00.0", Ports: []snapshot.Port{
			{Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: p(ib.StateActive), PhysState: p(ib.PhysLinkUp), Rate: p(ib.NewRate(4, ib.SpeedNDR))},
			{Number: 2, LinkLayer: ib.LinkLayerEthernet, State: p(ib.StateDown), PhysState: p(ib.PhysDisabled), Rate: p(ib.NewRate(4, ib.SpeedQDR))},
		}},
	}}
	e, notes := FromSnapshot(s)
	if len(notes) != 2 || !strings.Contains(notes[0], "PCIe link recorded below its maximum") || !strings.Contains(notes[1], "port 2 is DOWN") {
		t.Fatalf("notes: %q", notes)
	}
	var buf bytes.Buffer
	if err := Write(&buf, e, time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), "ibdoctor test"); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(&buf, "baseline.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if back.DriverVersion == nil || *back.DriverVersion != "24.10-1.1.4" || back.DriverLine == 0 {
		t.Errorf("driver_version %v (line %d), want 24.10-1.1.4 with its line", back.DriverVersion, back.DriverLine)
	}
	if back.Host != "gpu: 017" {
		t.Errorf("host %q", back.Host)
	}
	d, _ := back.For("mlx5_0")
	if *d.FWVersion != "28.39.2048" || *d.PCIe.Width != 8 || *d.PCIe.Speed != pcie.Gen5 {
		t.Errorf("device: %+v", d)
	}
	if r := d.Ports[1].Rate; r == nil || *r != ib.NewRate(4, ib.SpeedNDR) {
		t.Errorf("port 1 rate %v", r)
	}
	if d.Ports[2].Rate != nil || *d.Ports[2].State != ib.StateDown {
		t.Errorf("port 2: a down port's rate is meaningless and must not be recorded: %+v", d.Ports[2])
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("version: 1\ndevices:\n  - name: mlx5_0\n")
	f.Add("version: 1\ndevices: [{name: '*', count: 3, ports: [{port: 1, rate: 2.5 Gb/sec (1X)}]}]\n")
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(strings.NewReader(s), "f.yaml")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a ParseError: %v", err)
			}
			return
		}
		// An accepted file survives a write/parse round trip.
		var buf bytes.Buffer
		if err := Write(&buf, e, time.Time{}, "fuzz"); err != nil {
			t.Fatal(err)
		}
		back, err := Parse(&buf, "w.yaml")
		if err != nil {
			t.Fatalf("rewritten file does not parse: %v\n%s", err, buf.String())
		}
		if len(back.Devices) != len(e.Devices) {
			t.Fatalf("round trip lost devices")
		}
	})
}

// JSON output reads back through Parse (JSON is YAML) to the same
// expectation as the YAML output.
func TestWriteJSONRoundTrip(t *testing.T) {
	e, err := Parse(strings.NewReader(sample), "expect.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var js, ys bytes.Buffer
	if err := WriteJSON(&js, e); err != nil {
		t.Fatal(err)
	}
	if err := Write(&ys, e, time.Time{}, "test"); err != nil {
		t.Fatal(err)
	}
	jsText := js.String()
	fromJSON, err := Parse(&js, "expect.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, js.String())
	}
	fromYAML, err := Parse(&ys, "expect.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range []string{"mlx5_0", "mlx5_8"} {
		a, _ := fromJSON.For(dev)
		b, _ := fromYAML.For(dev)
		a.Lines, b.Lines = nil, nil
		for _, p := range a.Ports {
			p.Line = 0
		}
		for _, p := range b.Ports {
			p.Line = 0
		}
		if *a.FWVersion != *b.FWVersion || *a.PCIe.Speed != *b.PCIe.Speed || *a.PCIe.Width != *b.PCIe.Width ||
			len(a.Ports) != len(b.Ports) || *a.Ports[1].Rate != *b.Ports[1].Rate || *a.Ports[1].State != *b.Ports[1].State {
			t.Errorf("%s: JSON %+v, YAML %+v", dev, a, b)
		}
	}
	if !strings.Contains(jsText, `"rate": "400 Gb/sec (4X NDR)"`) || !strings.Contains(jsText, `"state": "ACTIVE"`) {
		t.Errorf("JSON does not carry sysfs-form values:\n%s", jsText)
	}
}
