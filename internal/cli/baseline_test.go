package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A baseline does not bless a fault: what check flags is written as the
// healthy expectation (or left out), listed on stderr, and exit 1; check
// --expect with that file still reports every fault. --accept records the
// current state for the IDs it names.
func TestBaselineRefusesFaults(t *testing.T) {
	bad := simBundle(t, "h100-ndr", "width:mlx5_2/1=2", "fw:mlx5_5=28.36.1010", "polling:mlx5_3/1", "pcie-width:mlx5_4=8")
	all := []string{
		"pcie.link_degraded critical mlx5_4",
		"port.fw_mismatch warning mlx5_5",
		"port.polling critical mlx5_3 port 1 (ibp58s0)",
		"port.width_degraded critical mlx5_2 port 1 (ibp56s0)",
	}
	tests := []struct {
		name       string
		accept     string
		code       int
		stderr     []string // substrings
		notInFile  []string
		inFile     []string
		checkAfter []string // findings of check --expect on the same node
	}{
		{name: "nothing accepted", code: 1,
			stderr: []string{
				"not recorded: 'ibdoctor check' flags it (fix it, or record it with --accept ID):",
				"port.width_degraded mlx5_2 port 1: mlx5_2 port 1 runs at 2X instead of 4X (200 Gb/s, 50% below the expected 400 Gb/s) — recorded rate: 400 Gb/sec (4X NDR)",
				"port.fw_mismatch mlx5_5: mlx5_5 runs firmware 28.36.1010 while 7 other MT4129 HCAs run 28.39.2048 — fw_ver left out",
				"port.polling mlx5_3 port 1: ",
				"— recorded state: ACTIVE, phys_state: LinkUp",
				"pcie.link_degraded mlx5_4: PCIe link of mlx5_4 (0000:",
				"— recorded pcie: the maximum both ends support"},
			notInFile:  []string{"2X NDR", "28.36.1010", "Polling", "width: 8"},
			checkAfter: all},
		{name: "the narrow link and the firmware accepted", accept: "port.width_degraded,port.fw_mismatch", code: 1,
			stderr: []string{
				"accepted (recorded as it is now, by --accept):\n",
				"  port.fw_mismatch mlx5_5: ",
				"  port.width_degraded mlx5_2 port 1: ",
				"port.polling mlx5_3 port 1: "},
			inFile: []string{`rate: 200 Gb/sec (2X NDR)`, "fw_ver: 28.36.1010"},
			checkAfter: []string{
				"pcie.link_degraded critical mlx5_4",
				"port.polling critical mlx5_3 port 1 (ibp58s0)",
			}},
		{name: "everything accepted", accept: "port.width_degraded,port.fw_mismatch,port.polling,pcie.link_degraded", code: 0,
			stderr: []string{"accepted (recorded as it is now, by --accept):"},
			inFile: []string{`rate: 200 Gb/sec (2X NDR)`, "fw_ver: 28.36.1010", `phys_state: Polling`, "width: 8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := filepath.Join(t.TempDir(), "expect.yaml")
			args := []string{"baseline", "--root", bad, "--out", exp}
			if tt.accept != "" {
				args = append(args, "--accept", tt.accept)
			}
			_, stderr, code := run(t, args...)
			if code != tt.code {
				t.Errorf("baseline exit %d, want %d\n%s", code, tt.code, stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if tt.accept == "" && strings.Contains(stderr, "accepted") || strings.Contains(stderr, "mlx5_3 port 1 is DOWN now") && !strings.Contains(tt.accept, "port.polling") {
				t.Errorf("stderr:\n%s", stderr)
			}
			data, err := os.ReadFile(exp)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.notInFile {
				if strings.Contains(string(data), s) {
					t.Errorf("baseline records %q:\n%s", s, data)
				}
			}
			for _, s := range tt.inFile {
				if !strings.Contains(string(data), s) {
					t.Errorf("baseline lacks %q:\n%s", s, data)
				}
			}
			doc, _ := checkJSON(t, "--root", bad, "--expect", exp)
			if got := findingKeys(doc); !slices.Equal(got, tt.checkAfter) {
				t.Errorf("check --expect: findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.checkAfter, "\n"))
			}
		})
	}
	if _, stderr, code := run(t, "baseline", "--root", bad, "--accept", "port.nonexistent"); code != 3 || !strings.Contains(stderr, `unknown finding ID "port.nonexistent"`) {
		t.Errorf("--accept with an unknown ID: exit %d: %s", code, stderr)
	}
}
