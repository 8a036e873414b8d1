package sim

import (
	"strings"
	"testing"
)

func TestTriageFaults(t *testing.T) {
	n, err := Build(Options{Profile: "h100-ndr", Host: "gpu017", Faults: MustParseFaults(
		"module-event:mlx5_2=high-temp", "module-event:mlx5_2=unplugged", "mlx5-health:mlx5_3",
		"environ:4242/NCCL_IB_HCA=mlx5_1", "environ:4242/NCCL_IB_HCA==mlx5_0", "environ:4242/NCCL_DEBUG=INFO",
		"memlock:4242=65536", "memlock:self=unlimited")})
	if err != nil {
		t.Fatal(err)
	}
	addr := string(n.Device("mlx5_2").PCI.Addr)
	log := n.dmesg()
	for _, want := range []string{
		"mlx5_core " + addr + ": mlx5_port_module_event:1101:(pid 0): Port module event[error]: module 0, Cable error, High Temperature",
		"mlx5_core " + addr + ": Port module event: module 0, Cable unplugged",
		"device's health compromised - reached miss count",
		"ACCESS_REG(0x805) timeout. Will cause a leak of a command resource",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("kernel log lacks %q", want)
		}
	}
	if got := string(n.Files["proc/4242/environ"]); got != "NCCL_IB_HCA==mlx5_0\x00NCCL_DEBUG=INFO\x00" {
		t.Errorf("environ = %q", got)
	}
	lim := string(n.Files["proc/4242/limits"])
	if !strings.Contains(lim, "Max locked memory         65536                65536                bytes     \n") {
		t.Errorf("limits:\n%s", lim)
	}
	if !strings.Contains(string(n.Files["proc/self/limits"]), "Max locked memory         unlimited            unlimited") {
		t.Error("self limits not written")
	}
	for _, bad := range []string{"module-event:mlx5_2=melted", "environ:x/NCCL_IB_HCA=1", "environ:42=1", "memlock:0=5", "memlock:42=lots", "mlx5-health:mlx5_2=1"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("ParseFault(%q) accepted", bad)
		}
	}
	if _, err := Build(Options{Profile: "h100-ndr", Faults: MustParseFaults("mlx5-health:mlx5_99")}); err == nil {
		t.Error("health fault on a missing device accepted")
	}
}
