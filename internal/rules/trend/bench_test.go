package trend

import (
	"fmt"
	"testing"
)

// BenchmarkEvaluate: 10 ports (8 IB + 2 RoCE) × 41 samples (10 minutes at
// 15 s), the agent's per-interval rule work.
func BenchmarkEvaluate(b *testing.B) {
	in := Input{History: benchHistory(41)}
	b.ReportAllocs()
	for b.Loop() {
		Check(in, Defaults())
	}
}

// BenchmarkEvaluateWindows is BenchmarkEvaluate as the agent runs it: the
// window sums cached between intervals, one sample added per interval.
func BenchmarkEvaluateWindows(b *testing.B) {
	h := benchHistory(41 + 1000)
	w := NewWindows()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		Check(Input{History: h[i%1000 : i%1000+41], Windows: w}, Defaults())
		i++
	}
}

// benchHistory is n samples of 10 ports: 8 IB with error counters rising
// and 2 RoCE with pause and ECN counters.
func benchHistory(n int) []Sample {
	return series(n, func(i int) []Port {
		u := uint64(i)
		var ps []Port
		for d := 0; d < 8; d++ {
			ps = append(ps, port(fmt.Sprintf("mlx5_%d", d), 1, 400, ctr("symbol_error", u), ctr("link_error_recovery", 0), ctr("link_downed", 1),
				ctr("port_rcv_errors", 0), ctr("port_xmit_discards", 0), ctr("port_xmit_wait", u*1000), ctr("port_xmit_data", u*1e9), ctr("port_rcv_data", u*1e9),
				hw("out_of_buffer", u), hw("local_ack_timeout_err", 0), hw("packet_seq_err", 0), hw("implied_nak_seq_err", 0), hw("rnr_nak_retry_err", 0), hw("rp_cnp_ignored", 0)))
		}
		for d := 8; d < 10; d++ {
			p := rocePort(u, u*1e6, u*10, u*100, u*50, u*100, 0, 0)
			p.Device = fmt.Sprintf("mlx5_%d", d)
			ps = append(ps, p)
		}
		return ps
	})
}
