// Package rates turns two reads of a hardware counter into an increase and a
// per-second rate with the counter's semantics right (IBTA PortCounters widths and saturation; kernel drivers/infiniband/core/sysfs.c):
//
//   - IBTA PortCounters error counters saturate ("instead of overflowing,
//     they shall stop at all ones"): a counter at its maximum has an unknown
//     true value, so its increase is unknown (StatusSaturated), never a zero
//     or negative rate.
//   - mlx5 Q counters (hw_counters) are read as 32 bits and wrap: a drop is
//     one wrap, and 2^32 is added once (StatusWrapped).
//   - Any other drop is a reset (driver reload, perfquery -R): a new series
//     starts and no increase is reported (StatusReset), so no false alarm.
//
// Data counters in 4-octet words are converted to bytes here, once.
package rates
