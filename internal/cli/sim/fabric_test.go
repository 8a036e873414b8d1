package sim

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/cli/cmdutil"
	simfabric "github.com/ibdoctor/ibdoctor/internal/sim/fabric"
)

func TestSimFabricFlags(t *testing.T) {
	var got *FabricOptions
	f := &cmdutil.Factory{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	cmd := NewCmdFabric(f, func(o *FabricOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--spines", "3", "--leaves", "6", "--hosts-per-leaf", "4", "--fault", "slow:h2", "--fault", "swap:leaf1[1],leaf1[2]", "--out", "/tmp/x"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Spines != 3 || got.Spec.Leaves != 6 || got.Spec.HostsPerLeaf != 4 || len(got.Spec.Faults) != 2 || got.Spec.Faults[1].Kind != simfabric.Swap {
		t.Errorf("options: %+v", got.Spec)
	}
	for _, args := range [][]string{{"--fault", "slow:h2"}, {"--out", "/tmp/x", "--fault", "melt:h1"}} {
		cmd := NewCmdFabric(f, func(*FabricOptions) error { return nil })
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		if err := cmd.Execute(); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestSimFabricWrites(t *testing.T) {
	dir := t.TempDir()
	out := &bytes.Buffer{}
	f := &cmdutil.Factory{Out: out, ErrOut: &bytes.Buffer{}}
	cmd := NewCmdFabric(f, nil)
	cmd.SetArgs([]string{"--leaves", "2", "--fault", "dupguid:h1,h2", "--out", dir})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	net, err := os.ReadFile(filepath.Join(dir, "net"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := os.ReadFile(filepath.Join(dir, "plan"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(net, []byte("caguid=")) || bytes.Contains(plan, []byte("caguid=")) || !strings.Contains(out.String(), "ibsim with -I") {
		t.Errorf("output:\n%s\nnet:\n%s", out, net)
	}
}
