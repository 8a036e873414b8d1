package hub

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/output/web"
	simfabric "github.com/ibdoctor/ibdoctor/internal/sim/fabric"
	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

// TestFabricLiveIBSim runs `hub --fabric-live --ibsim` against the real
// stack — ibsim, OpenSM, infiniband-diags through libumad2sim — on a
// leaf-spine fabric with one uplink trained at 1X, and reads the judged
// fabric back from the hub's API.
func TestFabricLiveIBSim(t *testing.T) {
	fault, err := simfabric.ParseFault("narrow:leaf2[4]")
	if err != nil {
		t.Fatal(err)
	}
	fab, err := simfabric.Build(simfabric.Spec{Spines: 2, Leaves: 2, HostsPerLeaf: 2, Faults: []simfabric.Fault{fault}})
	if err != nil {
		t.Fatal(err)
	}
	g := fab.Generate()
	s := testenv.StartIBSim(t, g.Net, g.IgnoreDuplicates)
	s.StartSM("updn")

	dir := t.TempDir()
	f, errOut := factory(nil)
	ready := make(chan string, 1)
	o := &Options{F: f, DB: filepath.Join(dir, "hub.db"), Listen: "127.0.0.1:0", Interval: time.Second, Timeout: 2 * time.Second,
		MaxInFlight: 4, Retention: "1h", FabricLive: true, FabricEvery: time.Minute, IBSim: s.Sock, Ready: func(addr string) { ready <- addr }}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("hub exited: %v\n%s", err, errOut)
	case <-time.After(30 * time.Second):
		t.Fatal("hub did not listen within 30 s")
	}
	var fv web.Fabric
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/api/v1/fabric")
		if err != nil {
			t.Fatal(err)
		}
		ok := resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&fv) == nil
		resp.Body.Close()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no live fabric within 90 s (status %d)\n%s", resp.StatusCode, errOut)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if fv.Source != "live" || len(fv.Tiers) != 2 || len(fv.Links) != 4 {
		t.Errorf("live fabric: source %q, %d tiers, %d links; want live, 2 tiers (leaves, spines), 4 spine-leaf links", fv.Source, len(fv.Tiers), len(fv.Links))
	}
	var hosts int
	for _, sw := range fv.Tiers[0] {
		hosts += len(sw.Hosts)
	}
	if hosts != 4 {
		t.Errorf("%d host ports under the leaves, want 4", hosts)
	}
	var ids []string
	narrow := false
	for _, fd := range fv.Findings {
		ids = append(ids, fd.ID)
		b, _ := json.Marshal(fd)
		if fd.ID == "fabric.link_degraded" && strings.Contains(string(b), "leaf2") && strings.Contains(string(b), "1X") {
			narrow = true
		}
	}
	t.Logf("live fabric: %d links, findings %v", len(fv.Links), ids)
	if !narrow {
		t.Errorf("the 1X uplink of leaf2 port 4 is not reported: findings %v", ids)
	}
	if slices.ContainsFunc(fv.Findings, func(fd finding.Finding) bool { return fd.ID == "fabric.sm_missing" }) {
		t.Errorf("OpenSM runs, yet: %v", ids)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("hub did not stop")
	}
	if !strings.Contains(errOut.String(), "live fabric judged in") {
		t.Errorf("log: %s", errOut)
	}
}
