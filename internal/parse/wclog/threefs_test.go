package wclog

import (
	"strings"
	"testing"
)

// TestPortAddrLine: 3FS's IBDevice.cc lines (deepseek-ai/3FS
// src/common/net/ib/IBDevice.cc) from mgmtd in Docker (3FS issue 98) and
// the other wordings of the same source, and lines not read.
func TestPortAddrLine(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"IBDevice.cc:386 WARNING] IfAddr of mlx5_0:1 -> Bond0 not found, maybe running in container!", "mlx5_0:1 Bond0"},
		{"Mar 13 11:10:09 localhost.localdomain mgmtd_main[32]: [2025-03-13T11:10:09.437726968+00:00 mgmtd_main:   32 IBDevice.cc:441 CRITICAL] IBDevice mlx5_0:1 can't set zone by IP, fallback to UNKNOWN", "mlx5_0:1  zone"},
		{"[2025-03-13T11:10:09.437726968+00:00 storage_main:   32 IBDevice.cc:467 WARNING] IBDevice mlx5_1:1's netdev is unknown, maybe running in container.", "mlx5_1:1 "},
		{"[2025-03-13T11:10:09.437726968+00:00 storage_main:   32 IBDevice.cc:438 CRITICAL] IBDevice mlx5_1:1's zone is unknown!!!", "mlx5_1:1  zone fatal"},
		{"[2025-03-13T11:10:09.437726968+00:00 storage_main:   32 IBDevice.cc:136 ERROR] mlx5_2:1 RoCE v2 GID not found", "mlx5_2:1  fatal"},
		{"Mar 13 11:10:09 localhost.localdomain mgmtd_main[32]: [2025-03-13T11:10:09.437778035+00:00 mgmtd_main:   32 IBDevice.cc:256 INFO] IBDevice add mlx5_0, id 0, 1 available ports", ""},
		{"IfAddr of eth0 not found!!", ""},
		{"IBDevice foo:1 can't set zone by IP, fallback to UNKNOWN", ""},
	} {
		p, ok := PortAddrLine(tc.line)
		got := ""
		if ok {
			got = p.Device + " " + p.Netdev
			if p.Zone {
				got += " zone"
			}
			if p.Fatal {
				got += " fatal"
			}
		}
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.line, got, tc.want)
		}
		if ok && (!Hint(tc.line) || !DetectLine(tc.line)) {
			t.Errorf("%q: read but not detected", tc.line)
		}
	}
	lg, err := Parse(strings.NewReader("IBDevice.cc:386 WARNING] IfAddr of mlx5_0:1 -> Bond0 not found, maybe running in container!\nIBDevice.cc:256 INFO] IBDevice add mlx5_0, id 0, 1 available ports\n"), "p")
	if err != nil || len(lg.PortAddrs) != 1 || lg.PortAddrs[0].Line != 1 {
		t.Fatalf("Parse: %v %v", lg, err)
	}
}
