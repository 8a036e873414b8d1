package kmsg

import (
	"strings"
	"testing"
)

func TestDetectLine(t *testing.T) {
	for line, want := range map[string]bool{
		"[   12.345678] mlx5_core 0000:17:00.0: mlx5_port_module_event:1131:(pid 0): Port module event: module 0, Cable unplugged": true,
		"[Tue Mar  5 10:11:12 2024] NVRM: Xid (PCI:0000:18:00): 79, pid=0, GPU has fallen off the bus.":                            true,
		"Mar 05 10:11:12 gpu017 kernel: mlx5_core 0000:17:00.0 ens1f0np0: Link down":                                               true,
		"6,1234,5678901,-;mlx5_core 0000:17:00.0: Port module event":                                                               true,
		// dmesg --decode --time-format iso (gpud's testdata dmesg.decode.iso.log), and -x without a stamp.
		"kern  :warn  : 2025-01-21T04:41:44,285060+00:00 pt_main_thread[2536443]: segfault at 7f797fe00000 ip 00007f7c7ac69996 sp 00007f7c12fd7c30 error 4 in libnccl.so.2[7f7c7ac00000+d3d3000]": true,
		"kern  :err   : mlx5_core 0000:17:00.0: poll_health": true,
		"user  :info  : hello":                               true,
		"kernel: not a facility":                             false,
		// A syslog line pasted without its date and host (pastebin.com/0YdwcUqR, analyze testdata/realworld-fresh17).
		"kernel: [ 13.231617] pcieport 0000:00:1c.0: AER: Corrected error received: id=00e0": true,
		"kernel: 5.15.0-91-generic": false,
		"kern: no level":            false,
		"CA 'mlx5_0'":               false,
		"        Rate: 200":         false,
		"gpu1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>": false,
		"": false,
	} {
		if got := DetectLine(line); got != want {
			t.Errorf("DetectLine(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestSyslogTagOnlyEvents: a paste of syslog lines cut to "kernel: " and the
// dmesg stamp, one AER detail line wrapped (pastebin.com/0YdwcUqR, analyze
// testdata/realworld-fresh17), gives the root port's corrected AER events.
func TestSyslogTagOnlyEvents(t *testing.T) {
	in := "kernel: [ 13.231617] pcieport 0000:00:1c.0: AER: Corrected error received: id=00e0\n" +
		"kernel: [ 13.231627] pcieport 0000:00:1c.0: PCIe Bus Error: severity=Corrected, type=Physical Layer,\n" +
		"id=00e0(Receiver ID)\n" +
		"kernel: [ 13.231630] pcieport 0000:00:1c.0: device [8086:9d14] error status/mask=00000001/00002000\n"
	l, err := ParseText(strings.NewReader(in), "paste", TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range Events(l.Records) {
		if e.Kind == KindAER {
			got = append(got, string(e.PCI)+" "+e.AERSeverity)
		}
	}
	want := []string{"0000:00:1c.0 " + AERCorrectable, "0000:00:1c.0 " + AERCorrectable}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("AER events %v, want %v", got, want)
	}
}
