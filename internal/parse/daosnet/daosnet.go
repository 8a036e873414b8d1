// Package daosnet reads the network devices DAOS's functional tests log
// for `dmg network scan` (src/tests/ftest/network/dmg_network_scan.py:
// "NetworkDevice(host=wolf-110, device=ib0, ib_device=None, port=1,
// provider=ofi+verbs;ofi_rxm, numa=0)"), one per interface and provider.
package daosnet

import (
	"errors"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoDevice is returned when the text holds no NetworkDevice line.
var ErrNoDevice = errors.New("no DAOS NetworkDevice(…) line found")

// Device is one NetworkDevice line.
type Device struct {
	// Line is 1-based; Text the line as read.
	Line int
	Text string
	// Host, Device (the network interface), Provider (libfabric's, as
	// DAOS names it: "ofi+verbs;ofi_rxm") and NUMA as printed.
	Host, Device, Provider, NUMA string
}

// DeviceLine reads one "NetworkDevice(key=value, …)" line.
func DeviceLine(l string) (Device, bool) {
	_, rest, ok := strings.Cut(l, "NetworkDevice(")
	if !ok {
		return Device{}, false
	}
	body, _, ok := strings.Cut(rest, ")")
	if !ok {
		return Device{}, false
	}
	d := Device{Text: strings.TrimSpace(l)}
	for _, kv := range strings.Split(body, ", ") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Device{}, false
		}
		switch strings.TrimSpace(k) {
		case "host":
			d.Host = v
		case "device":
			d.Device = v
		case "provider":
			d.Provider = v
		case "numa":
			d.NUMA = v
		}
	}
	return d, d.Device != "" && d.Provider != ""
}

// Parse reads the NetworkDevice lines; ErrNoDevice (as a parse.Error)
// when there is none.
func Parse(rd io.Reader, source string) ([]Device, error) {
	return parse.Lines(rd, source, DeviceLine, func(d *Device, n int) { d.Line = n }, ErrNoDevice)
}
