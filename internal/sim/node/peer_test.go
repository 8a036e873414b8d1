package node

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/testenv"
)

// TestNodeExporterReadsRoot points a real, independent sysfs reader at a
// simulated root: Debian's prometheus-node-exporter (prometheus/procfs
// underneath, which rejects malformed rates, states and counters and fails
// the whole collector on one bad device). Its infiniband and netclass
// collectors must succeed and report the simulated values.
func TestNodeExporterReadsRoot(t *testing.T) {
	bin := testenv.NeedTool(t, "prometheus-node-exporter")
	root := t.TempDir()
	n := mustBuild(t, Options{Faults: MustParseFaults("down:mlx5_8/1", "width:mlx5_2/1=2", "polling:mlx5_3/1", "counter:mlx5_1/1/symbol_error=1234")})
	if err := n.Write(root); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--path.sysfs="+root+"/sys", "--path.procfs="+root+"/proc",
		"--collector.disable-defaults", "--collector.infiniband", "--collector.netclass", "--web.listen-address="+addr)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	var body string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		break
	}
	if body == "" {
		t.Fatalf("node_exporter did not answer:\n%s", logs.String())
	}
	metrics := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if line := sc.Text(); !strings.HasPrefix(line, "#") {
			if i := strings.LastIndexByte(line, ' '); i > 0 {
				metrics[line[:i]] = line[i+1:]
			}
		}
	}
	_, p0, _ := n.PortRef("mlx5_0/1")
	want := map[string]string{
		`node_scrape_collector_success{collector="infiniband"}`:                       "1",
		`node_scrape_collector_success{collector="netclass"}`:                         "1",
		`node_infiniband_rate_bytes_per_second{device="mlx5_0",port="1"}`:             "5e+10",
		`node_infiniband_rate_bytes_per_second{device="mlx5_2",port="1"}`:             "2.5e+10",
		`node_infiniband_rate_bytes_per_second{device="mlx5_8",port="1"}`:             "5e+09",
		`node_infiniband_state_id{device="mlx5_3",port="1"}`:                          "1",
		`node_infiniband_physical_state_id{device="mlx5_3",port="1"}`:                 "2",
		`node_infiniband_state_id{device="mlx5_8",port="1"}`:                          "1",
		`node_infiniband_physical_state_id{device="mlx5_8",port="1"}`:                 "3",
		`node_infiniband_symbol_error_total{device="mlx5_1",port="1"}`:                "1234",
		`node_infiniband_port_data_transmitted_bytes_total{device="mlx5_0",port="1"}`: fmt.Sprintf("%g", float64(4*p0.Counters["port_xmit_data"])),
		`node_network_carrier{device="ens1f0np0"}`:                                    "0",
		`node_network_carrier{device="ibp24s0"}`:                                      "1",
		`node_network_mtu_bytes{device="ens1f1np1"}`:                                  "9000",
		`node_network_speed_bytes{device="ibp24s0"}`:                                  "5e+10",
	}
	for k, v := range want {
		if got, ok := metrics[k]; !ok || got != v {
			t.Errorf("%s = %q (present %v), want %q", k, got, ok, v)
		}
	}
	if t.Failed() {
		t.Logf("node_exporter log:\n%s", logs.String())
	}
}
