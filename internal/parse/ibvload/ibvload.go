// Package ibvload reads the result lines of ibv_generate_infiniband_test_load
// (github.com/Chester-Gillon/ibv_message_passing): a verbs program that
// drives RDMA writes between the ports of HCAs, checks the received data
// and prints, per device,
//
//	mlx4_0 rx_buffer compare : PASS
//	mlx4_0 port 1 -> 2 RDMA write transmitted 1218428534784 bytes in 728.260808 seconds, 1673.1 Mbytes/sec
//	mlx4_0 port 1 transmitted 1225600488532 bytes in 728.260808 seconds, 1682.9 Mbytes/sec
//	mlx4_0 port 1 received 1225600488504 bytes in 728.260808 seconds, 1682.9 Mbytes/sec
package ibvload

import (
	"strconv"
	"strings"
)

// Compare is a "rx_buffer compare" line.
type Compare struct {
	Line   int    `json:"line"`
	Device string `json:"device"`
	Pass   bool   `json:"pass"`
	Result string `json:"result"`
}

// Rate is a throughput line.
type Rate struct {
	Line   int     `json:"line"`
	Device string  `json:"device"`
	What   string  `json:"what"` // "port 1 -> 2 RDMA write transmitted", "port 1 received" …
	MBs    float64 `json:"mbytes_per_sec"`
}

// ParseCompare reads "mlx4_0 rx_buffer compare : PASS".
func ParseCompare(l string) (Compare, bool) {
	dev, rest, ok := strings.Cut(strings.TrimSpace(l), " rx_buffer compare : ")
	if !ok || dev == "" || strings.ContainsAny(dev, " \t") {
		return Compare{}, false
	}
	res := strings.TrimSpace(rest)
	if res == "" || strings.ContainsAny(res, " \t") {
		return Compare{}, false
	}
	return Compare{Device: dev, Pass: res == "PASS", Result: res}, true
}

// ParseRate reads a "… bytes in S seconds, X Mbytes/sec" line.
func ParseRate(l string) (Rate, bool) {
	t := strings.TrimSpace(l)
	if !strings.HasSuffix(t, " Mbytes/sec") {
		return Rate{}, false
	}
	f := strings.Fields(t)
	n := len(f)
	if n < 10 || f[1] != "port" || f[n-6] != "bytes" || f[n-5] != "in" || f[n-3] != "seconds," {
		return Rate{}, false
	}
	mbs, err := strconv.ParseFloat(f[n-2], 64)
	if err != nil || mbs < 0 || mbs != mbs || mbs > 1e300 {
		return Rate{}, false
	}
	return Rate{Device: f[0], What: strings.Join(f[1:n-7], " "), MBs: mbs}, true
}
