//go:build linux

package gather

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
)

// liveHost reads the sources of the running Linux host.
type liveHost struct{ ctx context.Context }

func NewLive(ctx context.Context) Live { return liveHost{ctx} }

func (h liveHost) KernelLog() (*kmsg.Log, error) {
	ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
	defer cancel()
	l, err := kmsg.ReadLive(ctx, "/dev/kmsg")
	if err != nil {
		return nil, err
	}
	if len(l.Records) == 0 {
		return nil, fmt.Errorf("/dev/kmsg: %w", kmsg.ErrNoData)
	}
	return l, nil
}

func (h liveHost) EthtoolStats(netdev string) (*ethtool.Stats, error) {
	return ethtool.ReadLive(netdev)
}

// nvidiaSMI runs `nvidia-smi topo -m` (fixed arguments, 15 s timeout).
func (h liveHost) NvidiaSMI() (*nvsmi.Matrix, error) {
	bin, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil, errors.New("nvidia-smi not installed")
	}
	ctx, cancel := context.WithTimeout(h.ctx, 15*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "topo", "-m")
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("nvidia-smi topo -m: %w", err)
	}
	return nvsmi.Parse(&out, "nvidia-smi topo -m")
}
