package kmsg

import "testing"

// A streamed log of millions of event lines must not allocate per event:
// Add reuses the slice it returns, and the caller reads it before the
// next call.
func TestClassifierAddAllocatesNoEvent(t *testing.T) {
	for _, text := range []string{
		"mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link DOWN",
		"pcieport 0000:3a:00.0: AER: Corrected error received: 0000:3b:00.0",
		"NVRM: Xid (PCI:0000:9b:00): 31, pid=3303, name=pt_main_thread, Ch 00000008, intr 00000000. MMU Fault",
	} {
		c := NewClassifier()
		r := Record{Line: 1, Priority: -1, Text: text}
		first := c.Add(r)
		if len(first) != 1 {
			t.Fatalf("%q: %d events, want 1", text, len(first))
		}
		kind := first[0].Kind
		if n := testing.AllocsPerRun(100, func() { c.Add(r) }); n != 0 {
			t.Errorf("%q: %.0f allocations per Add, want 0", text, n)
		}
		r.Line = 2
		if evs := c.Add(r); len(evs) != 1 || evs[0].Kind != kind || evs[0].Record.Line != 2 {
			t.Errorf("%q: second Add gave %+v, want one %s event of line 2", text, evs, kind)
		}
	}
}
