// Package amdsmi reads the NIC part of AMD SMI's `amd-smi static` output
// (ROCm amdsmi, amdsmi_cli): for an AMD Pensando AI NIC (driver ionic),
// each Ethernet port under "PORTS:" ("PORT_0:" with NETDEV, CARRIER,
// LINK_STATE, LINK_SPEED) and each RDMA device under "RDMA_DEVICES:"
// ("RDMA_DEVICE_0:" with NAME, and its "PORT_0:" with NETDEV, PORT_NUM,
// STATE). The output is indented "KEY: value" lines, one block per key
// that ends in a colon, as amd-smi prints its human-readable view.
package amdsmi

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoData says the text holds no NIC port nor RDMA device block.
var ErrNoData = errors.New("no amd-smi PORTS: or RDMA_DEVICES: block")

// Port is one Ethernet port of a NIC ("PORTS:" / "PORT_0:").
type Port struct {
	// NetDev is the interface ("enp229s0"); Carrier its CARRIER ("0",
	// "1"); LinkState its LINK_STATE ("up", "down"); Speed its LINK_SPEED
	// ("0 Mb/s").
	NetDev, Carrier, LinkState, Speed string
	// Line is the 1-based line of LINK_STATE (else of the block's
	// header), Text that line.
	Line int
	Text string
}

// Down says whether the port has no link: LINK_STATE down or CARRIER 0.
func (p Port) Down() bool {
	return strings.EqualFold(p.LinkState, "down") || p.Carrier == "0"
}

// RDMAPort is one port of an RDMA device ("RDMA_DEVICES:" /
// "RDMA_DEVICE_0:" / "PORT_0:").
type RDMAPort struct {
	// Device is the RDMA device's NAME ("rocep229s0"), NetDev the port's
	// NETDEV, Port its PORT_NUM (1-based, 0 when not printed) and State
	// its STATE ("ACTIVE", "DOWN").
	Device, NetDev string
	Port           int
	State          string
	// Line is the 1-based line of STATE (else of the block's header),
	// Text that line.
	Line int
	Text string
}

// Output is what one amd-smi output holds.
type Output struct {
	Ports []Port
	RDMA  []RDMAPort
}

// Header says whether t (a trimmed line) and the trimmed line after it
// start a NIC port or RDMA device list: "PORTS:" then "PORT_0:", or
// "RDMA_DEVICES:" then "RDMA_DEVICE_0:".
func Header(t, next string) bool {
	return t == "PORTS:" && strings.HasPrefix(next, "PORT_") && strings.HasSuffix(next, ":") ||
		t == "RDMA_DEVICES:" && strings.HasPrefix(next, "RDMA_DEVICE_") && strings.HasSuffix(next, ":")
}

// frame is one open block: its key and the indent of its header.
type frame struct {
	key    string
	indent int
}

// Parse reads an amd-smi output; lines that are no "KEY:" or "KEY:
// value" line are skipped.
func Parse(r io.Reader, source string) (*Output, error) {
	out := &Output{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	var stack []frame
	var port *Port
	var rport *RDMAPort
	device := ""
	n := 0
	for sc.Scan() {
		n++
		raw := strings.TrimRight(sc.Text(), " \t\r")
		t := strings.TrimLeft(raw, " \t")
		if t == "" {
			continue
		}
		indent := len(raw) - len(t)
		key, val, ok := strings.Cut(t, ":")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			continue
		}
		val = strings.TrimSpace(val)
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		if val == "" {
			stack = append(stack, frame{key, indent})
			port, rport = nil, nil
			switch {
			case under(stack, "RDMA_DEVICES") && parent(stack) == "RDMA_DEVICES" && strings.HasPrefix(key, "RDMA_DEVICE_"):
				device = ""
			case under(stack, "RDMA_DEVICES") && strings.HasPrefix(key, "PORT_") && strings.HasPrefix(parent(stack), "RDMA_DEVICE_"):
				out.RDMA = append(out.RDMA, RDMAPort{Device: device, Line: n, Text: t})
				rport = &out.RDMA[len(out.RDMA)-1]
			case parent(stack) == "PORTS" && strings.HasPrefix(key, "PORT_"):
				out.Ports = append(out.Ports, Port{Line: n, Text: t})
				port = &out.Ports[len(out.Ports)-1]
			}
			continue
		}
		if len(stack) == 0 {
			continue
		}
		top := stack[len(stack)-1].key
		switch {
		case rport != nil && strings.HasPrefix(top, "PORT_"):
			switch key {
			case "NETDEV":
				rport.NetDev = val
			case "PORT_NUM":
				rport.Port, _ = strconv.Atoi(val)
			case "STATE":
				rport.State, rport.Line, rport.Text = val, n, t
			}
		case port != nil && strings.HasPrefix(top, "PORT_"):
			switch key {
			case "NETDEV":
				port.NetDev = val
			case "CARRIER":
				port.Carrier = val
			case "LINK_STATE":
				port.LinkState, port.Line, port.Text = val, n, t
			case "LINK_SPEED":
				port.Speed = val
			}
		case strings.HasPrefix(top, "RDMA_DEVICE_") && key == "NAME":
			device = val
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Line: n + 1, Err: err}
	}
	if len(out.Ports) == 0 && len(out.RDMA) == 0 {
		return nil, &parse.Error{Source: source, Line: 1, Err: ErrNoData}
	}
	return out, nil
}

// under says whether a block named key is open.
func under(stack []frame, key string) bool {
	for _, f := range stack {
		if f.key == key {
			return true
		}
	}
	return false
}

// parent is the key of the block above the innermost one.
func parent(stack []frame) string {
	if len(stack) < 2 {
		return ""
	}
	return stack[len(stack)-2].key
}
