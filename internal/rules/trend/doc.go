// Package trend holds ibdoctor's rules over time: pure functions from a
// sequence of counter samples (Sample, taken by the agent every interval)
// to findings. They judge trends rather than single values —
// "most failures are slow degradation": error rates against thresholds,
// growth by an order of magnitude versus the preceding window, a bit-error
// rate estimate against the IBTA 1e-12 line, flaps, congestion as a share
// of time, RDMA retransmissions and RoCE pause/ECN behaviour.
//
// Nothing here reads files or clocks: time comes from Sample.T.
package trend
