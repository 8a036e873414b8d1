package node

import (
	"strings"
	"testing"
)

func TestTriageFaults(t *testing.T) {
	n, err := Build(Options{Profile: "h100-ndr", Host: "gpu017", Faults: MustParseFaults(
		"module-event:mlx5_2=high-temp", "module-event:mlx5_2=unplugged", "mlx5-health:mlx5_3")})
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
	for _, bad := range []string{"module-event:mlx5_2=melted", "module-event=high-temp", "mlx5-health:mlx5_2=1"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("ParseFault(%q) accepted", bad)
		}
	}
	if _, err := Build(Options{Profile: "h100-ndr", Faults: MustParseFaults("mlx5-health:mlx5_99")}); err == nil {
		t.Error("health fault on a missing device accepted")
	}
}
