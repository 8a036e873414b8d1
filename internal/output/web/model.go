package web

import (
	"context"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// Health is the state a page shows for a node, port, link or switch.
// Colour is never its only sign: every Health renders with an icon and a
// word.
type Health string

// Health values, from best to worst; Unreachable is an agent the hub could
// not poll, Unknown a thing nothing judged.
const (
	OK          Health = "ok"
	Info        Health = "info"
	Warning     Health = "warning"
	Critical    Health = "critical"
	Unreachable Health = "unreachable"
	Unknown     Health = "unknown"
)

// HealthOf maps a finding severity to a Health.
func HealthOf(s finding.Severity) Health {
	switch s {
	case finding.Critical:
		return Critical
	case finding.Warning:
		return Warning
	case finding.Info:
		return Info
	}
	return Unknown
}

// Fleet is the fleet page: every node with its ports.
type Fleet struct {
	Generated time.Time
	// Counts is the number of nodes per health.
	Counts map[Health]int
	Nodes  []NodeRow
	// Groups are the racks or leaves the nodes are filtered by (a node's
	// Group), sorted.
	Groups []string
	// FindingIDs are the finding IDs open anywhere in the fleet, sorted.
	FindingIDs []string
}

// NodeRow is one node on the fleet page.
type NodeRow struct {
	Host string
	// Group is the leaf switch (or rack) the node hangs off, "" unknown.
	Group    string
	Health   Health
	LastSeen time.Time
	// Error says why the last poll failed ("" when it did not).
	Error string
	Ports []PortCell
	// FindingIDs are the IDs of the node's open findings, sorted.
	FindingIDs []string
}

// PortCell is one port in the fleet grid.
type PortCell struct {
	// Name is "mlx5_0/1".
	Name   string
	Health Health
	State  string
	Rate   string
}

// Node is one node's page.
type Node struct {
	Host     string
	Group    string
	Health   Health
	LastSeen time.Time
	Error    string
	Ports    []PortRow
	Findings []FindingView
	// Series are the data and error rates over the retained window, one
	// per port and reading ("mlx5_0/1 rcv_data").
	Series []Series
}

// PortRow is one port on the node page.
type PortRow struct {
	Device    string
	Port      int
	LinkLayer string
	State     string
	PhysState string
	Rate      string
	Width     string
	PCI       string
	GUID      string
	// Peer is the switch and port at the other end ("leaf01 port 7"),
	// "" unknown.
	Peer   string
	Health Health
}

// FindingView is a finding with its life span; Closed is zero while it is
// open.
type FindingView struct {
	finding.Finding
	Opened time.Time
	Closed time.Time
}

// Series is one chart line.
type Series struct {
	Name string
	// Unit is what the values count ("bytes/s", "errors/s").
	Unit   string
	Points []Point
}

// Point is one sample.
type Point struct {
	T time.Time
	V float64
}

// Fabric is the fabric page: switches in tiers, every link.
type Fabric struct {
	Taken time.Time
	// Source says where the fabric came from (a collection directory,
	// a live query).
	Source string
	// Tiers are the switches by distance from the hosts: tier 1 the
	// leaves, the highest tier the spines.
	Tiers [][]Switch
	Links []Link
	// Findings are the fabric check's findings.
	Findings []finding.Finding
}

// Switch is one switch; a leaf carries its hosts, aggregated.
type Switch struct {
	// ID is the switch's GUID as 0x + 16 hex digits.
	ID     string
	Name   string
	Health Health
	// Hosts are the hosts cabled to this switch (leaves only).
	Hosts []HostLink
}

// HostLink is a host port cabled to a leaf.
type HostLink struct {
	Host   string
	Port   string
	Health Health
}

// Link is one switch-to-switch cable.
type Link struct {
	// ID is stable across refreshes ("0x…/7-0x…/3") and names the link's
	// page.
	ID     string
	A, B   LinkEnd
	Health Health
	State  string
	// Width and Speed as the port runs them ("4X", "NDR"), with Degraded
	// set when either is below what both ends support.
	Width    string
	Speed    string
	Degraded bool
	// ErrorRate is error counter increments per second over the last
	// interval (0 when unknown or none).
	ErrorRate float64
	// Load is the number of routes (source-destination LID pairs) the
	// forwarding tables send over the link in each direction, from the
	// routing analysis; 0 when not analysed.
	LoadAB, LoadBA int
}

// LinkEnd is one end of a link with its counters.
type LinkEnd struct {
	ID       string
	Name     string
	Port     int
	Counters map[string]uint64
}

// PerfRun is one pairwise bandwidth run.
type PerfRun struct {
	ID      string
	Started time.Time
	Test    string
	Hosts   []string
	// Gbps[i][j] is the measured bandwidth from Hosts[i] to Hosts[j];
	// negative where not measured.
	Gbps [][]float64
	// Expected is the line rate the matrix is judged against, in Gb/s.
	Expected float64
	// Culprits are the hosts the run's findings blame.
	Culprits []string
	Findings []finding.Finding
}

// PerfRunRef names a run in a list.
type PerfRunRef struct {
	ID      string
	Started time.Time
	Test    string
	Hosts   int
}

// Timeline is every finding that was open in a window.
type Timeline struct {
	Since, Until time.Time
	Events       []Event
}

// Event is one finding's life on one host; Closed is zero while open.
type Event struct {
	Host     string
	ID       string
	Severity finding.Severity
	Subject  string
	Opened   time.Time
	Closed   time.Time
}

// Data is what the pages read. The hub implements it from its store; a
// single agent from its own state.
type Data interface {
	Fleet(ctx context.Context) (Fleet, error)
	// Node returns ErrNotFound for an unknown host.
	Node(ctx context.Context, host string) (Node, error)
	// Fabric returns ErrNotFound when the hub has no fabric.
	Fabric(ctx context.Context) (Fabric, error)
	PerfRuns(ctx context.Context) ([]PerfRunRef, error)
	PerfRun(ctx context.Context, id string) (PerfRun, error)
	Timeline(ctx context.Context, since time.Time, host string) (Timeline, error)
}
