package ib

import (
	"fmt"
	"strconv"
	"strings"
)

// PortState is the logical port state (enum ib_port_state):
// 0 NOP, 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.
type PortState uint8

// Logical port states.
const (
	StateNOP         PortState = 0
	StateDown        PortState = 1
	StateInit        PortState = 2
	StateArmed       PortState = 3
	StateActive      PortState = 4
	StateActiveDefer PortState = 5
)

var stateNames = []string{"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"}

// String returns the kernel's name ("ACTIVE") or "UNKNOWN(n)".
func (s PortState) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("UNKNOWN(%d)", uint8(s))
}

// MarshalText renders the name.
func (s PortState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText accepts a name ("ACTIVE", case-insensitive) or the sysfs form.
func (s *PortState) UnmarshalText(b []byte) error {
	v, err := ParsePortStateName(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParsePortStateName accepts "ACTIVE", "Active", "4: ACTIVE" or "4".
func ParsePortStateName(in string) (PortState, error) {
	t := strings.TrimSpace(in)
	if strings.Contains(t, ":") {
		return ParsePortState(t)
	}
	if n, err := strconv.ParseUint(t, 10, 8); err == nil && int(n) < len(stateNames) {
		return PortState(n), nil
	}
	for i, name := range stateNames {
		if strings.EqualFold(name, t) {
			return PortState(i), nil
		}
	}
	return 0, malformed("port state (DOWN, INIT, ARMED, ACTIVE)", in)
}

// ParsePortState parses /sys/class/infiniband/<dev>/ports/<n>/state, printed
// "%d: %s\n". The number is authoritative; the name is not checked, since
// old kernels print UNKNOWN for values they do not know.
func ParsePortState(in string) (PortState, error) {
	n, err := parseNumbered(in, 5)
	if err != nil {
		return 0, malformed(`port state "<n>: <NAME>"`, in)
	}
	return PortState(n), nil
}

// PhysState is the physical port state (enum ib_port_phys_state):
// 1 Sleep, 2 Polling, 3 Disabled, 4 PortConfigurationTraining, 5 LinkUp,
// 6 LinkErrorRecovery, 7 Phy Test.
type PhysState uint8

// Physical port states.
const (
	PhysSleep             PhysState = 1
	PhysPolling           PhysState = 2
	PhysDisabled          PhysState = 3
	PhysTraining          PhysState = 4
	PhysLinkUp            PhysState = 5
	PhysLinkErrorRecovery PhysState = 6
	PhysPhyTest           PhysState = 7
)

var physNames = []string{"", "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "Phy Test"}

// String returns the kernel's name ("LinkUp") or "<unknown>(n)".
func (p PhysState) String() string {
	if p >= 1 && int(p) < len(physNames) {
		return physNames[p]
	}
	return fmt.Sprintf("<unknown>(%d)", uint8(p))
}

// MarshalText renders the name.
func (p PhysState) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText accepts a name ("LinkUp", case-insensitive) or the sysfs form.
func (p *PhysState) UnmarshalText(b []byte) error {
	v, err := ParsePhysStateName(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// ParsePhysStateName accepts "LinkUp", "linkup", "5: LinkUp" or "5".
func ParsePhysStateName(in string) (PhysState, error) {
	t := strings.TrimSpace(in)
	if strings.Contains(t, ":") {
		return ParsePhysState(t)
	}
	if n, err := strconv.ParseUint(t, 10, 8); err == nil && n >= 1 && int(n) < len(physNames) {
		return PhysState(n), nil
	}
	for i, name := range physNames {
		if i > 0 && strings.EqualFold(name, t) {
			return PhysState(i), nil
		}
	}
	return 0, malformed("physical state (Sleep, Polling, Disabled, LinkUp, …)", in)
}

// ParsePhysState parses /sys/class/infiniband/<dev>/ports/<n>/phys_state,
// printed "%u: %s\n"; keyed on the number.
func ParsePhysState(in string) (PhysState, error) {
	n, err := parseNumbered(in, 255)
	if err != nil {
		return 0, malformed(`physical state "<n>: <Name>"`, in)
	}
	return PhysState(n), nil
}

// parseNumbered reads the leading "<n>:" of a "<n>: <name>" attribute.
func parseNumbered(in string, maxN uint64) (uint64, error) {
	t := strings.TrimSpace(in)
	num, name, ok := strings.Cut(t, ":")
	if !ok || num == "" || strings.TrimSpace(name) == "" {
		return 0, ErrMalformed
	}
	n, err := strconv.ParseUint(num, 10, 8)
	if err != nil || n > maxN {
		return 0, ErrMalformed
	}
	return n, nil
}

// LinkLayer is a port's link layer as /sys/…/ports/<n>/link_layer prints it.
type LinkLayer string

// Link layers.
const (
	LinkLayerInfiniBand LinkLayer = "InfiniBand"
	LinkLayerEthernet   LinkLayer = "Ethernet"
	LinkLayerUnknown    LinkLayer = "Unknown"
)

// ParseLinkLayer parses link_layer ("InfiniBand", "Ethernet", "Unknown").
func ParseLinkLayer(in string) (LinkLayer, error) {
	switch t := strings.TrimSpace(in); {
	case strings.EqualFold(t, "InfiniBand"), strings.EqualFold(t, "IB"):
		return LinkLayerInfiniBand, nil
	case strings.EqualFold(t, "Ethernet"), strings.EqualFold(t, "RoCE"), strings.EqualFold(t, "Eth"):
		return LinkLayerEthernet, nil
	case strings.EqualFold(t, "Unknown"):
		return LinkLayerUnknown, nil
	}
	return "", malformed("link layer (InfiniBand, Ethernet)", in)
}

// Short is "IB", "RoCE" or "?" for tables.
func (l LinkLayer) Short() string {
	switch l {
	case LinkLayerInfiniBand:
		return "IB"
	case LinkLayerEthernet:
		return "RoCE"
	}
	return "?"
}
