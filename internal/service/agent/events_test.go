package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// scriptedKernel returns one batch of records per Read.
type scriptedKernel struct{ batches [][]kmsg.Record }

func (s *scriptedKernel) Name() string { return "/dev/kmsg" }

func (s *scriptedKernel) Read(context.Context) (KernelRead, error) {
	if len(s.batches) == 0 {
		return KernelRead{}, nil
	}
	b := s.batches[0]
	s.batches = s.batches[1:]
	return KernelRead{Records: b}, nil
}

// TestFindingLog captures the agent's slog output: one line when a
// finding is raised and one when it clears, each with id, severity,
// subject and summary, and nothing while it stays active.
func TestFindingLog(t *testing.T) {
	now := t0
	down := ib.StateDown
	state := ib.StateActive
	read := func(context.Context) (*snapshot.Snapshot, error) {
		s := state
		return &snapshot.Snapshot{Host: "gpu001", Taken: now, Devices: []snapshot.Device{{Name: "mlx5_0", PCI: "0000:3b:00.0",
			Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1, LinkLayer: ib.LinkLayerInfiniBand, State: &s}}}}}, nil
	}
	xid := kmsg.Record{Priority: 3, Text: "NVRM: Xid (PCI:0000:2b:00): 48, pid=1, name=python3, DBE", Time: t0}
	var buf bytes.Buffer
	a, err := New(Options{Read: read, Log: slog.New(slog.NewJSONHandler(&buf, nil)), KernelWindow: time.Hour,
		Kernel: &scriptedKernel{batches: [][]kmsg.Record{nil, {xid}}}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		at    time.Duration
		port  ib.PortState
		lines []string // msg/id/severity, in order
	}{
		{at: 0, port: ib.StateActive},
		{at: time.Minute, port: ib.StateActive, lines: []string{"finding raised/gpu.xid/critical"}},
		{at: 2 * time.Minute, port: ib.StateActive},
		{at: 3 * time.Minute, port: down, lines: []string{"finding raised/port.link_flapping/warning", "finding raised/port.down/info"}},
		{at: 2 * time.Hour, port: ib.StateActive, lines: []string{"finding cleared/gpu.xid/critical", "finding cleared/port.down/info", "finding cleared/port.link_flapping/warning"}},
	}
	for i, s := range steps {
		now, state = t0.Add(s.at), s.port
		buf.Reset()
		if err := a.Sample(context.Background()); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			if l == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("step %d: %q: %v", i, l, err)
			}
			if m["summary"] == "" || m["subject"] == nil {
				t.Errorf("step %d: line lacks summary or subject: %v", i, m)
			}
			got = append(got, m["msg"].(string)+"/"+m["id"].(string)+"/"+m["severity"].(string))
		}
		if strings.Join(got, "|") != strings.Join(s.lines, "|") {
			t.Errorf("step %d: lines %q, want %q", i, got, s.lines)
		}
	}
}
