package kmsg

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzTextParserClassifier: a TextParser fed the lines one at a time with
// a Classifier on its records gives the records and events that ParseText
// and Events give, with the same bad lines; each event a Classifier
// reports (its text classes cached) is the event Classify reports of its
// record alone, but for the fields the classifier fills from earlier
// records and the events only earlier records make (a fallen-off-bus
// message split over lines, a CPER PCIe section's device).
func FuzzTextParserClassifier(f *testing.F) {
	for _, b := range corpus(f) {
		f.Add(b)
	}
	// Crash reports (oops_test.go): read over their lines, given when they end.
	f.Add([]byte(strings.Join(append(append(cx5BootOops, mlx5IBWarn...), mlx5ShutdownGPF...), "\n")))
	// A WARN() with its message, the header wrapped after "at" (Bugzilla 216561, rdmavt).
	f.Add([]byte("[25.09] ------------[ cut here ]------------\n[25.09] memcpy: detected field-spanning write (size 80) of single fi=\neld\n" +
		"[25.10] WARNING: CPU: 1 PID: 1618 at\ndrivers/infiniband/sw/rdmavt/qp.c:2043 rvt_post_one_wr+0x4e3/0x6d0 [rdmavt]\n" +
		"[25.26] Call Trace:\n[25.26]  rvt_post_send+0xa9/0x150 [rdmavt]\n[25.41] ---[ end trace 0000000000000000 ]---\n"))
	// Memory checker reports (KASAN, KFENCE, UBSAN), one cut after its header.
	f.Add([]byte("[1.0] BUG: KASAN: use-after-free in mlx5_cmd_set_fte+0x200d/0x24c0 [mlx5_core]\n[1.1] Call Trace:\n[1.2]  kasan_report+0xbb/0x1a0\n" +
		"[2.0] BUG: KFENCE: invalid free in kfree+0x1/0x2\n[3.0] UBSAN: array-index-out-of-bounds in drivers/infiniband/hw/mlx5/qp.c:4123:20\n"))
	// An error CQE dumped in hex (cqedump.go), then a dump cut short.
	f.Add([]byte("[1.0] infiniband mlx5_0: dump_cqe:272:(pid 709): dump error cqe\n[1.1] 00000000: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n" +
		"[1.2] 00000030: 00 00 00 00 00 00 88 13 08 00 01 13 07 47 67 d2\n[2.0] infiniband mlx5_0: dump_cqe:272:(pid 1): dump error cqe\n[2.1] 00000030: 00 88\n"))
	// A driver's link report (capability, then status), and a record a mail client wrapped (format=flowed).
	f.Add([]byte("[1.0] mqnic 0000:01:00.0:  Link capability: gen 3 x16\n[1.1] mqnic 0000:01:00.0:  **_Link status: gen 3 x4_**\n" +
		"[2.0] mlx5_core 0000:56:00.0: \nwait_func:1189:(pid 72061): \nACCESS_REG(0x805) timeout. Will cause a leak of a command resource\n" +
		"\tmlx5_core 0000:af:00.0 enp175s0f0: TX timeout on queue: 40, SQ: 0x13106, CQ: 0x5b5, SQ Cons: 0x1 SQ Prod: 0x1, usecs since last trans: 28559000\n"))
	// NVMe over RDMA I/O timeouts and error recovery (rdma.c nvme_rdma_timeout, nvme_rdma_error_recovery).
	f.Add([]byte("Sep 17 12:56:14 init-7946 kernel: nvme nvme0: I/O 33 QID 10 timeout\nSep 17 12:56:14 init-7946 kernel: nvme nvme0: starting error recovery\n" +
		"[3.0] nvme nvme1: I/O tag 12 (700c) opcode 0x2 (I/O Cmd) QID 3 timeout\n[4.0] nvme nvme1: Successfully reconnected (1 attempt)\n"))
	// A module built for another RDMA stack, and LNet that could not load it (Seagate/cortx-motr#17).
	f.Add([]byte("Sep  2 13:26:27 h kernel: LNetError: 172781:0:(api-ni.c:2533:lnet_startup_lndnet()) Can't load LND o2ib, module ko2iblnd, rc=256\n" +
		"Sep  2 13:26:29 h kernel: ko2iblnd: disagrees about version of symbol ib_fmr_pool_unmap\nSep  2 13:26:29 h kernel: ko2iblnd: Unknown symbol ib_fmr_pool_unmap (err -22)\n"))
	// Printk caller ids, alone and after a stamp, and two records glued on one line (caller_test.go).
	f.Add([]byte("[  T292] pcieport 0000:00:1c.5: AER: Uncorrected (Non-Fatal) error received: 0000:09:00.0\n" +
		"[  T292] igb 0000:09:00.0:    [14] CmpltTO [  200.105524,009][  T292] igb 0000:09:00.0: AER:   TLP Header: 00000000\n" +
		"[  200.1][  T292] kernel BUG at net/core/dev.c:6539!\n[  200.2] [    C3] RIP: 0010:napi_enable+0x37/0x40\n[  T292]  ? die+0x33/0x90\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		whole, err := ParseText(bytes.NewReader(b), "fuzz", TextOptions{Year: 2024})
		if err != nil && strings.Contains(err.Error(), "too long") {
			return // ParseText bounds a line; Line is handed what it is given
		}
		var recs []Record
		var evs []Event
		c := NewClassifier()
		p := NewTextParser("fuzz", TextOptions{Year: 2024}, func(r Record) {
			recs = append(recs, r)
			for _, e := range c.Add(r) {
				if e.Kind == KindFallenOffBus || e.Kind == KindOops || e.Kind == KindAER && strings.Contains(r.Text, "[Hardware Error]") ||
					e.Kind == KindCQ && strings.HasPrefix(strings.TrimSpace(r.Text), "00000030: ") || e.Kind == KindPCIeLinkReport {
					// Read from the records before it too.
					evs = append(evs, e)
					continue
				}
				one := Classify(r)
				if len(one) != 1 {
					t.Fatalf("classifier found %v in %q, Classify %d events", e.Kind, r.Text, len(one))
				}
				o := one[0]
				if e.Kind == KindHealth && o.PCI == "" {
					o.PCI = e.PCI
				}
				o.AERSeverity = e.AERSeverity
				if g, w := js(t, e), js(t, o); g != w {
					t.Fatalf("classifier event\n%s\nClassify\n%s", g, w)
				}
				evs = append(evs, e)
			}
		})
		for i, l := range strings.Split(string(b), "\n") {
			p.Line(i+1, l)
		}
		p.Flush()
		evs = append(evs, c.Flush()...)
		if p.Records != len(recs) || p.BadLines != len(p.Errors) {
			t.Fatalf("counted %d records, %d bad lines; emitted %d, listed %d", p.Records, p.BadLines, len(recs), len(p.Errors))
		}
		if g, w := js(t, recs), js(t, whole.Records); g != w {
			t.Fatalf("streamed records\n%s\nParseText\n%s", g, w)
		}
		if g, w := js(t, p.Errors), js(t, whole.Errors); g != w {
			t.Fatalf("streamed errors %s, ParseText %s", g, w)
		}
		for _, e := range p.Errors {
			if e.Source != "fuzz" || e.Line < 1 {
				t.Fatalf("error without source or line: %+v", e)
			}
		}
		if g, w := js(t, evs), js(t, Events(whole.Records)); g != w {
			t.Fatalf("streamed events\n%s\nEvents\n%s", g, w)
		}
	})
}

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
