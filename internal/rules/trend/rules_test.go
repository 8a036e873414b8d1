package trend

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// 41 samples 15 s apart = 10 minutes: two 5-minute windows.
const n = 41

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want []string
	}{
		{
			name: "quiet port with traffic and old errors",
			in: Input{History: series(n, func(i int) []Port {
				return []Port{port("mlx5_0", 1, 400, ctr("symbol_error", 1200), ctr("port_xmit_data", uint64(i)*1e9), ctr("port_rcv_errors", 7))}
			})},
		},
		{
			name: "symbol errors grow by an order of magnitude",
			in: Input{History: series(n, func(i int) []Port {
				v := uint64(i / 10) // ~2 per window before
				if i > 20 {
					v = 2 + uint64(i-20)*3 // +60 in the last window
				}
				return []Port{port("mlx5_0", 1, 400, ctr("symbol_error", v))}
			})},
			want: []string{"port.symbol_errors/warning"},
		},
		{
			name: "symbol errors above the IBTA BER line on a 100G link",
			in: Input{History: series(n, func(i int) []Port {
				// 1e-12 × 100e9 b/s = 0.1 errors/s; 1 per 15 s = 0.067/s is below,
				// 3 per 15 s = 0.2/s is above. Steady, so no growth.
				return []Port{port("mlx5_0", 1, 100, ctr("symbol_error", uint64(i)*3)), port("mlx5_1", 1, 100, ctr("symbol_error", uint64(i)))}
			})},
			want: []string{"port.symbol_errors/warning"},
		},
		{
			name: "symbol errors on a port without rate use the per-minute limit",
			in: Input{History: series(n, func(i int) []Port {
				return []Port{port("mlx5_0", 1, 0, ctr("symbol_error", uint64(i)*5))} // 20/min > 10/min
			})},
			want: []string{"port.symbol_errors/warning"},
		},
		{
			name: "saturated symbol_error: counter_saturated, never a rate",
			in: Input{History: series(n, func(i int) []Port {
				v := min(uint64(65000+i*100), 65535)
				return []Port{port("mlx5_0", 1, 400, ctr("symbol_error", v), ctr("link_downed", 255))}
			})},
			// The rise to 65535 happens in the preceding window; in the last window
			// the counter is stuck: unknown, so only counter_saturated fires.
			want: []string{"port.counter_saturated/warning"},
		},
		{
			name: "perfquery -R reset mid-window is no alarm",
			in: Input{History: series(n, func(i int) []Port {
				v := uint64(60000)
				if i >= 30 {
					v = 0
				}
				return []Port{port("mlx5_0", 1, 400, ctr("symbol_error", v), ctr("port_rcv_errors", v/1000), ctr("port_xmit_discards", v/100))}
			})},
		},
		{
			name: "receive errors and discards above their rate",
			in: Input{History: series(n, func(i int) []Port {
				return []Port{port("mlx5_3", 1, 400, ctr("port_rcv_errors", uint64(i)*4), ctr("port_xmit_discards", uint64(i)*4))} // 16/min
			})},
			want: []string{"port.rcv_errors/warning", "port.xmit_discards/warning"},
		},
		{
			name: "receive errors below their rate",
			in: Input{History: series(n, func(i int) []Port {
				return []Port{port("mlx5_3", 1, 400, ctr("port_rcv_errors", uint64(i)), ctr("port_xmit_discards", uint64(i)/2))} // 4/min, 2/min
			})},
		},
		{
			name: "one link recovery in the window",
			in: Input{History: series(n, func(i int) []Port {
				v := uint64(3)
				if i >= 35 {
					v = 5
				}
				return []Port{port("mlx5_0", 1, 400, ctr("link_error_recovery", v))}
			})},
			want: []string{"port.link_recovery/warning"},
		},
		{
			name: "out_of_buffer wraps at 2^32 without a false spike",
			in: Input{History: series(n, func(i int) []Port {
				v := uint64(4294967295-100) + uint64(i)*5 // 20/min, wraps halfway
				return []Port{port("mlx5_0", 1, 400, hw("out_of_buffer", v&0xffffffff))}
			})},
		},
		{
			name: "out_of_buffer above the limit across the wrap",
			in: Input{History: series(n, func(i int) []Port {
				v := uint64(4294967295-1000) + uint64(i)*50 // 200/min
				return []Port{port("mlx5_0", 1, 400, hw("out_of_buffer", v&0xffffffff))}
			})},
			want: []string{"rdma.out_of_buffer/warning"},
		},
		{
			name: "retransmissions summed over four counters",
			in: Input{History: series(n, func(i int) []Port {
				u := uint64(i)
				return []Port{port("mlx5_0", 1, 400, hw("local_ack_timeout_err", u), hw("packet_seq_err", u), hw("implied_nak_seq_err", 0), hw("rnr_nak_retry_err", u))}
			})},
			want: []string{"rdma.retransmits/warning"}, // 3 per 15 s = 12/min
		},
		{
			name: "CNPs ignored",
			in: Input{History: series(n, func(i int) []Port {
				return []Port{port("mlx5_4", 1, 200, hw("rp_cnp_ignored", uint64(i)*2), hw("rp_cnp_handled", 5))}
			})},
			want: []string{"rdma.cnp_ignored/warning"},
		},
		{
			name: "rate below expected",
			in: Input{
				History: series(n, func(i int) []Port {
					return []Port{port("mlx5_0", 1, 200), port("mlx5_1", 1, 350), port("mlx5_2", 1, 400), port("mlx5_3", 1, 0)}
				}),
				Expected: map[PortKey]float64{{"mlx5_0", 1}: 400, {"mlx5_1", 1}: 400, {"mlx5_2", 1}: 400, {"mlx5_3", 1}: 400},
			},
			want: []string{"port.rate_below_expected/critical", "port.rate_below_expected/warning"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(Check(tt.in, Defaults()))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				for _, f := range Check(tt.in, Defaults()) {
					t.Logf("%s %s: %s %v", f.ID, f.Severity, f.Summary, f.Evidence)
				}
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetransmitLimitIsStrict(t *testing.T) {
	// Exactly the limit (10/min) must not fire; just above must.
	at := func(per15s uint64) Input {
		return Input{History: series(n, func(i int) []Port {
			return []Port{port("mlx5_0", 1, 400, hw("packet_seq_err", uint64(i)*per15s))}
		})}
	}
	th := Defaults()
	th.RetransmitsPerMin = 12
	if got := RoCE(at(3), th); len(got) != 0 {
		t.Errorf("RoCE on an IB port: %v", ids(got))
	}
	if got := ErrorRates(at(3), th); len(got) != 0 { // 12/min
		t.Errorf("at the limit: %v", ids(got))
	}
	if got := ErrorRates(at(4), th); len(got) != 1 || got[0].ID != "rdma.retransmits" {
		t.Errorf("above the limit: %v", ids(got))
	}
}

func TestSymbolBEREvidence(t *testing.T) {
	in := Input{Host: "gpu017", History: series(n, func(i int) []Port {
		return []Port{port("mlx5_0", 1, 100, ctr("symbol_error", uint64(i)*3))}
	})}
	fs := ErrorRates(in, Defaults())
	if len(fs) != 1 {
		t.Fatalf("got %v", ids(fs))
	}
	f := fs[0]
	if f.Subject.Host != "gpu017" || f.Subject.Device != "mlx5_0" || f.Subject.Port != 1 {
		t.Errorf("subject %+v", f.Subject)
	}
	var ber string
	for _, e := range f.Evidence {
		if e.Source == "bit error rate estimate" {
			ber = e.Value
		}
	}
	// 3 errors / (100e9 b/s × 15 s) = 2e-12.
	if !strings.HasPrefix(ber, "2e-12 ") {
		t.Errorf("BER evidence %q, want 2e-12", ber)
	}
	if !strings.Contains(f.Evidence[0].Source, "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error") {
		t.Errorf("evidence source %q", f.Evidence[0].Source)
	}
	if len(f.Remedy) == 0 {
		t.Error("remedy not filled from the catalogue")
	}
}

func TestGrowthNeedsPrecedingWindow(t *testing.T) {
	// Only one window of history: growth cannot be judged; 60 errors in
	// 5 min = 12/min on a port without rate still fires on the rate.
	in := Input{History: series(21, func(i int) []Port {
		return []Port{port("mlx5_0", 1, 400, ctr("symbol_error", uint64(i)*3))}
	})}
	for _, f := range ErrorRates(in, Defaults()) {
		if strings.Contains(f.Summary, "grew") {
			t.Errorf("growth judged without a preceding window: %s", f.Summary)
		}
	}
}

func TestEvaluateEmpty(t *testing.T) {
	if got := Check(Input{}, Defaults()); got != nil {
		t.Errorf("no history: %v", got)
	}
}

func TestEveryRuleIDIsCatalogued(t *testing.T) {
	for _, r := range errorRules {
		if _, ok := catalog.Default.Lookup(r.id); !ok {
			t.Errorf("%s not in the catalogue", r.id)
		}
	}
	for _, id := range []string{"port.counter_saturated", "port.link_flapping", "port.congestion", "port.rate_below_expected", "roce.pfc_storm", "roce.pause_heavy", "roce.ecn_not_effective"} {
		if _, ok := catalog.Default.Lookup(id); !ok {
			t.Errorf("%s not in the catalogue", id)
		}
	}
}

var _ = time.Second

func TestCongestion(t *testing.T) {
	// 4 ns ticks: 5% of 15 s = 187.5e6 ticks per sample; 21 samples stay
	// inside the 32-bit counter (3.75e9 < 2^32).
	in := Input{History: series(21, func(i int) []Port {
		return []Port{port("mlx5_0", 1, 400, ctr("port_xmit_wait", uint64(i)*187_500_000)), port("mlx5_1", 1, 400, ctr("port_xmit_wait", uint64(i)*1_000_000))}
	})}
	th := Defaults()
	if got := Congestion(in, th); len(got) != 0 {
		t.Errorf("5%% waiting against a 10%% limit: %v", ids(got))
	}
	th.CongestionFraction = 0.04
	got := Congestion(in, th)
	if len(got) != 1 || got[0].Subject.Device != "mlx5_0" || !strings.Contains(got[0].Summary, "5% of the last 5m0s") {
		t.Fatalf("5%% waiting against a 4%% limit: %v", got)
	}
	th.XmitWaitTick = Duration(10 * time.Nanosecond) // 12.5%: capped share math
	if got := Congestion(in, th); len(got) != 1 || !strings.Contains(got[0].Summary, "12%") && !strings.Contains(got[0].Summary, "13%") {
		t.Errorf("with a 10 ns tick: %v", got)
	}
	// Saturated xmit_wait: unknown, reported by Saturated, not Congestion.
	sat := Input{History: series(41, func(i int) []Port {
		return []Port{port("mlx5_0", 1, 400, ctr("port_xmit_wait", min(uint64(i)*900_000_000, 1<<32-1)))}
	})}
	if got := Congestion(sat, Defaults()); len(got) != 0 {
		t.Errorf("saturated in the last window still judged: %v", ids(got))
	}
	if got := Saturated(sat); len(got) != 1 || got[0].ID != "port.counter_saturated" {
		t.Errorf("saturated xmit_wait not reported: %v", ids(got))
	}
}

func TestGrowthFinding(t *testing.T) {
	in := Input{Host: "gpu017", History: series(n, func(i int) []Port {
		v := uint64(0)
		if i > 20 {
			v = uint64(i-20) * 3 // +60 in the last window, 0 before
		}
		return []Port{port("mlx5_2", 1, 400, ctr("port_rcv_errors", v))}
	})}
	fs := ErrorRates(in, Defaults())
	if len(fs) != 1 {
		t.Fatalf("got %v", ids(fs))
	}
	f := fs[0]
	want := "mlx5_2 port 1: receive errors: 12/min above the limit of 10/min; grew from 0 to 60 versus the preceding 5m0s (more than 10×)"
	if f.Summary != want {
		t.Errorf("summary\n got %q\nwant %q", f.Summary, want)
	}
	wantEv := []string{"sys/class/infiniband/mlx5_2/ports/1/counters/port_rcv_errors: +60 in 5m0s (12/min)", "preceding window: +0 in 5m0s"}
	var gotEv []string
	for _, e := range f.Evidence {
		gotEv = append(gotEv, e.Source+": "+e.Value)
	}
	if diff := cmp.Diff(wantEv, gotEv); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
}
