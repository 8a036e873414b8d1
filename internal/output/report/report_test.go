package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

func TestSubjectString(t *testing.T) {
	tests := []struct {
		s    finding.Subject
		want string
	}{
		{finding.Subject{Host: "gpu017"}, "gpu017"},
		{finding.Subject{Host: "gpu017", Device: "mlx5_2", Port: 1, NetDev: "ibp56s0"}, "mlx5_2 port 1 (ibp56s0)"},
		{finding.Subject{Host: "h", PCI: "0000:98:00.0", GPU: "0000:98:00.0"}, "GPU 0000:98:00.0"},
		{finding.Subject{PCI: "0000:98:00.0"}, "PCI 0000:98:00.0"},
		{finding.Subject{NodeDesc: "leaf3", NodeGUID: "0x2", Port: 4, Peer: &finding.Subject{NodeDesc: "spine2", Port: 3}}, `port 4 "leaf3" 0x2 ↔ port 3 "spine2"`},
		{finding.Subject{Rank: "3", File: "rank3.log"}, "rank 3 rank3.log"},
	}
	for _, tt := range tests {
		if got := SubjectString(tt.s); got != tt.want {
			t.Errorf("SubjectString(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestVerdictLineAndColor(t *testing.T) {
	fs := []finding.Finding{{Severity: finding.Critical}, {Severity: finding.Warning}, {Severity: finding.Warning}, {Severity: finding.Info}}
	if got := VerdictLine(Style{}, "gpu017", fs); got != "gpu017: CRITICAL (1 critical, 2 warning, 1 info)" {
		t.Errorf("VerdictLine = %q", got)
	}
	if got := VerdictLine(Style{}, "", nil); got != "HEALTHY" {
		t.Errorf("healthy = %q", got)
	}
	if got := VerdictLine(Style{Enabled: true}, "h", fs); !strings.Contains(got, "\x1b[1;31mCRITICAL\x1b[0m") {
		t.Errorf("colored = %q", got)
	}
	var b bytes.Buffer
	Findings(&b, Style{}, []finding.Finding{{ID: "port.down", Severity: finding.Critical, Summary: "s",
		Evidence: []finding.Evidence{{Source: "sys/x", Value: "1: DOWN\n"}}, Causes: []string{"c1", "c2"}, Remedy: []string{"r1", "r2"}}})
	want := "CRITICAL port.down\n  s\n  evidence: sys/x = 1: DOWN\n  causes:   c1; c2\n  next:     r1\n            r2\n"
	if b.String() != want {
		t.Errorf("Findings:\n%q\nwant\n%q", b.String(), want)
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Error("escape codes with color disabled")
	}
}

// JSON never carries null for the lists consumers iterate.
func TestNewDocumentLists(t *testing.T) {
	doc := NewDocument("h", []finding.Finding{{ID: "x.y", Severity: finding.Warning}}, nil)
	b, _ := json.Marshal(doc)
	for _, s := range []string{`"gaps":[]`, `"evidence":[]`, `"causes":[]`, `"remedy":[]`, `"verdict":"warning"`, `"exit_code":1`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("%s lacks %s", b, s)
		}
	}
	empty, _ := json.Marshal(NewDocument("h", nil, []snapshot.Gap{{Path: "p", Err: "e"}}))
	if !strings.Contains(string(empty), `"findings":[]`) || !strings.Contains(string(empty), `"verdict":"healthy"`) {
		t.Errorf("%s", empty)
	}
}

func TestCompactLink(t *testing.T) {
	for in, want := range map[string]string{
		"Gen5 x16 / Gen5 x16": "Gen5 x16",
		"Gen5 x8 / Gen5 x16":  "Gen5 x8 (max Gen5 x16)",
		"Gen3 x16 / Gen5 x16": "Gen3 x16 (max Gen5 x16)",
		"":                    "-",
	} {
		if got := compactLink(in); got != want {
			t.Errorf("compactLink(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStatusUnreadStateIsNotOK: a port whose state could not be read was
// not judged, so its row never says "ok".
func TestStatusUnreadStateIsNotOK(t *testing.T) {
	active := ib.StateActive
	for _, tt := range []struct {
		name  string
		state *ib.PortState
		want  string
	}{
		{"state read", &active, "ok"},
		{"state missing", nil, "unknown"},
	} {
		s := &snapshot.Snapshot{Host: "h", Devices: []snapshot.Device{{Name: "mlx5_0", Ports: []snapshot.Port{{Device: "mlx5_0", Number: 1, State: tt.state}}}}}
		if got := NewStatus(s, nil).Ports[0].Verdict; got != tt.want {
			t.Errorf("%s: verdict %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDrainReason(t *testing.T) {
	f := func(id string, sev finding.Severity, s finding.Subject) finding.Finding {
		return finding.Finding{ID: id, Severity: sev, Subject: s, Summary: "s"}
	}
	for _, tt := range []struct {
		fs     []finding.Finding
		reason string
		lines  int
	}{
		{nil, "", 0},
		{[]finding.Finding{f("port.polling", finding.Critical, finding.Subject{Host: "h", Device: "mlx5_5", Port: 1})}, "ibdoctor: mlx5_5 port 1 port.polling", 1},
		{[]finding.Finding{f("gpu.xid", finding.Critical, finding.Subject{Host: "h", GPU: "3", PCI: "0000:1b:00.0"}), f("x.y", finding.Warning, finding.Subject{})}, "ibdoctor: GPU 3 gpu.xid (+1 more)", 2},
		{[]finding.Finding{f("roce.pause_heavy", finding.Warning, finding.Subject{NetDev: "ens1f0np0"})}, "ibdoctor: ens1f0np0 roce.pause_heavy", 1},
		{[]finding.Finding{f("host.memlock_limited", finding.Warning, finding.Subject{Host: "h"})}, "ibdoctor: host.memlock_limited", 1},
	} {
		reason, lines := DrainReason(tt.fs)
		if reason != tt.reason || len(lines) != tt.lines {
			t.Errorf("DrainReason = %q, %q; want %q and %d lines", reason, lines, tt.reason, tt.lines)
		}
	}
}
