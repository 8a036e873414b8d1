package hub

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
)

// oldPorts makes an agent answer /api/v1/ports as agents did before the
// port identity fields: the same document without them.
func oldPorts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/ports" {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		var doc map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		ports, _ := doc["ports"].([]any)
		for _, p := range ports {
			for _, k := range []string{"phys_state", "rate", "width", "speed", "port_guid", "node_guid", "pci"} {
				delete(p.(map[string]any), k)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	})
}

// TestNodePagePortIdentity polls a real agent with a port trained at 2X
// and one that answers as an older agent: the new agent's node page rows
// carry physical state, width, speed, PCI address and GUID as the agent's
// own snapshot has them; the old agent's rows leave them empty and its
// poll still succeeds.
func TestNodePagePortIdentity(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: t0}
	cur := newSimAgent(t, "gpu01", "width:mlx5_2/1=2")
	old := newSimAgent(t, "gpu02")
	old.stop()
	old.wrap = oldPorts
	old.start("127.0.0.1:0")
	h := newHub(t, c, Options{}, cur, old)
	if err := h.PollOnce(ctx); err != nil {
		t.Fatal(err)
	}
	rows := func(host string) map[string]web.PortRow {
		n, err := h.Data().Node(ctx, host)
		if err != nil {
			t.Fatal(err)
		}
		if n.Error != "" {
			t.Errorf("%s: poll error %q", host, n.Error)
		}
		out := map[string]web.PortRow{}
		for _, p := range n.Ports {
			out[p.Device+"/"+strconv.Itoa(p.Port)] = p
		}
		return out
	}
	snap := cur.a.View().Snapshot
	guid := func(dev string) string {
		g, err := ib.NormalizeGUID(snap.Device(dev).NodeGUID)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	pci := func(dev string) string { return string(snap.Device(dev).PCI) }
	got := rows("gpu01")
	for _, tc := range []struct {
		port, dev, phys, rate, width, link string
	}{
		{"mlx5_0/1", "mlx5_0", "LinkUp", "400 Gb/s NDR", "4X", " Gen5 x16"},
		{"mlx5_2/1", "mlx5_2", "LinkUp", "200 Gb/s NDR", "2X", " Gen5 x16"},
		// RoCE: no port GUID, the node GUID names it.
		{"mlx5_8/1", "mlx5_8", "LinkUp", "100 Gb/s EDR", "4X", " Gen4 x16"},
	} {
		r, ok := got[tc.port]
		if !ok {
			t.Errorf("gpu01: no row for %s", tc.port)
			continue
		}
		if r.PhysState != tc.phys || r.Rate != tc.rate || r.Width != tc.width || r.GUID != guid(tc.dev) || r.PCI != pci(tc.dev)+tc.link || pci(tc.dev) == "" {
			t.Errorf("gpu01 %s: phys %q rate %q width %q GUID %q PCI %q, want %q %q %q %q %q", tc.port, r.PhysState, r.Rate, r.Width, r.GUID, r.PCI, tc.phys, tc.rate, tc.width, guid(tc.dev), pci(tc.dev)+tc.link)
		}
	}
	oldRows := rows("gpu02")
	if len(oldRows) == 0 {
		t.Fatal("gpu02 (old agent): no port rows")
	}
	for k, r := range oldRows {
		if r.PhysState != "" || r.Width != "" || r.GUID != "" || r.State == "" || r.Rate == "" && r.State == "ACTIVE" {
			t.Errorf("gpu02 (old agent) %s: %+v, want state and rate only", k, r)
		}
	}
}
