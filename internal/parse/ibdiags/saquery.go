package ibdiags

import (
	"io"
	"strconv"
	"strings"
)

// SMPort is one PortInfoRecord of `saquery -s` (the ports with the IsSM
// capability, i.e. where a subnet manager runs).
type SMPort struct {
	EndPortLID int `json:"end_port_lid"`
	PortNum    int `json:"port_num"`
	BaseLID    int `json:"base_lid"`
	// MasterSMLID is the LID of the master SM as this port knows it.
	MasterSMLID int    `json:"master_sm_base_lid"`
	CapMask     uint64 `json:"capability_mask"`
	// Disabled is set for records under "IsSMdisabled ports".
	Disabled bool `json:"disabled,omitempty"`
	Line     int  `json:"line"`
}

// ParseSMPorts parses `saquery -s` output.
func ParseSMPorts(r io.Reader, src string) ([]SMPort, error) {
	var out []SMPort
	disabled := false
	sections := 0
	err := scanLines(r, src, func(n int, raw string) error {
		line := strings.TrimSpace(raw)
		switch {
		case line == "":
			return nil
		case line == "IsSM ports":
			disabled = false
			sections++
			return nil
		case line == "IsSMdisabled ports":
			disabled = true
			sections++
			return nil
		case line == "PortInfoRecord dump:":
			if sections == 0 {
				return perr(src, n, raw, `record before "IsSM ports"`)
			}
			out = append(out, SMPort{Disabled: disabled, Line: n, EndPortLID: -1, BaseLID: -1, MasterSMLID: -1})
			return nil
		}
		name, val, ok := strings.Cut(line, ".")
		if !ok || len(out) == 0 {
			return perr(src, n, raw, `want "IsSM ports", "PortInfoRecord dump:" or "Field....value"`)
		}
		val = strings.TrimLeft(val, ".")
		var v uint64
		var err error
		if h, ok := strings.CutPrefix(val, "0x"); ok {
			v, err = strconv.ParseUint(h, 16, 64)
		} else {
			v, err = strconv.ParseUint(val, 10, 64)
		}
		if err != nil {
			return perr(src, n, raw, "bad %s value %q", name, val)
		}
		p := &out[len(out)-1]
		switch name {
		case "EndPortLid", "base_lid", "master_sm_base_lid":
			if v > 0xffff {
				return perr(src, n, raw, "%s %d out of range", name, v)
			}
		case "PortNum":
			if v > 255 {
				return perr(src, n, raw, "PortNum %d out of range", v)
			}
		}
		switch name {
		case "EndPortLid":
			p.EndPortLID = int(v)
		case "PortNum":
			p.PortNum = int(v)
		case "base_lid":
			p.BaseLID = int(v)
		case "master_sm_base_lid":
			p.MasterSMLID = int(v)
		case "capability_mask":
			p.CapMask = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if sections == 0 {
		return nil, noData(src, `"IsSM ports" section`)
	}
	return out, nil
}
