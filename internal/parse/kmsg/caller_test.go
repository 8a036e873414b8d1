package kmsg

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestPrintkCallerID: the caller id a CONFIG_PRINTK_CALLER kernel puts
// before each message ("[  T292] ", kernel/printk/printk.c print_caller)
// is read as a record's prefix, alone (printk.time off) or after the time
// stamp, and cut from the text, so that patterns anchored at the text's
// start still match. The lines are the igb AER report quoted in "[PATCH]
// igb: Do not bring the device up after non-fatal error" (lore.kernel.org
// netdev, 2024-09-23; analyze testdata/realworld-fresh32,
// dmesg-lorenetdev-igb-aer-cmpltto-nonfatal-napi-bug.txt).
func TestPrintkCallerID(t *testing.T) {
	for _, tt := range []struct {
		in, text string
		mono     time.Duration
	}{
		{"[ T3256] igb 0000:09:00.0 haeth0: igb: haeth0 NIC Link is Down", "igb 0000:09:00.0 haeth0: igb: haeth0 NIC Link is Down", 0},
		{"[  T292] pcieport 0000:00:1c.5: AER: Uncorrected (Non-Fatal) error received: 0000:09:00.0", "pcieport 0000:00:1c.5: AER: Uncorrected (Non-Fatal) error received: 0000:09:00.0", 0},
		{"[  T292]  ? die+0x33/0x90", " ? die+0x33/0x90", 0},
		{"[    C3] mlx5_core 0000:17:00.0: Link down", "mlx5_core 0000:17:00.0: Link down", 0},
		{"[T1234567] igb 0000:09:00.0: x", "igb 0000:09:00.0: x", 0},
		// After the kernel's own stamp (no space between) and after
		// util-linux dmesg's (a space, the id padded wider).
		{"[  200.105524][  T292] igb 0000:09:00.0: AER:   TLP Header: 00000000 00000000 00000000 00000000", "igb 0000:09:00.0: AER:   TLP Header: 00000000 00000000 00000000 00000000", 200105524 * time.Microsecond},
		{"[  200.105524] [    T292] kernel BUG at net/core/dev.c:6539!", "kernel BUG at net/core/dev.c:6539!", 200105524 * time.Microsecond},
		{"<4>[  200.1][  T292] invalid opcode: 0000 [#1] PREEMPT SMP", "invalid opcode: 0000 [#1] PREEMPT SMP", 200100 * time.Millisecond},
		{"kernel: [  200.1][    C0] pcieport 0000:00:1c.5: AER: broadcast resume message", "pcieport 0000:00:1c.5: AER: broadcast resume message", 200100 * time.Millisecond},
		// Not caller ids: bracketed text stays the text.
		{"[T292] igb 0000:09:00.0: x", "[T292] igb 0000:09:00.0: x", 0},
		{"[  TX] igb 0000:09:00.0: x", "[  TX] igb 0000:09:00.0: x", 0},
		{"[   12.5] [drm] Initialized", "[drm] Initialized", 12500 * time.Millisecond},
	} {
		l, err := ParseText(strings.NewReader(tt.in+"\n"), "dmesg", TextOptions{})
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if r := l.Records[0]; len(l.Records) != 1 || r.Text != tt.text || r.Mono != tt.mono {
			t.Errorf("%q: %d records, text %q mono %v; want %q %v", tt.in, len(l.Records), r.Text, r.Mono, tt.text, tt.mono)
		}
	}
	for l, want := range map[string]bool{
		"[  T292] igb 0000:09:00.0: Non-correctable non-fatal error reported.": true,
		"[  200.105524][  T292] igb 0000:09:00.0: x":                           true,
		"[T292] igb 0000:09:00.0: x":                                           false,
		"[  T292 igb":                                                          false,
	} {
		if got := DetectLine(l); got != want {
			t.Errorf("DetectLine(%q) = %v, want %v", l, got, want)
		}
	}
}

// TestPrintkCallerIDEvents: the sample's AER report and crash, every line
// behind a caller id and one line holding two records that the mail glued
// together, give the AER event of 0000:09:00.0 and the oops.
func TestPrintkCallerIDEvents(t *testing.T) {
	log := strings.Join([]string{
		"[ T3256] igb 0000:09:00.0 haeth0: igb: haeth0 NIC Link is Down",
		"[  T292] pcieport 0000:00:1c.5: AER: Uncorrected (Non-Fatal) error received: 0000:09:00.0",
		"[  T292] igb 0000:09:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)",
		"[  T292] igb 0000:09:00.0:   device [8086:1537] error status/mask=00004000/00000000",
		"[  T292] igb 0000:09:00.0:    [14] CmpltTO [  200.105524,009][  T292] igb 0000:09:00.0: AER:   TLP Header: 00000000 00000000 00000000 00000000",
		"[  T292] pcieport 0000:00:1c.5: AER: broadcast error_detected message",
		"[  T292] igb 0000:09:00.0: Non-correctable non-fatal error reported.",
		"[  T292] ------------[ cut here ]------------",
		"[  T292] kernel BUG at net/core/dev.c:6539!",
		"[  T292] invalid opcode: 0000 [#1] PREEMPT SMP",
		"[  T292] RIP: 0010:napi_enable+0x37/0x40",
		"[  T292] Call Trace:",
		"[  T292]  <TASK>",
		"[  T292]  ? die+0x33/0x90",
		"[  T292]  igb_up+0x41/0x150",
		"[  T292]  igb_io_resume+0x25/0x70",
		"[  T292]  report_resume+0x54/0x70",
		"[  T292]  </TASK>",
	}, "\n") + "\n"
	l, err := ParseText(strings.NewReader(log), "dmesg", TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Errors) != 0 || len(l.Records) != 18 {
		t.Fatalf("%d records, %d errors", len(l.Records), len(l.Errors))
	}
	var got []string
	for _, e := range Events(l.Records) {
		switch e.Kind {
		case KindAER:
			got = append(got, fmt.Sprintf("aer %s@%d nonfatal=%v", e.PCI, e.Record.Line, e.AERSeverity == AERNonFatal))
		case KindOops:
			got = append(got, fmt.Sprintf("oops@%d %s func=%s", e.Record.Line, e.Detail, e.Func))
		}
	}
	if s := strings.Join(got, "; "); !strings.Contains(s, "aer 0000:09:00.0@") || !strings.Contains(s, "nonfatal=true") || !strings.Contains(s, "oops@9 kernel BUG") || !strings.Contains(s, "func=napi_enable") {
		t.Errorf("events %s", s)
	}
}
