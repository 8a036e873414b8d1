package routing

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

// routeWithOpenSM runs the real stack on a fabric: ibsim simulates it,
// OpenSM with the given routing engine sweeps once (-o) and programs the
// switches, then ibnetdiscover and dump_fts read topology and tables back.
// Every process gets its own ibsim socket name and is killed at cleanup.
func routeWithOpenSM(t *testing.T, f *Subnet, engine string, roots ...string) (topo, fts []byte) {
	t.Helper()
	for _, tool := range []string{"ibsim", "ibsim-run", "opensm", "ibnetdiscover", "dump_fts"} {
		testenv.NeedTool(t, tool)
	}
	dir := t.TempDir()
	var net bytes.Buffer
	if err := WriteIBSimNet(&net, f); err != nil {
		t.Fatal(err)
	}
	netFile := filepath.Join(dir, "net")
	if err := os.WriteFile(netFile, net.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sim := ""
	for i := range f.Nodes {
		if f.Nodes[i].Type == CA {
			sim = f.Nodes[i].Name()
			break
		}
	}
	env := append(os.Environ(),
		fmt.Sprintf("IBSIM_SOCKNAME=ibdoctor-routing-%d-%s", os.Getpid(), engine),
		"SIM_HOST="+sim, "OSM_TMP_DIR="+dir, "OSM_CACHE_DIR="+dir)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	ibsim := exec.CommandContext(ctx, "ibsim", "-s", netFile)
	ibsim.Env = env
	ibsim.Dir = dir
	stdin, err := ibsim.StdinPipe() // the console; kept open until cleanup
	if err != nil {
		t.Fatal(err)
	}
	simOut := &lockedBuffer{}
	ibsim.Stdout, ibsim.Stderr = simOut, simOut
	if err := ibsim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		ibsim.Process.Kill()
		ibsim.Wait()
	})
	run := func(name string, args ...string) []byte {
		t.Helper()
		cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
		defer ccancel()
		cmd := exec.CommandContext(cctx, "ibsim-run", append([]string{name}, args...)...)
		cmd.Env, cmd.Dir = env, dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s\nibsim: %s", name, args, err, stderr.Bytes(), simOut.Bytes())
		}
		return out
	}
	// ibsim says when it listens; clients started before hang.
	for !bytes.Contains(simOut.Bytes(), []byte("Network simulator ready.")) {
		if ctx.Err() != nil {
			t.Fatalf("ibsim did not start: %s", simOut.Bytes())
		}
		time.Sleep(20 * time.Millisecond)
	}
	args := []string{"-o", "-R", engine, "-f", filepath.Join(dir, "osm.log")}
	if len(roots) > 0 {
		// updn without roots on a graph with no tree shape falls back to
		// minhop ("no root nodes were found"). ibsim numbers GUIDs itself:
		// discover them (directed routes work before the SM runs).
		pre := loadCapture(t, run("ibnetdiscover"), nil)
		var b bytes.Buffer
		for _, r := range roots {
			fmt.Fprintf(&b, "0x%016x\n", pre.Nodes[node(t, pre, r)].GUID)
		}
		rootFile := filepath.Join(dir, "roots")
		if err := os.WriteFile(rootFile, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-a", rootFile)
	}
	run("opensm", args...)
	return run("ibnetdiscover"), run("dump_fts")
}

// TestOpenSMEngines routes generated fat-trees with OpenSM's real engines
// and checks that the analysis of what they programmed is clean: every pair
// arrives, min-hop, no credit loop, symmetric tree. updn and ftree leave
// spine-to-spine routes out (they would turn down then up): those are
// info findings, nothing more.
func TestOpenSMEngines(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ibsim and OpenSM")
	}
	for _, tc := range []struct {
		engine string
		ft     FatTree
	}{
		{"minhop", FatTree{Pods: 1, LeavesPerPod: 4, SpinesPerPod: 2, HostsPerLeaf: 4}},
		{"updn", FatTree{Pods: 1, LeavesPerPod: 4, SpinesPerPod: 2, HostsPerLeaf: 4}},
		{"ftree", FatTree{Pods: 2, LeavesPerPod: 2, SpinesPerPod: 2, CoresPerGroup: 2, HostsPerLeaf: 2}},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			gen, err := tc.ft.Generate()
			if err != nil {
				t.Fatal(err)
			}
			topo, fts := routeWithOpenSM(t, gen, tc.engine)
			f := loadCapture(t, topo, fts)
			r := analyze(t, f)
			n := int64(tc.ft.HCAs())
			if r.Pairs != n*(n-1) || r.RoutedPairs != r.Pairs || r.NonMinimalRoutes != 0 || len(r.CreditLoops) != 0 {
				t.Errorf("pairs %d routed %d nonminimal %d credit loops %d", r.Pairs, r.RoutedPairs, r.NonMinimalRoutes, len(r.CreditLoops))
			}
			if !r.Tree.FatTree || len(r.Tree.Asymmetric) != 0 {
				t.Errorf("tree: fat %v (%s), asymmetric %+v", r.Tree.FatTree, r.Tree.Reason, r.Tree.Asymmetric)
			}
			for _, fd := range r.Findings() {
				if fd.Severity != finding.Info || fd.ID != "fabric.route_missing" {
					t.Errorf("finding %s %s: %s", fd.Severity, fd.ID, fd.Summary)
				}
			}
		})
	}
}

// TestOpenSMRingCreditLoop: on a ring of five switches every shortest
// path is unique, so min-hop routing sends all two-hop routes the same way
// round and closes a cycle of channel dependencies; up/down routing breaks
// it at its root and pays with longer routes.
func TestOpenSMRingCreditLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ibsim and OpenSM")
	}
	ring := &Subnet{}
	for i := range 5 {
		ring.AddSwitch(uint64(0x100+i), fmt.Sprintf("ring%d", i), 3, 0)
	}
	for i := range 5 {
		c := ring.AddCA(uint64(0x200+2*i), fmt.Sprintf("host%d", i), 1)
		ring.Connect(i, 3, c, 1)
		ring.Connect(i, 1, (i+1)%5, 2)
	}
	for _, tc := range []struct {
		engine     string
		creditLoop bool
	}{{"minhop", true}, {"updn", false}} {
		t.Run(tc.engine, func(t *testing.T) {
			topo, fts := routeWithOpenSM(t, ring, tc.engine, "ring0")
			r := analyze(t, loadCapture(t, topo, fts))
			if r.RoutedPairs != 20 || r.Pairs != 20 {
				t.Errorf("routed %d of %d pairs", r.RoutedPairs, r.Pairs)
			}
			got := slices.ContainsFunc(r.Findings(), func(f finding.Finding) bool { return f.ID == "fabric.credit_loop" })
			if got != tc.creditLoop {
				t.Errorf("credit loop found %v, want %v (%+v)", got, tc.creditLoop, r.CreditLoops)
			}
			// Both directions close a cycle of five channels.
			if tc.creditLoop && (len(r.CreditLoops) != 2 || r.CreditLoops[0].Channels != 5 || r.CreditLoops[1].Channels != 5) {
				t.Errorf("credit loops %+v", r.CreditLoops)
			}
		})
	}
}

// lockedBuffer collects a process's output while the test polls it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Bytes returns a copy of what was written so far.
func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}
