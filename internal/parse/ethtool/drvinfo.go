package ethtool

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// DrvInfo is one block of `ethtool -i <netdev>` (ethtool.c
// dump_drvinfo: "driver: %s", "version: %s", "firmware-version: %s",
// "expansion-rom-version: %s", "bus-info: %s", then the supports-*
// lines), from the ETHTOOL_GDRVINFO ioctl or the netlink equivalent.
type DrvInfo struct {
	Driver   string `json:"driver"`           // "mlx5_core[ib_ipoib]" (an IPoIB netdev names its ULP)
	Version  string `json:"version"`          // the driver's version, the kernel release for in-tree drivers
	Firmware string `json:"firmware_version"` // "20.40.1000 (MT_0000000224)": the version and the PSID
	BusInfo  string `json:"bus_info"`         // "0000:81:00.0"
	Line     int    `json:"line"`             // of the driver: line
}

// drvInfoKeys are the fields dump_drvinfo prints.
var drvInfoKeys = map[string]bool{
	"driver": true, "version": true, "firmware-version": true, "expansion-rom-version": true, "bus-info": true,
	"supports-statistics": true, "supports-test": true, "supports-eeprom-access": true,
	"supports-register-dump": true, "supports-priv-flags": true,
}

// ParseDrvInfo reads the blocks of `ethtool -i` in r (line numbers from
// 1), one per "driver:" line; other lines (the command line, a prompt)
// are skipped. A field line before any driver: line is an error naming
// it; no block at all is ErrNoData.
func ParseDrvInfo(r io.Reader, source string) ([]DrvInfo, error) {
	var out []DrvInfo
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		key, val, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !drvInfoKeys[key] {
			continue
		}
		val = strings.TrimSpace(val)
		if key == "driver" {
			out = append(out, DrvInfo{Driver: val, Line: n})
			continue
		}
		if len(out) == 0 {
			return nil, &ParseError{Source: source, Line: n, Input: line, Err: fmt.Errorf("ethtool -i field %q before its driver: line", key)}
		}
		d := &out[len(out)-1]
		switch key {
		case "version":
			d.Version = val
		case "firmware-version":
			d.Firmware = val
		case "bus-info":
			d.BusInfo = val
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", source, ErrNoData)
	}
	return out, nil
}
