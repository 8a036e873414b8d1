package finding

import (
	"cmp"
	"fmt"
	"slices"
)

// Severity of a finding.
type Severity string

// Severities, in increasing order of urgency.
const (
	Info     Severity = "info"
	Warning  Severity = "warning"
	Critical Severity = "critical"
)

// Rank orders severities: info 1, warning 2, critical 3, unknown 0.
func (s Severity) Rank() int {
	switch s {
	case Info:
		return 1
	case Warning:
		return 2
	case Critical:
		return 3
	}
	return 0
}

// ParseSeverity accepts "info", "warning" or "critical".
func ParseSeverity(s string) (Severity, error) {
	switch v := Severity(s); v {
	case Info, Warning, Critical:
		return v, nil
	}
	return "", fmt.Errorf("unknown severity %q (want info, warning or critical)", s)
}

// Subject names what a finding is about. Node findings fill Host, Device and
// Port (or PCI, NetDev, GPU); fabric findings name node GUIDs/descriptions
// and ports. Port 0 is omitted: on a switch, findings about the management
// port name it in Summary.
type Subject struct {
	Host     string `json:"host,omitempty"`
	Device   string `json:"device,omitempty"`
	Port     int    `json:"port,omitempty"`
	NetDev   string `json:"netdev,omitempty"`
	PCI      string `json:"pci,omitempty"`
	GPU      string `json:"gpu,omitempty"`
	NodeGUID string `json:"node_guid,omitempty"`
	NodeDesc string `json:"node_desc,omitempty"`
	// LID is the port's LID (InfiniBand; a switch's port 0 LID for its
	// ports), 0 when unknown.
	LID uint32 `json:"lid,omitempty"`
	// LinkLayer is "InfiniBand" or "Ethernet" where known: remedies and
	// causes marked "IB:" or "RoCE:" are kept only for their link layer.
	LinkLayer string `json:"link_layer,omitempty"`
	// Peer names the other end of a link, when a finding is about a link.
	Peer *Subject `json:"peer,omitempty"`
	// Rank is the NCCL rank or job-level name, for NCCL findings.
	Rank string `json:"rank,omitempty"`
	// File names the analysed file, for findings on pasted tool output.
	File string `json:"file,omitempty"`
}

// Evidence is one observed value a finding rests on, with where it came from
// (a file under the root, a tool and its line).
type Evidence struct {
	Source string `json:"source"`
	Value  string `json:"value"`
}

// Finding is one diagnosed problem, in the JSON schema every command prints.
type Finding struct {
	ID       string     `json:"id"`
	Severity Severity   `json:"severity"`
	Subject  Subject    `json:"subject"`
	Summary  string     `json:"summary"`
	Evidence []Evidence `json:"evidence"`
	Causes   []string   `json:"causes"`
	Remedy   []string   `json:"remedy"`
}

// Sort orders findings by severity (critical first), then by the order
// function's rank (the runbook step; lower first), then by ID and subject,
// so that output is deterministic.
func Sort(fs []Finding, order func(id string) int) {
	if order == nil {
		order = func(string) int { return 0 }
	}
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if c := cmp.Compare(b.Severity.Rank(), a.Severity.Rank()); c != 0 {
			return c
		}
		if c := cmp.Compare(order(a.ID), order(b.ID)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return CompareSubject(a.Subject, b.Subject)
	})
}

// CompareSubject orders subjects by host, device, port, then the rest.
func CompareSubject(a, b Subject) int {
	return cmp.Or(
		cmp.Compare(a.Host, b.Host),
		cmp.Compare(a.Device, b.Device),
		cmp.Compare(a.Port, b.Port),
		cmp.Compare(a.NetDev, b.NetDev),
		cmp.Compare(a.PCI, b.PCI),
		cmp.Compare(a.GPU, b.GPU),
		cmp.Compare(a.NodeGUID, b.NodeGUID),
		cmp.Compare(a.NodeDesc, b.NodeDesc),
		cmp.Compare(a.Rank, b.Rank),
		cmp.Compare(a.File, b.File),
	)
}

// Worst returns the highest severity among the findings, or "" for none.
func Worst(fs []Finding) Severity {
	var w Severity
	for _, f := range fs {
		if f.Severity.Rank() > w.Rank() {
			w = f.Severity
		}
	}
	return w
}

// Exit codes of check and doctor: the Nagios/NHC convention.
const (
	ExitHealthy  = 0
	ExitWarning  = 1
	ExitCritical = 2
	ExitCannot   = 3
)

// ExitCode maps findings to the exit code: 0 none or info only, 1 warnings,
// 2 at least one critical.
func ExitCode(fs []Finding) int {
	switch Worst(fs) {
	case Critical:
		return ExitCritical
	case Warning:
		return ExitWarning
	}
	return ExitHealthy
}

// Verdict is a one-word summary for people and health endpoints:
// "healthy", "warning" or "critical".
func Verdict(fs []Finding) string {
	switch Worst(fs) {
	case Critical:
		return "critical"
	case Warning:
		return "warning"
	}
	return "healthy"
}
