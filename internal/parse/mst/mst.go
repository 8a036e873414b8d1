// Package mst reads `mst status` and `mst status -v` of MFT (Mellanox
// Firmware Tools): the MST kernel modules and the /dev/mst devices, in the
// plain layout ("/dev/mst/mt4119_pciconf0 - PCI configuration cycles
// access." with its "domain:bus:dev.fn=…" line) and the -v table
// (DEVICE_TYPE MST PCI RDMA NET NUMA).
package mst

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ParseError is the shared parse error type.
type ParseError = parse.Error

// ErrNoStatus says the text holds no mst status section.
var ErrNoStatus = errors.New("no \"MST modules:\", \"MST devices:\" or \"PCI devices:\" section")

// Device is one /dev/mst device.
type Device struct {
	Path string
	// Type is the -v table's DEVICE_TYPE ("ConnectX5(rev:0)"), "" in
	// the plain layout.
	Type string
	// Access is the plain layout's description ("PCI configuration
	// cycles access.").
	Access    string
	PCI       string
	RDMA, Net string
	Line      int
}

// Module is one "MST PCI module is not loaded" line.
type Module struct {
	Text   string
	Loaded bool
	Line   int
}

// Status is one mst status output.
type Status struct {
	Modules []Module
	Devices []Device
	Skipped []int
}

// Header says whether t starts an mst status output.
func Header(t string) bool {
	return t == "MST modules:" || t == "MST devices:"
}

// Parse reads an mst status output.
func Parse(r io.Reader, source string) (*Status, error) {
	st := &Status{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	section := ""
	seen := false
	n := 0
	for sc.Scan() {
		n++
		t := strings.TrimSpace(sc.Text())
		switch {
		case t == "" || strings.Trim(t, "-") == "":
			continue
		case t == "MST modules:" || t == "MST devices:" || t == "PCI devices:" || t == "PCI Devices:":
			section, seen = t, true
			continue
		}
		f := strings.Fields(t)
		switch {
		case section == "MST modules:" && strings.HasPrefix(t, "MST ") && strings.Contains(t, "module"):
			st.Modules = append(st.Modules, Module{Text: t, Loaded: !strings.Contains(t, "not loaded"), Line: n})
		case strings.HasPrefix(t, "/dev/mst/"):
			path, access, _ := strings.Cut(t, " - ")
			st.Devices = append(st.Devices, Device{Path: strings.TrimSpace(path), Access: strings.TrimSpace(access), Line: n})
		case strings.HasPrefix(t, "domain:bus:dev.fn=") && len(st.Devices) > 0:
			pci, _, _ := strings.Cut(strings.TrimPrefix(t, "domain:bus:dev.fn="), " ")
			st.Devices[len(st.Devices)-1].PCI = pci
		case strings.HasPrefix(t, "Chip revision is:") && len(st.Devices) > 0:
		case len(f) > 0 && f[0] == "DEVICE_TYPE":
		case len(f) >= 3 && strings.HasPrefix(f[1], "/dev/mst/"):
			d := Device{Type: f[0], Path: f[1], PCI: f[2], Line: n}
			if len(f) > 3 {
				d.RDMA = f[3]
			}
			if len(f) > 4 {
				d.Net = f[4]
			}
			st.Devices = append(st.Devices, d)
		default:
			st.Skipped = append(st.Skipped, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	if !seen && len(st.Devices) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoStatus}
	}
	return st, nil
}
