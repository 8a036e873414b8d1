package bundle

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

func TestCommands(t *testing.T) {
	rt, err := rootfs.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	cmds := []Command{
		{Name: "echo", Path: "echo", Args: []string{"hello; rm -rf /", "$HOME"}, OutFile: "echo.txt"},
		{Name: "missing", Path: "ibdoctor-no-such-tool", OutFile: "missing.txt"},
		{Name: "slow", Path: "sleep", Args: []string{"10"}, Timeout: 50 * time.Millisecond, OutFile: "slow.txt"},
		{Name: "fails", Path: "ls", Args: []string{"/nonexistent-ibdoctor"}, OutFile: "fails.txt"},
		{Name: "escape", Path: "echo", OutFile: "../evil"},
		{Name: "dup", Path: "echo", OutFile: "echo.txt"},
	}
	var buf bytes.Buffer
	start := time.Now()
	meta, err := Collect(context.Background(), rt.FS(), &buf, Options{Commands: cmds, Now: func() time.Time { return stamp }})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("timeout not enforced")
	}
	byName := map[string]CommandResult{}
	for _, r := range meta.Commands {
		byName[r.Name] = r
	}
	checks := []struct {
		name, errSub, out string
		code              int
	}{
		{"echo", "", "cmd/echo.txt", 0},
		{"missing", "not found", "", -1},
		{"slow", "timed out after 50ms", "cmd/slow.txt", -1},
		{"fails", "exit status", "cmd/fails.txt", 2},
		{"escape", "one plain file name", "", -1},
		{"dup", "used twice", "", -1},
	}
	for _, c := range checks {
		r := byName[c.name]
		if (c.errSub == "") != (r.Error == "") || !strings.Contains(r.Error, c.errSub) || r.OutFile != c.out || r.ExitCode != c.code {
			t.Errorf("%s: %+v; want error %q, out %q, exit %d", c.name, r, c.errSub, c.out, c.code)
		}
	}
	if !strings.Contains(byName["fails"].Stderr, "nonexistent-ibdoctor") {
		t.Errorf("stderr not kept: %q", byName["fails"].Stderr)
	}
	fsys, err := rootfs.ReadBundle(bytes.NewReader(buf.Bytes()), "b.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	out, err := fs.ReadFile(fsys, "cmd/echo.txt")
	if err != nil || string(out) != "hello; rm -rf / $HOME\n" {
		t.Errorf("echo output = %q, %v (arguments must reach the program untouched, no shell)", out, err)
	}
}

func TestLimitedBuffer(t *testing.T) {
	b := &limitedBuffer{max: 4}
	b.Write([]byte("ab"))
	n, err := b.Write([]byte("cdef"))
	if n != 4 || err != nil || b.buf.String() != "abcd" || !b.cut {
		t.Fatalf("n=%d err=%v buf=%q cut=%v", n, err, b.buf.String(), b.cut)
	}
}

func TestNodeCommands(t *testing.T) {
	s, err := sysfs.ReadRoot(context.Background(), fixture)
	if err != nil {
		t.Fatal(err)
	}
	// A hostile netdev name must never reach ethtool.
	s.Devices[1].Ports[0].NetDev = "ens2f0np0" // before the prepended device below
	// Nor a device name that reads as an option reach ibnetdiscover.
	active := ib.StateActive
	s.Devices = append([]snapshot.Device{{Name: "-evil", Ports: []snapshot.Port{{Device: "-evil", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: &active}}}}, s.Devices...)
	s.Devices = append(s.Devices, snapshot.Device{Name: "evil", Ports: []snapshot.Port{
		{LinkLayer: ib.LinkLayerEthernet, NetDev: "--help"},
		{LinkLayer: ib.LinkLayerEthernet, NetDev: "a/../b"},
	}})
	var got []string
	for _, c := range NodeCommands(s) {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		got = append(got, c.OutFile+" <- "+strings.Join(append([]string{c.Path}, c.Args...), " "))
	}
	want := []string{
		"dmesg.txt <- dmesg",
		"ethtool-S-ens2f0np0.txt <- ethtool -S ens2f0np0",
		"nvidia-smi-topo-m.txt <- nvidia-smi topo -m",
		"ibnetdiscover-p.txt <- ibnetdiscover -p -C mlx5_0 -P 1",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("NodeCommands (-want +got):\n%s", d)
	}
	for _, n := range []string{"eth0", "ens1f0np0", "ib0.8001", "bond0"} {
		if !validIfName(n) {
			t.Errorf("validIfName(%q) = false", n)
		}
	}
	for _, n := range []string{"", "-x", "a b", "a/b", "a:b", ".", "..", "0123456789abcdef"} {
		if validIfName(n) {
			t.Errorf("validIfName(%q) = true", n)
		}
	}
}
