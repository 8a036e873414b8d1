package kmsg

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

func readLog(t testing.TB, name string) *Log {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var l *Log
	if strings.HasPrefix(name, "kmsg-") {
		l, err = ParseKmsg(bytes.NewReader(b), name)
	} else {
		l, err = ParseText(bytes.NewReader(b), name, TextOptions{Year: 2024})
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return l
}

// brief is an event reduced to what the corpus table asserts.
type brief struct {
	Kind   Kind
	PCI    pcie.Address
	Detail string
}

func briefs(evs []Event) []brief {
	var out []brief
	for _, e := range evs {
		b := brief{Kind: e.Kind, PCI: e.PCI}
		switch e.Kind {
		case KindXid:
			b.Detail = strconv.Itoa(e.Xid) + ","
		case KindAER:
			b.Detail = e.AERSeverity
			if e.AERDetail {
				b.Detail += "/detail"
			} else {
				b.Detail += "/from " + string(e.Reporter)
			}
		case KindLink:
			b.Detail = e.Interface + " down"
			if e.Up {
				b.Detail = e.Interface + " up"
			}
		case KindModule, KindHealth, KindFallenOffBus, KindAERBit:
			b.Detail = e.Detail
		case KindPCIeBandwidth:
			b.Detail = e.LimitedBy + " at " + string(e.LimitedAt) + ", capable of " + e.CapableOf
		}
		out = append(out, b)
	}
	return out
}

func TestCorpus(t *testing.T) {
	tests := []struct {
		file    string
		records int
		want    []brief
	}{
		{"dmesg-aer-old.txt", 16, []brief{
			{KindAERBit, "0000:00:1c.5", "Receiver Error"},
			{KindAER, "0000:00:1c.5", "correctable/from 0000:00:1c.5"},
			{KindAER, "0000:00:1c.5", "correctable/from 0000:00:1c.5"},
			{KindAER, "0000:00:1c.5", "correctable/detail"},
			{KindAERBit, "0000:00:1c.5", "Receiver Error"},
			{KindAER, "0000:00:1c.5", "correctable/from 0000:00:1c.5"},
			{KindAER, "0000:00:1c.5", "correctable/from 0000:00:1c.5"},
			{KindAER, "0000:00:1c.5", "correctable/detail"},
			{KindAERBit, "0000:00:1c.5", "Receiver Error"},
			{KindAER, "0000:00:1c.5", "correctable/from 0000:00:1c.5"},
		}},
		// The Russian month is read: the lines are journal lines.
		{"journal-aer-localized.txt", 8, []brief{
			{KindAER, "0000:00:1c.5", "correctable/from 0000:00:1c.5"},
			{KindAER, "0000:00:1c.5", "correctable/detail"},
			{KindAERBit, "0000:00:1c.5", "RxErr"},
			{KindAER, "0000:00:1c.5", "correctable/from 0000:00:1c.5"},
			{KindAER, "0000:00:1c.5", "correctable/detail"},
			{KindAERBit, "0000:00:1c.5", "RxErr"},
		}},
		{"dmesg-fallen-off-multiline.txt", 3, []brief{
			{KindFallenOffBus, "0000:b3:00.0", "GPU has fallen off the bus"},
			// "NVRM: The NVIDIA probe routine failed for 1 device(s).": the catch-all's (the rules fold it into the GPU's finding).
			{KindDriverError, "", ""},
		}},
		{"dmesg-old-fallen-off.txt", 6, []brief{
			{KindFallenOffBus, "0000:01:00.0", "GPU has fallen off the bus"},
			{KindFallenOffBus, "0000:01:00.0", "GPU has fallen off the bus"},
		}},
		// INIT is neither up nor down; the systemd lines are skipped.
		{"journal-mlx5-ib-port.txt", 4, []brief{
			{KindLink, "0000:ab:00.0", "mlx5_5 up"},
		}},
		// "Cable plugged" is a module event but not an error.
		{"dmesg-mlx5-probe.txt", 12, []brief{
			{KindModule, "0004:01:00.0", "Cable plugged"},
		}},
		{"dmesg-gpu-node.txt", 27, []brief{
			{KindXid, "0000:10:1c.0", "63,"},
			{KindXid, "0000:2b:00.0", "48,"},
			{KindXid, "0000:2b:00.0", "48,"},
			{KindXid, "0000:9b:00.0", "31,"},
			{KindAER, "0000:3b:00.0", "correctable/from 0000:3a:00.0"},
			{KindAER, "0000:3b:00.0", "correctable/detail"},
			{KindAERBit, "0000:3b:00.0", "RxErr"},
			{KindAER, "0000:3b:00.0", "nonfatal/from 0000:3a:00.0"},
			{KindAER, "0000:3b:00.0", "nonfatal/detail"},
			{KindAERBit, "0000:3b:00.0", "CmpltTO"},
			{KindLink, "0000:3b:00.0", "ens1f0np0 down"},
			{KindLink, "0000:3b:00.0", "ens1f0np0 up"},
			{KindLink, "0000:3b:00.0", "ens1f0np0 down"},
			{KindLink, "0000:3b:00.0", "ens1f0np0 up"},
			{KindLink, "0000:3b:00.0", "ens1f0np0 down"},
			{KindLink, "0000:3b:00.0", "ens1f0np0 up"},
			{KindModule, "0000:5e:00.0", "Cable unplugged"},
			{KindModule, "0000:5e:00.0", "High Temperature"},
			{KindModule, "0000:5e:00.0", "Power budget exceeded"},
			{KindHealth, "0000:5e:00.0", "device's health compromised - reached miss count"},
			{KindHealth, "0000:5e:00.0", "synd 0x8: unrecoverable hardware error"},
			{KindHealth, "0000:5e:00.0", "ACCESS_REG(0x805) timeout. Will cause a leak of a command resource"},
			{KindXid, "0000:2b:00.0", "79,"},
			{KindFallenOffBus, "0000:2b:00.0", "GPU has fallen off the bus"},
		}},
		// Firmware-first: the severity comes from the CPER record, the
		// error from its PCIe section's device_id line (the aer_layer line
		// after it is the same error).
		{"dmesg-aer-firmware-first.txt", 16, []brief{
			{KindAER, "0000:3b:00.0", "nonfatal/detail"},
			{KindAERBit, "0000:3b:00.0", "CmpltTO"},
		}},
		{"dmesg-T-flaps.txt", 5, []brief{
			{KindLink, "0000:86:00.1", "ens2f1np1 down"},
			{KindLink, "0000:86:00.1", "ens2f1np1 up"},
			{KindLink, "0000:86:00.1", "ens2f1np1 down"},
			{KindLink, "0000:86:00.1", "ens2f1np1 up"},
		}},
		// Other drivers' carrier lines (ixgbe, mtk_soc_eth's switch ports, phylink).
		{"syslog-ixgbe-link.txt", 3, []brief{
			{KindLink, "0000:08:00.0", "eth11 up"},
			{KindLink, "0000:08:00.0", "eth11 down"},
		}},
		{"dmesg-mtk-port-link.txt", 4, []brief{
			{KindLink, "", "eth0 down"},
			{KindLink, "", "eth0 up"},
			{KindLink, "", "eth0 down"},
			{KindLink, "", "eth0 up"},
		}},
		{"logread-mt7530-link.txt", 2, []brief{
			{KindLink, "", "lan down"},
			{KindLink, "", "lan up"},
		}},
		{"kmsg-records.txt", 6, []brief{
			{KindAER, "0000:3b:00.0", "correctable/from 0000:3a:00.0"},
			{KindAER, "0000:3b:00.0", "correctable/detail"},
			{KindXid, "0000:2b:00.0", "79,"},
			{KindLink, "0000:3b:00.0", "ens1f0np0 down"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			l := readLog(t, tt.file)
			if len(l.Errors) > 0 {
				t.Errorf("unexpected parse errors: %v", l.Errors)
			}
			if len(l.Records) != tt.records {
				t.Errorf("records = %d, want %d", len(l.Records), tt.records)
			}
			if diff := cmp.Diff(tt.want, briefs(Events(l.Records))); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestXidFields(t *testing.T) {
	l := readLog(t, "dmesg-gpu-node.txt")
	var xids []Event
	for _, e := range Events(l.Records) {
		if e.Kind == KindXid {
			xids = append(xids, e)
		}
	}
	if len(xids) != 5 {
		t.Fatalf("got %d Xids, want 5", len(xids))
	}
	if x := xids[1]; x.Xid != 48 || x.XidPID != "20816" || x.XidProcess != "python3" || x.GPUInstance != -1 || !strings.HasPrefix(x.Detail, "An uncorrectable double bit error") {
		t.Errorf("Xid 48 = %+v", x)
	}
	if x := xids[3]; x.Xid != 31 || x.GPUInstance != 1 || x.XidProcess != "pt_main_thread" {
		t.Errorf("MIG Xid 31 = %+v", x)
	}
	if x := xids[4]; x.Xid != 79 || x.XidPID != "" || x.Detail != "GPU has fallen off the bus." {
		t.Errorf("Xid 79 = %+v", x)
	}
	if got := xids[4].Record.Mono; got != 12000*time.Second {
		t.Errorf("Xid 79 mono = %v", got)
	}
}

func TestKmsgRecordFields(t *testing.T) {
	l := readLog(t, "kmsg-records.txt")
	want := []Record{
		{Line: 1, Priority: 6, Seq: 339, Mono: 5140900 * time.Microsecond, HasMono: true, Text: "NET: Registered protocol family 10"},
		{Line: 2, Priority: 4, Seq: 1021, Mono: 10032000112 * time.Microsecond, HasMono: true, Text: "pcieport 0000:3a:00.0: AER: Correctable error received: 0000:3b:00.0", Device: "+pci:0000:3a:00.0"},
	}
	if diff := cmp.Diff(want, l.Records[:2]); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if got := l.Records[5].Text; got != "path\\with backslash and tab\there" {
		t.Errorf("unescaped text = %q", got)
	}
	if got := l.Records[3].Priority; got != 3 {
		t.Errorf("priority = %d, want 3 (err)", got)
	}
}

func TestContinuationRecords(t *testing.T) {
	in := "4,10,100,c;mlx5_core 0000:3b:00.0 ens1f0np0: Link \n4,11,101,+;down\n6,12,102,-;next\n"
	l, err := ParseKmsg(strings.NewReader(in), "kmsg")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != 2 || l.Records[0].Text != "mlx5_core 0000:3b:00.0 ens1f0np0: Link down" {
		t.Fatalf("records = %+v", l.Records)
	}
	if evs := Events(l.Records); len(evs) != 1 || evs[0].Kind != KindLink || evs[0].Up {
		t.Errorf("events = %+v", evs)
	}
}

func TestParseRecordErrors(t *testing.T) {
	for _, in := range []string{
		"no semicolon",
		"6,1;text",
		"x,1,2,-;text",
		"6,x,2,-;text",
		"6,1,-5,-;text",
		"6,1,99999999999999999999,-;text",
		"6,1,2,;text",
	} {
		if _, err := ParseRecord([]byte(in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseRecord(%q) err = %v, want ErrMalformed", in, err)
		}
	}
}

func TestParseTextFormats(t *testing.T) {
	loc := time.FixedZone("CET", 3600)
	tests := []struct {
		name     string
		in       string
		wantText string
		wantMono time.Duration
		wantTime time.Time
		wantErr  bool
		skipped  bool
	}{
		{name: "seconds", in: "[   12.345678] hello", wantText: "hello", wantMono: 12345678 * time.Microsecond},
		{name: "raw priority", in: "<3>[    1.5] boom", wantText: "boom", wantMono: 1500 * time.Millisecond},
		{name: "decoded facility and level", in: "kern  :warn  : [10032.000140] mlx5_core 0000:3b:00.0: AER: x", wantText: "mlx5_core 0000:3b:00.0: AER: x", wantMono: 10032000140 * time.Microsecond},
		{name: "not a facility", in: "Note: nothing", wantText: "Note: nothing"},
		{name: "ctime", in: "[Tue Mar  5 10:11:12 2024] hi", wantText: "hi", wantTime: time.Date(2024, 3, 5, 10, 11, 12, 0, loc)},
		{name: "iso", in: "2024-03-05T10:11:12,123456+01:00 msg", wantText: "msg", wantTime: time.Date(2024, 3, 5, 9, 11, 12, 123456000, time.UTC)},
		// A container runtime's stamp before a program's log line (sriov-network-operator,
		// analyze testdata/realworld-fresh54, its tabs turned to spaces): not a kernel line.
		{name: "container stamp", in: "2026-01-06T10:21:18.113175631Z    ERROR   sriov/sriov.go:681      configSriovInterfaces(): fail to configure sriov interface.", wantText: "2026-01-06T10:21:18.113175631Z    ERROR   sriov/sriov.go:681      configSriovInterfaces(): fail to configure sriov interface."},
		{name: "journal", in: "Mar 05 10:11:12 node7 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 3, 5, 10, 11, 12, 0, loc)},
		{name: "journal with printk time", in: "Mar 05 10:11:12 node7 kernel: [  618.6] msg", wantText: "msg", wantTime: time.Date(2024, 3, 5, 10, 11, 12, 0, loc), wantMono: 618600 * time.Millisecond},
		{name: "journal iso", in: "2024-03-05T10:11:12+0000 node7 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 3, 5, 10, 11, 12, 0, time.UTC)},
		{name: "syslog tag without date and host", in: "kernel: [ 13.231617] pcieport 0000:00:1c.0: AER: Corrected error received: id=00e0", wantText: "pcieport 0000:00:1c.0: AER: Corrected error received: id=00e0", wantMono: 13231617 * time.Microsecond},
		{name: "journal other program", in: "Mar 05 10:11:12 node7 systemd[1]: Started x.", skipped: true},
		{name: "journal networkd carrier", in: "Aug 17 06:18:01 jplc7eb7-vm-0 systemd-networkd[5398]: ib6: lost carrier", wantText: "systemd-networkd: ib6: lost carrier", wantTime: time.Date(2024, 8, 17, 6, 18, 1, 0, loc)},
		{name: "journal networkd other line", in: "Aug 17 06:18:01 node7 systemd-networkd[5398]: ib6: Link UP", skipped: true},
		{name: "journal carrier of another program", in: "Aug 17 06:18:01 node7 myapp[1]: ib6: lost carrier", skipped: true},
		// NVIDIA k8s-device-plugin's Xid line: Go log (NVIDIA/k8s-device-plugin#189), klog (internal/rm/health.go) and the journal.
		{name: "device plugin go log", in: "2020/08/10 19:09:42 XidCriticalError: Xid=69 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8, the device will go unhealthy.", wantText: "nvidia-device-plugin: XidCriticalError: Xid=69 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8, the device will go unhealthy.", wantTime: time.Date(2020, 8, 10, 19, 9, 42, 0, loc)},
		{name: "device plugin klog", in: "I0810 19:09:42.558553       1 health.go:159] XidCriticalError: Xid=48 on Device=GPU-0a1b; marking device as unhealthy.", wantText: "nvidia-device-plugin: XidCriticalError: Xid=48 on Device=GPU-0a1b; marking device as unhealthy.", wantTime: time.Date(2024, 8, 10, 19, 9, 42, 0, loc)},
		{name: "device plugin journal", in: "Aug 10 19:09:42 node7 nvidia-device-plugin[812]: XidCriticalError: Xid=79 on Device=GPU-0a1b, the device will go unhealthy.", wantText: "nvidia-device-plugin: XidCriticalError: Xid=79 on Device=GPU-0a1b, the device will go unhealthy.", wantTime: time.Date(2024, 8, 10, 19, 9, 42, 0, loc)},
		{name: "go log of another program", in: "2020/08/10 19:09:42 Starting to serve on /var/lib/kubelet/device-plugins/nvidia.sock", wantText: "2020/08/10 19:09:42 Starting to serve on /var/lib/kubelet/device-plugins/nvidia.sock"},
		{name: "logread", in: "Sun Apr 27 05:48:33 2024 kern.info kernel: [10079.572058] mt7530-mdio mdio-bus:1f lan: Link is Down", wantText: "mt7530-mdio mdio-bus:1f lan: Link is Down", wantTime: time.Date(2024, 4, 27, 5, 48, 33, 0, loc), wantMono: 10079572058 * time.Microsecond},
		{name: "logread other program", in: "Sat Apr 27 05:48:33 2024 daemon.notice netifd: Network device 'lan' link is down", skipped: true},
		{name: "busybox syslogd", in: "Apr 27 05:48:33 OpenWrt kern.warn kernel: [   12.5] msg", wantText: "msg", wantTime: time.Date(2024, 4, 27, 5, 48, 33, 0, loc), wantMono: 12500 * time.Millisecond},
		{name: "bad logread time", in: "Sat Apr 27 25:48:33 2024 kern.info kernel: msg", wantErr: true},
		{name: "reltime delta", in: "[  +0.000844] msg", wantText: "msg"},
		{name: "reltime minute", in: "[Feb23 16:24] msg", wantText: "msg", wantTime: time.Date(2024, 2, 23, 16, 24, 0, 0, loc)},
		{name: "journal german", in: "Mär 05 10:11:12 node7 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 3, 5, 10, 11, 12, 0, loc)},
		{name: "journal german okt", in: "Okt 05 10:11:12 node7 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 10, 5, 10, 11, 12, 0, loc)},
		{name: "journal russian", in: "мая 05 10:11:12 node7 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 5, 5, 10, 11, 12, 0, loc)},
		{name: "journal french", in: "févr. 23 10:11:12 node7 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 2, 23, 10, 11, 12, 0, loc)},
		{name: "journal chinese", in: "3月 27 15:37:34 cc1 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 3, 27, 15, 37, 34, 0, loc)},
		{name: "journal japanese", in: " 3月 27 15:37:34 cc1 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 3, 27, 15, 37, 34, 0, loc)},
		{name: "journal korean", in: "12월 01 15:37:34 cc1 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 12, 1, 15, 37, 34, 0, loc)},
		{name: "journal short-precise", in: "Mar 05 10:11:12.250000 node7 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 3, 5, 10, 11, 12, 250000000, loc)},
		{name: "journal without host", in: "фев 12 00:48:02 kernel: msg", wantText: "msg", wantTime: time.Date(2024, 2, 12, 0, 48, 2, 0, loc)},
		{name: "journal spanish other program", in: "ago 05 10:11:12 node7 systemd[1]: Started x.", skipped: true},
		{name: "plain", in: "no stamp at all", wantText: "no stamp at all"},
		{name: "unstamped device line", in: "pci 0000:00:01.1: PCI bridge", wantText: "pci 0000:00:01.1: PCI bridge"},
		{name: "bracket text", in: "[drm] Initialized", wantText: "[drm] Initialized"},
		{name: "broken seconds", in: "[  12.34x] msg", wantErr: true},
		{name: "unclosed", in: "[  12.34 msg", wantErr: true},
		{name: "bad journal time", in: "Mar 05 10:71:12 node7 kernel: msg", wantErr: true},
		{name: "bad localized journal time", in: "Mär 05 10:71:12 node7 kernel: msg", wantErr: true},
		{name: "broken reltime", in: "[  +0.00x] msg", wantErr: true},
		{name: "bad iso", in: "2024-13-05T10:11:12+0000 msg", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(tt.in+"\n"), "test.txt", TextOptions{Year: 2024, Location: loc})
			if tt.wantErr || tt.skipped {
				if !errors.Is(err, ErrNoData) {
					t.Fatalf("err = %v, want ErrNoData", err)
				}
				if tt.wantErr && (len(l.Errors) != 1 || l.Errors[0].Line != 1 || !errors.Is(l.Errors[0], ErrMalformed)) {
					t.Fatalf("errors = %v, want one ErrMalformed on line 1", l.Errors)
				}
				if tt.wantErr && !strings.HasPrefix(l.Errors[0].Error(), "test.txt line 1: ") {
					t.Errorf("error %q does not name file and line", l.Errors[0])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := l.Records[0]
			if r.Text != tt.wantText || r.Mono != tt.wantMono || !r.Time.Equal(tt.wantTime) {
				t.Errorf("got text %q mono %v time %v", r.Text, r.Mono, r.Time)
			}
		})
	}
}

func TestSinceWindow(t *testing.T) {
	l := readLog(t, "dmesg-T-flaps.txt")
	start := time.Date(2024, 3, 5, 10, 30, 0, 0, time.UTC)
	if got := len(l.Since(start, time.Time{})); got != 3 {
		t.Errorf("records since 10:30 = %d, want 3", got)
	}
	mono := readLog(t, "dmesg-gpu-node.txt")
	boot := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := len(mono.Since(boot.Add(11500*time.Second), boot)); got != 8 {
		t.Errorf("records after 11500 s = %d, want 8", got)
	}
	// Without a boot time nothing can be dated: everything is kept.
	if got := len(mono.Since(boot.Add(11500*time.Second), time.Time{})); got != len(mono.Records) {
		t.Errorf("undatable records dropped: %d of %d", got, len(mono.Records))
	}
}

func TestEmptyInput(t *testing.T) {
	if _, err := ParseText(strings.NewReader("\n\n"), "x", TextOptions{}); !errors.Is(err, ErrNoData) {
		t.Errorf("ParseText(empty) err = %v", err)
	}
	if _, err := ParseKmsg(strings.NewReader(""), "x"); !errors.Is(err, ErrNoData) {
		t.Errorf("ParseKmsg(empty) err = %v", err)
	}
}

func corpus(t testing.TB) [][]byte {
	ents, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			b, err := os.ReadFile(filepath.Join("testdata", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

func FuzzParseText(f *testing.F) {
	for _, b := range corpus(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		Detect(string(b))
		if l, err := ParseKmsg(bytes.NewReader(b), "fuzz"); err == nil {
			for _, r := range l.Records {
				if r.Cont {
					t.Fatalf("continuation record left unjoined: %+v", r)
				}
			}
		}
		l, err := ParseText(bytes.NewReader(b), "fuzz", TextOptions{Year: 2024})
		if err != nil && !errors.Is(err, ErrNoData) {
			return
		}
		for _, r := range l.Records {
			if r.Mono < 0 {
				t.Fatalf("negative monotonic time %v", r.Mono)
			}
			for _, e := range Classify(r) {
				if e.PCI != "" {
					if _, err := pcie.ParseAddress(string(e.PCI)); err != nil {
						t.Fatalf("event with invalid PCI address %q", e.PCI)
					}
				}
			}
		}
		Events(l.Records)
	})
}

func FuzzParseRecord(f *testing.F) {
	for _, b := range corpus(f) {
		for _, line := range bytes.Split(b, []byte{'\n'}) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRecord(b)
		if err != nil {
			return
		}
		if r.Priority < 0 || r.Priority > 7 || r.Mono < 0 {
			t.Fatalf("out of range record %+v", r)
		}
		Classify(r)
	})
}

func BenchmarkParseAndClassify(b *testing.B) {
	var buf bytes.Buffer
	for _, c := range corpus(b) {
		if !bytes.Contains(c, []byte(";")) || bytes.HasPrefix(c, []byte("[")) {
			buf.Write(c)
		}
	}
	in := buf.Bytes()
	lines := bytes.Count(in, []byte{'\n'})
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		l, err := ParseText(bytes.NewReader(in), "bench", TextOptions{Year: 2024})
		if err != nil {
			b.Fatal(err)
		}
		Events(l.Records)
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
}

// TestReltimeAccumulates: dmesg --reltime / -H deltas date each message
// from the minute line before it.
func TestReltimeAccumulates(t *testing.T) {
	in := "[Feb23 16:24] a\n[  +1.500000] b\n[  +0.500000] c\n"
	l, err := ParseText(strings.NewReader(in), "t", TextOptions{Year: 2025})
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{
		time.Date(2025, 2, 23, 16, 24, 0, 0, time.UTC),
		time.Date(2025, 2, 23, 16, 24, 1, 500000000, time.UTC),
		time.Date(2025, 2, 23, 16, 24, 2, 0, time.UTC),
	}
	for i, r := range l.Records {
		if !r.Time.Equal(want[i]) {
			t.Errorf("record %d time %v, want %v", i, r.Time, want[i])
		}
	}
}

// TestReltimeWithoutMinute: a dmesg -H paste cut after its minute line
// (rwth-i6/returnn#1486, analyze testdata/realworld-fresh19
// dmesg-returnn1486-nvsmi-gpu-unknown-error-aer-dll-timeout.txt) dates
// nothing, but its deltas still space the records from the first one
// (Record.Rel); with a minute line they give the wall clock instead.
func TestReltimeWithoutMinute(t *testing.T) {
	tests := []struct {
		name, in string
		want     []time.Duration // Rel of each record; -1: no Rel
	}{
		{"deltas only", "...\n[  +0.000316] pcieport 0000:00:03.0: AER: Corrected error received: 0000:00:03.0\n" +
			"[  +0.000005] pcieport 0000:00:03.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)\n" +
			"[  +0.001161] pcieport 0000:00:03.0: AER: Corrected error received: 0000:00:03.0\n",
			[]time.Duration{-1, 0, 5 * time.Microsecond, 1166 * time.Microsecond}},
		{"minute first", "[Feb23 16:24] a\n[  +1.500000] b\n", []time.Duration{-1, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(tt.in), "t", TextOptions{Year: 2025})
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Records) != len(tt.want) {
				t.Fatalf("%d records, want %d", len(l.Records), len(tt.want))
			}
			for i, r := range l.Records {
				got := r.Rel
				if !r.HasRel {
					got = -1
				}
				if got != tt.want[i] {
					t.Errorf("record %d %q: rel %v, want %v", i, r.Text, got, tt.want[i])
				}
			}
		})
	}
}

// TestNewEvents: probe and command failures, the PCIe bandwidth line and
// AER bits, each line as the kernel prints it.
func TestNewEvents(t *testing.T) {
	tests := []struct {
		name, in string
		want     []brief
	}{
		{"command failure with syndrome",
			"mlx5_core 0000:6f:08.2: mlx5_cmd_out_err:808:(pid 650): CREATE_TIS(0x912) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x595b5d), err(-22)",
			[]brief{{KindHealth, "0000:6f:08.2", "CREATE_TIS failed, status bad parameter(0x3), syndrome 0x595b5d"}}},
		{"probe of an auxiliary device placed on the last function",
			"mlx5_core 0000:6f:08.2: firmware version: 22.36.1010\nmlx5_core.eth: probe of mlx5_core.eth.2 failed with error -22",
			[]brief{{KindHealth, "0000:6f:08.2", "probe of mlx5_core.eth.2 failed with error -22"}}},
		{"probe of a BDF",
			"mlx5_core: probe of 0000:03:00.0 failed with error -22",
			[]brief{{KindHealth, "0000:03:00.0", "probe of 0000:03:00.0 failed with error -22"}}},
		{"probe with driver",
			"mlx5_core 0000:03:00.0: probe with driver mlx5_core failed with error -110",
			[]brief{{KindHealth, "0000:03:00.0", "probe with driver mlx5_core failed with error -110"}}},
		{"load and cap failures",
			"mlx5_core 0000:03:00.0: handle_hca_cap failed\nmlx5_core 0000:03:00.0: mlx5_load_one failed with error code -22",
			[]brief{{KindHealth, "0000:03:00.0", "handle_hca_cap failed"}, {KindHealth, "0000:03:00.0", "mlx5_load_one failed with error code -22"}}},
		{"command entry",
			"mlx5_core 0000:5e:00.0: cmd_work_handler:877:(pid 3): failed to allocate command entry",
			[]brief{{KindHealth, "0000:5e:00.0", "failed to allocate command entry"}}},
		{"poll health fatal",
			"mlx5_core 0000:5e:00.0: poll_health:739:(pid 0): Fatal error 1 detected",
			[]brief{{KindHealth, "0000:5e:00.0", "Fatal error 1 detected"}}},
		{"bandwidth",
			"mlx4_core 0000:0f:00.0: 15.752 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x2 link at 0000:0d:04.0 (capable of 31.504 Gb/s with 8.0 GT/s PCIe x4 link)",
			[]brief{{KindPCIeBandwidth, "0000:0f:00.0", "8.0 GT/s PCIe x2 at 0000:0d:04.0, capable of 8.0 GT/s PCIe x4"}}},
		{"full bandwidth is no event",
			"mlx5_core 0000:3b:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)", nil},
		{"AER bits",
			"pcieport 0000:00:1c.0: AER:   [ 6] BadTLP                 (First)\npcieport 0000:00:1c.0:    [12] Replay Timer Timeout",
			[]brief{{KindAERBit, "0000:00:1c.0", "BadTLP"}, {KindAERBit, "0000:00:1c.0", "Replay Timer Timeout"}}},
		{"AER bits behind Intel VMD (a five-digit domain)",
			"pcieport 10003:00:00.0:    [ 6] Bad TLP\npcieport 10003:00:00.0:    [ 7] Bad DLLP",
			[]brief{{KindAERBit, "10003:00:00.0", "Bad TLP"}, {KindAERBit, "10003:00:00.0", "Bad DLLP"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(tt.in+"\n"), "t", TextOptions{Year: 2024})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, briefs(Events(l.Records))); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRealWorldKernelLogs parses the kernel logs people pasted (the
// analyze corpus): every line read, the events that matter found.
func TestRealWorldKernelLogs(t *testing.T) {
	dir := filepath.Join("..", "..", "diagnose", "analyze", "testdata", "realworld")
	tests := []struct {
		file string
		want map[Kind]int
	}{
		{"dmesg-gpud-testdata-xid119.txt", map[Kind]int{KindXid: 0}},
		{"dmesg-jishuzhan-module-plugged.txt", map[Kind]int{KindModule: 2, KindLink: 2}},
		{"dmesg-linux-rdma-schnelle-vf-probe.txt", map[Kind]int{KindHealth: 2}},
		{"dmesg-nvsentinel-155.txt", map[Kind]int{KindFallenOffBus: 1}},
		{"dmesg-tinycore-redpill-9.txt", map[Kind]int{KindHealth: 3}},
		{"journalctl-balena-intel-304.txt", map[Kind]int{KindAER: 1, KindAERBit: 1}},
		{"journalctl-cubecos-733.txt", map[Kind]int{KindLink: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !Detect(string(b)) {
				t.Error("not detected as a kernel log")
			}
			l, err := ParseText(bytes.NewReader(b), tt.file, TextOptions{Year: 2025})
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Errors) > 0 {
				t.Errorf("parse errors: %v", l.Errors)
			}
			got := map[Kind]int{}
			for _, e := range Events(l.Records) {
				got[e.Kind]++
			}
			for k, n := range tt.want {
				if n == 0 {
					if got[k] == 0 {
						t.Errorf("no %s event", k)
					}
					continue
				}
				if got[k] != n {
					t.Errorf("%s events = %d, want %d (all: %v)", k, got[k], n, got)
				}
			}
		})
	}
}

// TestCollapsedRecords: a paste whose line breaks were lost holds several
// stamped records on one line; each is its own record. The syslog line is
// pastebin.com/raw/gn6mYmM4 (testdata/realworld-fresh8), shortened to two.
func TestCollapsedRecords(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		texts []string
	}{
		{"syslog records run together",
			"May 6 00:38:27 alex kernel: [ 4909.922970] NVRM: Xid (0000:01:00): 13, 0005 00000000 0000502d 00000104 00000000 00000100 May 6 00:40:41 alex kernel: [ 5044.302290] NVRM: Xid (0000:01:00): 13, 0005 00000000",
			[]string{"NVRM: Xid (0000:01:00): 13, 0005 00000000 0000502d 00000104 00000000 00000100", "NVRM: Xid (0000:01:00): 13, 0005 00000000"}},
		{"padded day, another program in between dropped",
			"May  6 00:38:27 alex kernel: first message here May  6 00:38:28 alex systemd[1]: Started x. May 16 00:38:29 alex kernel: third",
			[]string{"first message here", "third"}},
		{"dmesg stamps run together",
			"[ 4909.922970] NVRM: Xid (PCI:0000:01:00): 13, 0005 [ 5044.302290] NVRM: Xid (PCI:0000:01:00): 31, Ch 00000009",
			[]string{"NVRM: Xid (PCI:0000:01:00): 13, 0005", "NVRM: Xid (PCI:0000:01:00): 31, Ch 00000009"}},
		{"a clock inside a message is no record",
			"May 6 00:38:27 alex kernel: rtc: set to 00:40:41 May 6 by ntp, host alex",
			[]string{"rtc: set to 00:40:41 May 6 by ntp, host alex"}},
		{"a bracket in a message is no record",
			"[ 4909.922970] usb 1-1: [ 12.5] not a stamp of six decimals, [drm] neither",
			[]string{"usb 1-1: [ 12.5] not a stamp of six decimals, [drm] neither"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(tt.in), "x.txt", TextOptions{Year: 2024})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range l.Records {
				got = append(got, r.Text)
				if r.Line != 1 {
					t.Errorf("record %q on line %d, want 1", r.Text, r.Line)
				}
			}
			if !slices.Equal(got, tt.texts) {
				t.Errorf("records = %q, want %q", got, tt.texts)
			}
		})
	}
}

// TestFirmwareFirstPCIe: a CPER PCIe section names its device; the
// error counts once whether or not an aer_layer line follows. The first
// record is the firmware-first error of
// testdata/realworld-fresh9/dmesg-lwa117-edac-ue-apei-pcie-nvme.txt.
func TestFirmwareFirstPCIe(t *testing.T) {
	section := func(sev string) []string {
		return []string{
			"[11219.196524] {1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 1",
			"[11219.196558] {1}[Hardware Error]: event severity: " + sev,
			"[11219.196576] {1}[Hardware Error]:  Error 0, type: " + sev,
			"[11219.196591] {1}[Hardware Error]:   section_type: PCIe error",
			"[11219.196606] {1}[Hardware Error]:   port_type: 0, PCIe end point",
			"[11219.196636] {1}[Hardware Error]:   command: 0x0546, status: 0xc110",
			"[11219.196653] {1}[Hardware Error]:   device_id: 0000:5e:00.0",
			"[11219.196668] {1}[Hardware Error]:   slot: 9",
			"[11219.196673] mce: [Hardware Error]: Machine check events logged",
			"[11219.196684] {1}[Hardware Error]:   vendor_id: 0x144d, device_id: 0xa808",
		}
	}
	tests := []struct {
		name string
		log  []string
		want []string // PCI/severity of each AER event
	}{
		{"section alone", section("recoverable"), []string{"0000:5e:00.0/nonfatal"}},
		{"corrected section", section("corrected"), []string{"0000:5e:00.0/correctable"}},
		{"section and its aer_layer line", append(section("recoverable"),
			"[11219.196700] nvme 0000:5e:00.0: AER: aer_layer=Transaction Layer, aer_agent=Requester ID"), []string{"0000:5e:00.0/nonfatal"}},
		{"aer_layer line of another device", append(section("recoverable"),
			"[11219.196700] nvme 0000:5f:00.0: AER: aer_layer=Transaction Layer, aer_agent=Requester ID"), []string{"0000:5e:00.0/nonfatal", "0000:5f:00.0/nonfatal"}},
		{"two sections", append(section("recoverable"), section("recoverable")...), []string{"0000:5e:00.0/nonfatal", "0000:5e:00.0/nonfatal"}},
		{"device_id of a later section of another type", append(section("recoverable")[:4], "[1.0] {1}[Hardware Error]:   section_type: memory error", "[1.0] {1}[Hardware Error]:   device_id: 0000:5e:00.0"), nil},
		{"device_id outside a PCIe section", []string{"[1.0] {1}[Hardware Error]:   section_type: memory error", "[1.0] {1}[Hardware Error]:   node: 0", "[1.0] {1}[Hardware Error]:   device_id: 0000:5e:00.0"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(strings.Join(tt.log, "\n")), "x.txt", TextOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range Events(l.Records) {
				if e.Kind == KindAER {
					got = append(got, string(e.PCI)+"/"+e.AERSeverity)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("AER events %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCommandSuppressed: the kernel's rate-limit note for the mlx5
// command error message counts the failures it did not print, and goes
// to the next command failure (lines of openucx/ucx#6264,
// realworld-fresh10).
func TestCommandSuppressed(t *testing.T) {
	const fail = "[33059.091472] mlx5_core 0000:41:00.0: mlx5_cmd_out_err:800:(pid 233522): CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x18af6), err(-12)\n"
	tests := []struct {
		name, in string
		want     []int // Suppressed of each event
	}{
		{"note then failures", "[33059.091463] mlx5_cmd_out_err: 353031 callbacks suppressed\n" + fail + fail, []int{353031, 0}},
		{"older kernels name mlx5_cmd_check", "[1.0] mlx5_cmd_check: 12 callbacks suppressed\n" + fail, []int{12}},
		{"no note", fail, []int{0}},
		{"another print's note", "[1.0] net_ratelimit: 40 callbacks suppressed\n" + fail, []int{0}},
		{"note too far before", "[1.0] mlx5_cmd_out_err: 7 callbacks suppressed\n" + strings.Repeat("[1.1] eth0: something else\n", 5) + fail, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(tt.in), "t", TextOptions{Year: 2024})
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, e := range Events(l.Records) {
				got = append(got, e.Suppressed)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("suppressed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAERWrappedByMail: AER lines a mail client wrapped (linux-pci, kernel
// bugzilla 216373, testdata/realworld-fresh12 of the analyze package) are
// joined again: the source after "error received:", the layer after the
// severity; a bare address or "type=" after any other line is a record of
// its own.
func TestAERWrappedByMail(t *testing.T) {
	for _, tt := range []struct {
		name, log string
		want      []string // text of each record
	}{
		{"received, then the source",
			"pcieport 0000:00:01.0: AER: Multiple Uncorrected (Non-Fatal) error received:\n0000:03:00.0\n",
			[]string{"pcieport 0000:00:01.0: AER: Multiple Uncorrected (Non-Fatal) error received: 0000:03:00.0"}},
		{"severity, then the layer",
			"amdgpu 0000:03:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal),\ntype=Transaction Layer, (Requester ID)\namdgpu 0000:03:00.0:    [20] UnsupReq               (First)\n",
			[]string{"amdgpu 0000:03:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)",
				"amdgpu 0000:03:00.0:    [20] UnsupReq               (First)"}},
		{"an address after another line",
			"pci 0000:00:01.0: bridge window [io  0x1000-0x1fff]\n0000:03:00.0\ntype=Transaction Layer\n",
			[]string{"pci 0000:00:01.0: bridge window [io  0x1000-0x1fff]", "0000:03:00.0", "type=Transaction Layer"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(tt.log), "dmesg", TextOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range l.Records {
				got = append(got, r.Text)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	l, _ := ParseText(strings.NewReader("pcieport 0000:00:01.0: AER: Multiple Uncorrected (Non-Fatal) error received:\n0000:03:00.0\n"), "dmesg", TextOptions{})
	if evs := Events(l.Records); len(evs) != 1 || evs[0].PCI != "0000:03:00.0" || evs[0].Reporter != "0000:00:01.0" || evs[0].AERSeverity != AERNonFatal {
		t.Errorf("events %+v", evs)
	}
}

// TestFlowedWrapJoined: a mail client that wraps long lines (format=flowed)
// ends each broken line with a space; the bare lines after a stamped
// record that ends so are its rest. The lines are a ConnectX-7 firmware
// command timeout quoted on netdev (analyze testdata/realworld-fresh20,
// dmesg-netdevlist-cx7-multihost-access-reg-cmd-timeout-quoted.txt, with
// its "> " quoting off). A bare line after a record without the trailing
// space, or after a bare line, stays a record of its own.
func TestFlowedWrapJoined(t *testing.T) {
	for _, tt := range []struct {
		name, log string
		want      []string // text of each record
	}{
		{"three pieces",
			"[  257.111349] mlx5_core 0000:56:00.0: \nwait_func_handle_exec_timeout:1159:(pid 72061): cmd[0]: \nACCESS_REG(0x805) No done completion\n" +
				"[  270.871521] mlx5_core 0000:56:00.0: mlx5_cmd_comp_handler:1709:(pid \n0): Command completion arrived after timeout (entry idx = 0).\n",
			[]string{"mlx5_core 0000:56:00.0: wait_func_handle_exec_timeout:1159:(pid 72061): cmd[0]: ACCESS_REG(0x805) No done completion",
				"mlx5_core 0000:56:00.0: mlx5_cmd_comp_handler:1709:(pid 0): Command completion arrived after timeout (entry idx = 0)."}},
		// Wrapped with no trailing space (analyze testdata/realworld-fresh22,
		// dmesg-linuxpci-mlx5-maxcpus8-create-eq-timeout-quoted-qp.txt): cut
		// after the device prefix, then after the command's opcode.
		{"cut after the device and the opcode",
			"[ 1537.028969] mlx5_core 0000:d8:00.0:\nwait_func_handle_exec_timeout:1062:(pid 1416): cmd[0]: CREATE_EQ(0x301)\nrecovered after timeout\n",
			[]string{"mlx5_core 0000:d8:00.0: wait_func_handle_exec_timeout:1062:(pid 1416): cmd[0]: CREATE_EQ(0x301) recovered after timeout"}},
		// Cut after the "func:line:(pid n):" prefix, the rest indented, in a
		// bare paste (analyze testdata/realworld-fresh45,
		// dmesg-stored54268972876-gx10-cx7-slot-power-27w-13gbps.txt: blog
		// post "ASUS Ascent GX10 ConnectX-7 Interconnect: Why You're Getting
		// 13 Gbps").
		{"cut after the function prefix, no stamp",
			"mlx5_core 0002:01:00.0: mlx5_pcie_event:326:(pid 3202):\n  Detected insufficient power on the PCIe slot (27W).\n",
			[]string{"mlx5_core 0002:01:00.0: mlx5_pcie_event:326:(pid 3202): Detected insufficient power on the PCIe slot (27W)."}},
		{"a whole mlx5 message is not joined",
			"[ 1537.028969] mlx5_core 0000:d8:00.0: E-Switch: cleanup\nrecovered after timeout\n",
			[]string{"mlx5_core 0000:d8:00.0: E-Switch: cleanup", "recovered after timeout"}},
		{"no trailing space: two records",
			"[  257.111349] mlx5_core 0000:56:00.0: Link up\nsubsequent attempts hang:\n",
			[]string{"mlx5_core 0000:56:00.0: Link up", "subsequent attempts hang:"}},
		{"prose after prose is not joined",
			"I can toggle the parameter ok using the mstconfig binary built from \nthe mstflint github repo.\n",
			[]string{"I can toggle the parameter ok using the mstconfig binary built from ", "the mstflint github repo."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(tt.log), "dmesg", TextOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range l.Records {
				got = append(got, r.Text)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("records\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
