package ucxinfo

import (
	"errors"
	"strings"
	"testing"
)

// ucx_info -p -e -u t of UCX 1.10 (HPC-X 2.8) on a host where UCX found no
// verbs device (openucx/ucx#7245).
const context = `#
# UCP context
#
#     component 0  :  posix
#     component 3  :  tcp
#
#            md 0  :  component 0  posix 
#            md 3  :  component 3  tcp 
#
#      resource 0  :  md 0  dev 0  flags -- posix/memory
#      resource 3  :  md 3  dev 1  flags -- tcp/ib0
#      resource 5  :  md 4  dev 3  flags -s sockcm/sockaddr
#
# memory: 0.42MB, file descriptors: 1
`

// ucx_info -d of UCX 1.12 on a ConnectX port (openucx/ucx#7960).
const devices = `#       device address: 6 bytes
#       error handling: peer failure, ep_check, keepalive
#
# Memory domain: mlx5_0
#     Component: ib
#             register: unlimited, cost: 180 nsec
#           remote key: 8 bytes
#
#      Transport: rc_verbs
#         Device: mlx5_0:1
#           Type: network
#  System device: mlx5_0 (0)
#
#      capabilities:
#            bandwidth: 23588.47/ppn + 0.00 MB/sec
#              latency: 600 + 1.000 * N nsec
#
#      Transport: rc_mlx5
#         Device: mlx5_1:1
#   < failed to open interface >
`

func TestParse(t *testing.T) {
	l, err := Parse(strings.NewReader(context), "p")
	if err != nil {
		t.Fatal(err)
	}
	if !l.Context || len(l.MDs) != 2 || len(l.Transports) != 3 || l.Transports[1] != (Transport{Name: "tcp", Device: "ib0", Line: 11}) || l.Transports[2].Name != "sockcm" {
		t.Errorf("context %+v", l)
	}
	l, err = Parse(strings.NewReader(devices), "d")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.MDs) != 1 || l.MDs[0] != (MD{Name: "mlx5_0", Component: "ib", Line: 4}) {
		t.Errorf("mds %+v", l.MDs)
	}
	if len(l.Transports) != 2 || l.Transports[0] != (Transport{Name: "rc_verbs", Device: "mlx5_0:1", Line: 9}) ||
		l.Transports[1].Failed != "< failed to open interface >" {
		t.Errorf("transports %+v", l.Transports)
	}
	if len(l.Failures) != 1 || l.Failures[0].Line != 20 {
		t.Errorf("failures %+v", l.Failures)
	}
	l, err = Parse(strings.NewReader("# Library version: 1.10.1\n# Library path: /opt/ucx/lib/libucs.so.0\n"), "v")
	if err != nil || l.Version != "1.10.1" {
		t.Errorf("version %+v %v", l, err)
	}
	if _, err := Parse(strings.NewReader("# OSU MPI Bandwidth Test v5.6.2\n# Size      Bandwidth (MB/s)\n"), "x"); !errors.Is(err, ErrNoListing) {
		t.Errorf("no listing: %v", err)
	}
}

func TestLines(t *testing.T) {
	for _, tt := range []struct {
		line           string
		header, member bool
	}{
		{"# Memory domain: mlx5_0", true, true},
		{"# UCP context", true, false},
		{"# Connection manager: tcp", true, true},
		{"#      Transport: rc_verbs", true, true},
		{"# Library version: 1.10.1", true, true},
		{"#       error handling: peer failure, ep_check, keepalive", false, true},
		{"#            bandwidth: 23588.47/ppn + 0.00 MB/sec", false, true},
		{"#      resource 3  :  md 3  dev 1  flags -- tcp/ib0", false, true},
		{"#   < failed to open interface >", false, true},
		{"# Size      Bandwidth (MB/s)", false, false},
		{"# OSU MPI Bandwidth Test v5.6.2", false, false},
		{"# Type: something else", false, false},
		{"#  nThread 1 nGpus 1 minBytes 8", false, false},
		{"error handling: peer failure", false, false},
	} {
		if h := Header(strings.TrimSpace(tt.line)); h != tt.header {
			t.Errorf("Header(%q) = %v", tt.line, h)
		}
		if m := Line(tt.line); m != tt.member {
			t.Errorf("Line(%q) = %v", tt.line, m)
		}
	}
}

func TestRDMA(t *testing.T) {
	for name, want := range map[string]bool{"rc_verbs": true, "rc_mlx5": true, "ud_verbs": true, "dc_mlx5": true, "ib": true, "rdmacm": true, "ugni_rdma": true,
		"tcp": false, "posix": false, "sysv": false, "self": false, "cma": false, "knem": false, "sockcm": false, "cuda_copy": false} {
		if RDMA(name) != want {
			t.Errorf("RDMA(%q) = %v", name, !want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(context)
	f.Add(devices)
	f.Add("#      resource 0  :  md 0  dev 0  flags -- /\n#         Device: x\n#   < failed to query interface >")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Parse(strings.NewReader(s), "f")
		_ = Line(s)
		_ = Header(s)
	})
}
