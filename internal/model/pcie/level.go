package pcie

import "fmt"

// Level is the distance between two PCI devices as `nvidia-smi topo -m`
// names it, ordered from near to far.
type Level int

// Distances (the legend of `nvidia-smi topo -m`). NVLink levels between GPUs
// are not PCIe distances and are not modelled.
const (
	LevelUnknown Level = iota
	// PIX: at most a single PCIe bridge (the same switch).
	PIX
	// PXB: multiple PCIe bridges without the host bridge.
	PXB
	// PHB: through a PCIe host bridge (the CPU root complex).
	PHB
	// NODE: between PCIe host bridges within a NUMA node.
	NODE
	// SYS: across the SMP interconnect between NUMA nodes (QPI/UPI).
	SYS
)

var levelNames = []string{"?", "PIX", "PXB", "PHB", "NODE", "SYS"}

// String returns the nvidia-smi name.
func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// MarshalText renders the nvidia-smi name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// ParseLevel parses an nvidia-smi cell: PIX, PXB, PHB, NODE, SYS, and the
// old drivers' SOC (= SYS).
func ParseLevel(s string) (Level, error) {
	switch s {
	case "PIX":
		return PIX, nil
	case "PXB":
		return PXB, nil
	case "PHB":
		return PHB, nil
	case "NODE":
		return NODE, nil
	case "SYS", "SOC":
		return SYS, nil
	}
	return LevelUnknown, fmt.Errorf("unknown topology level %q", s)
}

// UnmarshalText parses the nvidia-smi name, so JSON reports read back.
func (l *Level) UnmarshalText(b []byte) error {
	if string(b) == "?" {
		*l = LevelUnknown
		return nil
	}
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}
