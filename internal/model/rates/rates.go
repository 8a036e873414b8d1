package rates

import (
	"fmt"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
)

// Status says how an increase between two reads was obtained and whether
// it is known.
type Status uint8

// Statuses of an increase.
const (
	// StatusOK: the counter rose or stayed; the increase is cur-prev.
	StatusOK Status = iota
	// StatusWrapped: a wrap-prone counter dropped; the increase is
	// cur+2^bits-prev (one wrap assumed).
	StatusWrapped
	// StatusReset: a non-wrapping counter dropped (driver reload,
	// perfquery -R); the series restarts at cur and the increase is unknown.
	StatusReset
	// StatusSaturated: a saturating counter sits at its maximum; its true
	// value and increase are unknown.
	StatusSaturated
	// StatusNoData: there is no earlier read, or time did not advance.
	StatusNoData
)

var statusNames = [...]string{"ok", "wrapped", "reset", "saturated", "no_data"}

// String returns the status as used in JSON and evidence ("ok", "wrapped",
// "reset", "saturated", "no_data").
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "unknown"
}

// MarshalText encodes the status by name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a status name.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if n == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("unknown rate status %q", b)
}

// Known reports whether an increase with this status is a real number.
func (s Status) Known() bool { return s == StatusOK || s == StatusWrapped }

// WrapProne reports whether a drop of the counter means it wrapped: a
// non-saturating counter narrower than 64 bits (the 32-bit mlx5 Q
// counters). Saturating and 64-bit counters never wrap in practice, so a
// drop of those is a reset.
func WrapProne(spec ib.CounterSpec) bool {
	return !spec.Saturating && spec.Bits > 0 && spec.Bits < 64
}

// Increase returns how much a counter grew from prev to cur, in the
// counter's own unit, and how that was decided. The increase is meaningful
// only when the status is Known.
func Increase(spec ib.CounterSpec, prev, cur uint64) (uint64, Status) {
	if spec.IsSaturated(cur) {
		return 0, StatusSaturated
	}
	if cur >= prev {
		return cur - prev, StatusOK
	}
	if WrapProne(spec) {
		return cur + (spec.Max() - prev) + 1, StatusWrapped
	}
	return 0, StatusReset
}

// Rate is a per-second rate over one interval, in base units (bytes for
// data counters, the counter's unit otherwise).
type Rate struct {
	PerSecond float64 `json:"per_second"`
	// Increase is the growth in base units over the interval.
	Increase float64 `json:"increase"`
	Status   Status  `json:"status"`
}

// Known reports whether PerSecond is a real rate.
func (r Rate) Known() bool { return r.Status.Known() }

// Per computes the per-second rate of a counter read as prev at t0 and cur
// at t1. Data counters in 4-octet words become bytes per second.
func Per(spec ib.CounterSpec, prev, cur uint64, t0, t1 time.Time) Rate {
	dt := t1.Sub(t0).Seconds()
	if dt <= 0 {
		return Rate{Status: StatusNoData}
	}
	inc, st := Increase(spec, prev, cur)
	if !st.Known() {
		return Rate{Status: st}
	}
	f := float64(inc)
	if m := spec.BytesPerUnit(); m > 0 {
		f *= float64(m)
	}
	return Rate{PerSecond: f / dt, Increase: f, Status: st}
}
