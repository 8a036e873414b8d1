package cli

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// canonicalGUID is the one GUID form of every output: 0x and 16 lowercase
// hex digits, as ibnetdiscover prints it, so that a host port of `status`
// or a metric label can be joined with the fabric's findings.
var canonicalGUID = regexp.MustCompile(`^0x[0-9a-f]{16}$`)

// guidValues collects the string values of every JSON key that names a
// GUID (node_guid, port_guid, sys_image_guid, ...), with their paths.
func guidValues(v any, path string, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && strings.Contains(strings.ToLower(k), "guid") {
				out[path+"."+k] = s
			}
			guidValues(e, path+"."+k, out)
		}
	case []any:
		for i, e := range x {
			guidValues(e, path+"["+strconv.Itoa(i)+"]", out)
		}
	}
}

func TestGUIDsOneForm(t *testing.T) {
	root := simRoot(t, "h100-ndr", "down:mlx5_3/1", "fw:mlx5_5=28.36.1010")
	for _, tc := range []struct {
		args []string
		min  int // GUID values the document must hold, so the test can fail
	}{
		{[]string{"status", "--root", root, "--format", "json"}, 16},
		{[]string{"check", "--root", root, "--format", "json"}, 0},
		{[]string{"fabric", "check", "--from", "../rules/fabric/testdata/spineleaf", "--format", "json"}, 1},
	} {
		stdout, stderr, _ := run(t, tc.args...)
		var doc any
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%v: %v (stderr %s)", tc.args, err, stderr)
		}
		got := map[string]string{}
		guidValues(doc, "", got)
		if len(got) < tc.min {
			t.Errorf("%v: %d GUID values, want at least %d", tc.args, len(got), tc.min)
		}
		for k, v := range got {
			if !canonicalGUID.MatchString(v) {
				t.Errorf("%v: %s = %q, want 0x + 16 lowercase hex digits", tc.args, k, v)
			}
		}
	}
}
