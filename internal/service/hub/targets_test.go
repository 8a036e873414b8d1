package hub

import (
	"strings"
	"testing"
)

func TestParseAgents(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     string // name=base, comma separated
		err      string
	}{
		{"host:port and comments", "# rack 1\ngpu01:9315\n\n  gpu02:9315   # spare\n", "gpu01=http://gpu01:9315,gpu02=http://gpu02:9315", ""},
		{"URL with prefix and name", "https://10.0.0.5:8443/ibdoctor/ node5\n", "node5=https://10.0.0.5:8443/ibdoctor", ""},
		{"URL default port", "http://gpu03\n", "gpu03=http://gpu03", ""},
		{"IPv6", "[fd00::1]:9315\n", "fd00::1=http://[fd00::1]:9315", ""},
		{"shared host named by port", "127.0.0.1:9001\n127.0.0.1:9002\n", "127.0.0.1:9001=http://127.0.0.1:9001,127.0.0.1:9002=http://127.0.0.1:9002", ""},
		{"no port", "gpu01\n", "", "agents.txt line 1"},
		{"bad port", "ok:9315\ngpu01:99999\n", "", "line 2"},
		{"signed port", "gpu01:+9315\n", "", "not a number from 1 to 65535"},
		{"port with leading zeros", "gpu01:09315\n", "gpu01=http://gpu01:9315", ""},
		{"same port with leading zeros", "gpu01:9315\ngpu01:09315\n", "", "already listed on line 1"},
		{"bad scheme", "ftp://gpu01:21\n", "", "http://"},
		{"query", "http://gpu01:9315/?x=1\n", "", "without user, query"},
		{"three fields", "gpu01:9315 a b\n", "", "got 3 fields"},
		{"bad name", "gpu01:9315 a/b\n", "", "node name"},
		{"bad host", "gpu_01:9315\n", "", "not an IP address or DNS name"},
		{"duplicate", "gpu01:9315\ngpu01:9315\n", "", "already listed on line 1"},
		{"duplicate names", "gpu01:9315 n\ngpu02:9315 n\n", "", "node name n is used by two agents"},
	} {
		ts, err := ParseAgents(strings.NewReader(c.in), "agents.txt")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one with %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for _, x := range ts {
			got = append(got, x.Name+"="+x.Base)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%s: got %s, want %s", c.name, strings.Join(got, ","), c.want)
		}
	}
}
