package hcatext

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ibv_devices (rdma-core libibverbs/examples/device_list.c main) prints
// the devices ibv_get_device_list returns, one a row under a two-line
// header:
//
//	printf("    %-16s\t   node GUID\n", "device");
//	printf("    %-16s\t----------------\n", "------");
//	printf("    %-16s\t%016llx\n", name, guid);
//
// With no device it prints the header alone and exits 0; when the list
// cannot be read it prints "Failed to get IB devices list: …" instead
// (see ToolErrVerbsList).

// ErrNoDevicesTable says the text holds no ibv_devices header.
var ErrNoDevicesTable = errors.New("no ibv_devices header (\"device  node GUID\")")

// VerbsDevice is one row of ibv_devices: a device user space can see.
type VerbsDevice struct {
	Name string `json:"name"`
	GUID string `json:"node_guid"`
	Line int    `json:"line"`
}

// DeviceList is one ibv_devices output.
type DeviceList struct {
	// Header is the "device  node GUID" line; Complete says the rule of
	// dashes under it was printed too (so an empty list is the tool's
	// own, not a paste cut after the header).
	Header   Line
	Complete bool
	Devices  []VerbsDevice
	// After are the non-blank lines below the table (the poster's notes,
	// the next command line): not ibv_devices' output.
	After []int
}

// IsDevicesHeader says whether t (trimmed) is ibv_devices' column header,
// "device  node GUID" (its tab expanded or not).
func IsDevicesHeader(t string) bool {
	if !strings.HasPrefix(t, "device") || !strings.HasSuffix(t, "GUID") {
		return false
	}
	f := strings.Fields(t)
	return len(f) == 3 && f[0] == "device" && f[1] == "node" && f[2] == "GUID"
}

// isDevicesRule matches the header's second line, "------  ----------------".
func isDevicesRule(t string) bool {
	f := strings.Fields(t)
	return len(f) == 2 && f[0] == "------" && strings.Trim(f[1], "-") == "" && len(f[1]) >= 8
}

// devicesRow reads "mlx5_0              88e9a4ffffa746e6".
func devicesRow(t string) (VerbsDevice, bool) {
	f := strings.Fields(t)
	if len(f) != 2 || len(f[1]) != 16 {
		return VerbsDevice{}, false
	}
	for i := 0; i < len(f[1]); i++ {
		c := f[1][i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return VerbsDevice{}, false
		}
	}
	for i := 0; i < len(f[0]); i++ {
		// Device names are kernel names: letters, digits, '_', '-', '.'.
		c := f[0][i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-' || c == '.') {
			return VerbsDevice{}, false
		}
	}
	return VerbsDevice{Name: f[0], GUID: strings.ToLower(f[1])}, true
}

// ParseDevices reads an ibv_devices output: its header, then the rows
// up to the first line that is not one (a blank line ends the table).
// Lines above the header are passed over; lines below the table are
// listed in After.
func ParseDevices(r io.Reader, source string) (*DeviceList, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	out := &DeviceList{}
	const (
		before = iota
		rule   // the header read, its dashes next
		rows
		after
	)
	state := before
	n := 0
	for sc.Scan() {
		n++
		t := strings.TrimSpace(sc.Text())
		switch state {
		case before:
			if IsDevicesHeader(t) {
				out.Header = Line{N: n, Text: t}
				state = rule
			}
			continue
		case rule:
			if isDevicesRule(t) {
				out.Complete = true
				state = rows
				continue
			}
			state = rows // the rule lost in the paste: rows may follow
		}
		if state == rows {
			if d, ok := devicesRow(t); ok {
				d.Line = n
				out.Devices = append(out.Devices, d)
				continue
			}
			state = after
		}
		if t != "" {
			out.After = append(out.After, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Line: n + 1, Err: err}
	}
	if out.Header.N == 0 {
		return nil, &parse.Error{Source: source, Err: ErrNoDevicesTable}
	}
	return out, nil
}
