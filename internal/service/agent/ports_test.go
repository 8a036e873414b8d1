package agent

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	simnode "github.com/ibdoctor/ibdoctor/internal/sim/node"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// TestPortsIdentity checks the identity fields of /api/v1/ports against
// the simulated node's own model: width and speed of the trained link
// (2X after a width fault), no rate on a down port, the port GUID only on
// InfiniBand, node GUID and PCI address on every port.
func TestPortsIdentity(t *testing.T) {
	n, err := simnode.Build(simnode.Options{Profile: "h100-ndr", Faults: simnode.MustParseFaults("width:mlx5_2/1=2", "down:mlx5_3/1", "speed:mlx5_4/1=HDR", "pcie-width:mlx5_4=8")})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := n.Write(dir); err != nil {
		t.Fatal(err)
	}
	root, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	a, err := New(Options{Read: RootSource(root, func() time.Time { return t0 }), Interval: 5 * time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	a.Handler(HandlerOptions{}).ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/ports", nil))
	var doc Ports
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || rec.Code != 200 {
		t.Fatalf("ports %d: %v", rec.Code, err)
	}
	got := map[string]PortSummary{}
	for _, p := range doc.Ports {
		got[p.Device+"/"+strconv.Itoa(p.Port.Port)] = p
	}
	guid := func(dev string) string { return ib.GUIDString(n.Device(dev).NodeGUID) }
	pci := func(dev string) string { return string(n.Device(dev).PCI.Addr) }
	for _, tc := range []struct {
		port                                  string
		phys, rate, width, speed, pguid, link string
	}{
		{"mlx5_0/1", "LinkUp", "400 Gb/sec (4X NDR)", "4X", "NDR", guid("mlx5_0"), "Gen5 x16"},
		{"mlx5_2/1", "LinkUp", "200 Gb/sec (2X NDR)", "2X", "NDR", guid("mlx5_2"), "Gen5 x16"},
		{"mlx5_4/1", "LinkUp", "200 Gb/sec (4X HDR)", "4X", "HDR", guid("mlx5_4"), "Gen5 x8 of Gen5 x16"},
		// Down: the rate file still reads, but nothing trained.
		{"mlx5_3/1", "Sleep", "", "", "", guid("mlx5_3"), "Gen5 x16"},
		// RoCE: a GID derived from the MAC, no port GUID.
		{"mlx5_8/1", "LinkUp", "100 Gb/sec (4X EDR)", "4X", "EDR", "", "Gen4 x16"},
	} {
		t.Run(tc.port, func(t *testing.T) {
			p, ok := got[tc.port]
			if !ok {
				t.Fatalf("no port %s in %d ports", tc.port, len(doc.Ports))
			}
			dev := p.Device
			if p.PhysState != tc.phys || p.Rate != tc.rate || p.Width != tc.width || p.Speed != tc.speed || p.PortGUID != tc.pguid {
				t.Errorf("got phys %q rate %q width %q speed %q port_guid %q, want %q %q %q %q %q", p.PhysState, p.Rate, p.Width, p.Speed, p.PortGUID, tc.phys, tc.rate, tc.width, tc.speed, tc.pguid)
			}
			if p.NodeGUID != guid(dev) || len(p.NodeGUID) != 18 || p.PCI != pci(dev) || p.PCI == "" || p.PCIeLink != tc.link {
				t.Errorf("node_guid %q pci %q pcie_link %q, want %q %q %q", p.NodeGUID, p.PCI, p.PCIeLink, guid(dev), pci(dev), tc.link)
			}
		})
	}
}

// TestPortsWithoutReadings: ?readings=0 leaves the raw readings out of
// every port and keeps the rest (identity, the rates list); without it, or with
// another value, they are there; the sample keeps them either way.
func TestPortsWithoutReadings(t *testing.T) {
	n, err := simnode.Build(simnode.Options{Profile: "h100-ndr"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := n.Write(dir); err != nil {
		t.Fatal(err)
	}
	root, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	a, err := New(Options{Read: RootSource(root, func() time.Time { return t0 }), Interval: 5 * time.Second, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Sample(context.Background()); err != nil {
		t.Fatal(err)
	}
	get := func(path string) (Ports, int) {
		rec := httptest.NewRecorder()
		a.Handler(HandlerOptions{}).ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		var doc Ports
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || rec.Code != 200 || len(doc.Ports) != 10 {
			t.Fatalf("%s: %d, %d ports: %v", path, rec.Code, len(doc.Ports), err)
		}
		return doc, rec.Body.Len()
	}
	for _, tc := range []struct {
		path     string
		readings bool
	}{
		{"/api/v1/ports", true},
		{"/api/v1/ports?readings=1", true},
		{"/api/v1/ports?readings=0", false},
		{"/api/v1/ports?readings=0", false}, // twice: the sample kept its readings
		{"/api/v1/ports", true},
	} {
		doc, size := get(tc.path)
		for _, p := range doc.Ports {
			if (len(p.Readings) > 0) != tc.readings || p.Readings == nil || p.NodeGUID == "" || p.Rates == nil {
				t.Errorf("%s: %s/%d has %d readings (want some: %v), node GUID %q, %d rates (%d bytes)", tc.path, p.Device, p.Port.Port, len(p.Readings), tc.readings, p.NodeGUID, len(p.Rates), size)
				break
			}
		}
	}
}
