package portinfo

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/portinfo"
)

// dump lays out a PortInfo dump as smpquery does (dots to column 33).
func dump(lid, port int, kv ...string) string {
	var b strings.Builder
	b.WriteString("# Port info: Lid " + itoa(lid) + " port " + itoa(port) + "\n")
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i] + ":"
		b.WriteString(k + strings.Repeat(".", max(1, 33-len(k))) + kv[i+1] + "\n")
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+"/"+string(f.Severity))
	}
	return out
}

func TestCheck(t *testing.T) {
	hdr := []string{"LinkWidthEnabled", "1X or 4X", "LinkWidthSupported", "1X or 4X", "LinkSpeedSupported", "2.5 Gbps or 5.0 Gbps or 10.0 Gbps", "LinkSpeedEnabled", "2.5 Gbps or 5.0 Gbps or 10.0 Gbps",
		"LinkSpeedExtSupported", "14.0625 Gbps or 25.78125 Gbps or 53.125 Gbps", "LinkSpeedExtEnabled", "14.0625 Gbps or 25.78125 Gbps or 53.125 Gbps"}
	port := func(state, phys, width, speed, ext string, more ...string) string {
		kv := append([]string{"LinkState", state, "PhysLinkState", phys, "LinkWidthActive", width, "LinkSpeedActive", speed, "LinkSpeedExtActive", ext}, hdr...)
		return dump(5, 1, append(kv, more...)...)
	}
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"HDR 4X healthy", port("Active", "LinkUp", "4X", "Extended speed", "53.125 Gbps", "NeighborMTU", "4096", "MtuCap", "4096"), nil},
		{"polling", port("Down", "Polling", "4X", "2.5 Gbps", "No Extended Speed"), []string{"port.polling/critical"}},
		{"numbered states", port("1: Down", "3: Disabled", "4X", "2.5 Gbps", "No Extended Speed"), []string{"port.disabled/critical"}},
		{"init without SM", port("Initialize", "LinkUp", "4X", "Extended speed", "53.125 Gbps"), []string{"port.init_no_sm/critical"}},
		{"1X of 4X", port("Active", "LinkUp", "1X", "Extended speed", "53.125 Gbps"), []string{"port.width_degraded/warning"}},
		{"EDR on an HDR port", port("Active", "LinkUp", "4X", "Extended speed", "25.78125 Gbps"), []string{"port.speed_degraded/warning"}},
		{"MTU below its cap", port("Active", "LinkUp", "4X", "Extended speed", "53.125 Gbps", "NeighborMTU", "2048", "MtuCap", "4096"), []string{"port.ib_mtu_reduced/warning"}},
		{"before and after: the later dump is judged", "Initial CA/RT PortInfo:\n" + port("Down", "Polling", "4X", "2.5 Gbps", "No Extended Speed") + "\nAfter PortInfo set:\n" + port("Active", "LinkUp", "4X", "Extended speed", "53.125 Gbps"), nil},
		{"peer dump judged apart", "Switch PortInfo:\n" + port("Active", "LinkUp", "4X", "Extended speed", "53.125 Gbps") + "Peer PortInfo:\n" + port("Active", "LinkUp", "1X", "Extended speed", "53.125 Gbps"), []string{"port.width_degraded/warning"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := portinfo.Parse(strings.NewReader(tc.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(Check(res, "p.txt").Findings); !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCheckRealSamples(t *testing.T) {
	for _, tc := range []struct {
		file    string
		want    []string
		summary string
	}{
		{"ibportstate-fdr-query-heioy.txt", nil, ""},
		// FDR10 (MLNX ext LinkSpeedActive 0x01) on a port with FDR and EDR
		// enabled and supported.
		{"ibportstate-qdr-on-edr-port-width-heioy.txt", []string{"port.speed_degraded/warning"}, "10.3125 Gb/s while the port has 25.78125 Gb/s"},
	} {
		b, err := os.ReadFile(filepath.Join("..", "..", "parse", "portinfo", "testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := portinfo.Parse(strings.NewReader(string(b)), tc.file)
		if err != nil {
			t.Fatal(err)
		}
		r := Check(res, tc.file)
		if got := ids(r.Findings); !slices.Equal(got, tc.want) || tc.summary != "" && !strings.Contains(r.Findings[0].Summary, tc.summary) {
			t.Errorf("%s: %v %+v, want %v", tc.file, got, r.Findings, tc.want)
		}
	}
}
