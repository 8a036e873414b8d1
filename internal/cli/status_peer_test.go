package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/output/report"
)

func statusJSON(t *testing.T, args ...string) report.Status {
	t.Helper()
	stdout, stderr, code := run(t, append([]string{"status", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("status %v: exit %d: %s", args, code, stderr)
	}
	var st report.Status
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func portRow(t *testing.T, st report.Status, dev string) report.PortStatus {
	t.Helper()
	for _, p := range st.Ports {
		if p.Device == dev {
			return p
		}
	}
	t.Fatalf("no port of %s", dev)
	return report.PortStatus{}
}

// status names each port's GUID and, from a saved `ibnetdiscover -p` in the
// root or a saved fabric collection, the switch port at the other end.
func TestStatusPeers(t *testing.T) {
	root := simRoot(t, "h100-ndr")
	st := statusJSON(t, "--root", root)
	g0, g1 := portRow(t, st, "mlx5_0").PortGUID, portRow(t, st, "mlx5_1").PortGUID
	if g0 == "" || g1 == "" || g0 == g1 {
		t.Fatalf("port GUIDs %q %q", g0, g1)
	}
	saved := fmt.Sprintf(`CA  8865  1 %s 4x NDR - SW    17 14 0x98039b0300aabb01 ( 'gpu017 mlx5_0' - 'leaf07' )
CA  8866  1 %s 4x NDR - SW    17 15 0x98039b0300aabb01 ( 'gpu017 mlx5_1' - 'leaf07' )
SW    17 16 0x98039b0300aabb01 4x NDR                                    'leaf07'
`, g0, g1)
	if err := os.WriteFile(filepath.Join(root, "cmd", "ibnetdiscover-p.txt"), []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	st = statusJSON(t, "--root", root)
	for dev, want := range map[string]string{"mlx5_0": "leaf07[14]", "mlx5_1": "leaf07[15]", "mlx5_2": ""} {
		got := ""
		if p := portRow(t, st, dev).Peer; p != nil {
			got = p.String()
			if p.NodeGUID != "0x98039b0300aabb01" || p.LID != 17 {
				t.Errorf("%s peer %+v", dev, *p)
			}
		}
		if got != want {
			t.Errorf("%s: peer %q, want %q", dev, got, want)
		}
	}
	text, _, _ := run(t, "status", "--root", root)
	if !strings.Contains(text, "PEER") || !strings.Contains(text, "leaf07[14]") || !strings.Contains(text, g0) {
		t.Errorf("status text lacks the GUID or peer:\n%s", text)
	}

	// A saved fabric collection: give mlx5_0 port 1 the port GUID of h1
	// in the spine-leaf capture, which is cabled to leaf1 port 1.
	gid := filepath.Join(root, "sys", "class", "infiniband", "mlx5_0", "ports", "1", "gids", "0")
	if err := os.WriteFile(gid, []byte("fe80:0000:0000:0000:0000:0000:0010:0001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st = statusJSON(t, "--root", root, "--fabric-from", "../rules/fabric/testdata/spineleaf")
	p := portRow(t, st, "mlx5_0")
	if p.PortGUID != "0x0000000000100001" || p.Peer == nil || p.Peer.String() != "leaf1[1]" || p.Peer.NodeGUID != "0x0000000000200002" || p.Peer.LID != 4 {
		t.Errorf("mlx5_0 with --fabric-from: GUID %s peer %+v, want leaf1[1] (0x0000000000200002, LID 4)", p.PortGUID, p.Peer)
	}

	// Unreadable saved output: a gap, the rest still shown; a missing
	// fabric collection: could not run.
	if err := os.WriteFile(filepath.Join(root, "cmd", "ibnetdiscover-p.txt"), []byte("garbage line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st = statusJSON(t, "--root", root)
	found := false
	for _, g := range st.Gaps {
		found = found || g.Path == "cmd/ibnetdiscover-p.txt"
	}
	if !found || len(st.Ports) == 0 {
		t.Errorf("bad saved output: gaps %+v", st.Gaps)
	}
	if _, stderr, code := run(t, "status", "--root", root, "--fabric-from", "/nonexistent"); code != 3 || !strings.Contains(stderr, "--fabric-from") {
		t.Errorf("--fabric-from /nonexistent: exit %d %q", code, stderr)
	}
}
