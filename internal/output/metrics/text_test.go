package metrics

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/rules/trend"
)

// clientGolangText renders c as the agent did before AppendText: a
// registry gathers Collect and expfmt encodes every family. dropped is
// the registry's complaint about series it left out.
func clientGolangText(t testing.TB, c prometheus.Collector) (text []byte, dropped error) {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	mfs, dropped := reg.Gather()
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes(), dropped
}

// scrapeDuration is the one line whose value differs between two
// renderings of one state.
var scrapeDuration = regexp.MustCompile(`(?m)^(ibdoctor_scrape_duration_seconds) .*$`)

func maskDuration(b []byte) string {
	return scrapeDuration.ReplaceAllString(string(b), "$1 X")
}

// bigState is 10 ports with full counters/ and hw_counters/ sets.
func bigState() *State {
	st := testState()
	base := st.Snapshot.Devices[0]
	var devs []snapshot.Device
	for i := 0; i < 10; i++ {
		d := base
		d.Name = "mlx5_" + string(rune('0'+i))
		d.Ports = []snapshot.Port{base.Ports[0]}
		p := &d.Ports[0]
		p.Device = d.Name
		p.Counters = nil
		for _, s := range ib.PortCounterSpecs {
			p.Counters = append(p.Counters, snapshot.Counter{Name: s.Name, Value: 12345, Spec: s})
		}
		p.HWCounters = nil
		for _, n := range []string{"out_of_buffer", "out_of_sequence", "duplicate_request", "rnr_nak_retry_err", "packet_seq_err", "implied_nak_seq_err",
			"local_ack_timeout_err", "rp_cnp_ignored", "rp_cnp_handled", "np_ecn_marked_roce_packets", "np_cnp_sent", "rx_write_requests", "rx_read_requests"} {
			p.HWCounters = append(p.HWCounters, snapshot.Counter{Name: n, Value: 99, Spec: ib.HWCounterSpec(n)})
		}
		devs = append(devs, d)
	}
	st.Snapshot.Devices = devs
	return st
}

// TestAppendTextSameAsClientGolang: AppendText writes byte for byte what
// the registry and expfmt wrote for the same state (but the scrape
// duration, which is timed), including the orderings, escapes, values
// and the series client_golang drops.
func TestAppendTextSameAsClientGolang(t *testing.T) {
	for _, tc := range []struct {
		name    string
		state   func() *State
		dropped bool // client_golang leaves series out
	}{
		{"before the first sample", func() *State { return nil }, false},
		{"test state", testState, false},
		{"10 ports", bigState, false},
		{"escapes and values", func() *State {
			st := testState()
			d := &st.Snapshot.Devices[0]
			d.FWVersion = "28.\"39\"\\2048\nx"
			d.BoardID = "MT_ü"
			st.CollectErrors["sys/odd \"path\"\\\n"] = 1 << 62
			st.Ethtool["eth8"]["rx_prio7_pause"] = 1<<64 - 1
			st.Rates[0].Rate.PerSecond = 1.5e-7
			st.Samples = 0
			return st
		}, false},
		{"a series twice: the first is kept", func() *State {
			st := testState()
			// Two devices of one name: every port series twice.
			dup := st.Snapshot.Devices[0]
			dup.FWVersion = "other"
			dup.Ports = []snapshot.Port{dup.Ports[0]}
			dup.Ports[0].Counters = []snapshot.Counter{{Name: "symbol_error", Value: 1, Spec: ib.PortCounterSpec("symbol_error", true)}}
			st.Snapshot.Devices = append(st.Snapshot.Devices, dup)
			return st
		}, true},
		{"a counter named like another family: the first family sent keeps the name", func() *State {
			st := testState()
			p := &st.Snapshot.Devices[0].Ports[0]
			// counters/hw_stat is ibdoctor_port_hw_stat_total, sent
			// before hw_counters/ with another help: hw_counters/ lose.
			p.Counters = append(p.Counters, snapshot.Counter{Name: "hw_stat", Value: 5, Spec: ib.PortCounterSpec("hw_stat", true)})
			return st
		}, true},
		{"no kernel events, failed sources", func() *State {
			st := testState()
			st.KernelEvents = map[KernelEvent]uint64{{Kind: "xid", Device: "0000:18:00.0"}: 3, {Kind: "aer", Device: "mlx5_0"}: 1}
			st.KernelLost = 2
			st.SourceUp = map[string]bool{"sysfs": false, "store": true, "kmsg": true}
			st.Findings = nil
			st.Rates = nil
			st.Ethtool = trend.Ethtool{}
			return st
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.state()
			c := New("v1.2.3", func() *State { return st })
			text, dropped := clientGolangText(t, c)
			if (dropped != nil) != tc.dropped {
				t.Fatalf("client_golang dropped series: %v, want %v", dropped, tc.dropped)
			}
			want := maskDuration(text)
			got := maskDuration(c.AppendText(nil))
			if got != want {
				t.Errorf("AppendText differs from client_golang:\n%s", lineDiff(want, got))
			}
			// Rendering again reuses the sink: same text.
			if again := maskDuration(c.AppendText(nil)); again != got {
				t.Errorf("second rendering differs:\n%s", lineDiff(got, again))
			}
		})
	}
}

// TestAppendTextInvalidUTF8: a label value that is not UTF-8 (a hostile
// fw_ver) is written with replacement characters; client_golang panicked
// on it.
func TestAppendTextInvalidUTF8(t *testing.T) {
	st := testState()
	st.Snapshot.Devices[0].FWVersion = "28.\xff39"
	c := New("v", func() *State { return st })
	out := string(c.AppendText(nil))
	if !strings.Contains(out, `fw_ver="28.`+"\uFFFD"+`39"`) {
		t.Errorf("fw_ver not written with a replacement character:\n%s", out)
	}
}

func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, a, c)
			if b.Len() > 2000 {
				break
			}
		}
	}
	return b.String()
}

// BenchmarkAppendText is BenchmarkCollect's state rendered as text once
// per sample, as the agent renders it.
func BenchmarkAppendText(b *testing.B) {
	st := bigState()
	c := New("v1", func() *State { return st })
	buf := c.AppendText(nil)
	b.ReportAllocs()
	for b.Loop() {
		buf = c.AppendText(buf[:0])
	}
}

// BenchmarkClientGolangText is the same through the registry and expfmt.
func BenchmarkClientGolangText(b *testing.B) {
	st := bigState()
	c := New("v1", func() *State { return st })
	b.ReportAllocs()
	for b.Loop() {
		if _, err := clientGolangText(b, c); err != nil {
			b.Fatal(err)
		}
	}
}
