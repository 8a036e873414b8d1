package limits

import (
	"fmt"
	"math"
	"strconv"
)

// The defaults of each rule set, one table per domain. The rules judge with
// these constants and the catalogue prints them (Pct, Float, Uint, MiB), so
// `ibdoctor rules` shows the value in force; each rule package's
// TestDocumentedDefaultsInForce holds the two together.

// Node rules (status, check, doctor).
const (
	// NodeRateShortfallCritical: a port more than this share below its
	// expected rate is critical, any smaller shortfall a warning.
	NodeRateShortfallCritical = 0.20
)

// nccl-tests rules (nccl perf, analyze).
const (
	// NCCLBusBWWarn and NCCLBusBWCrit are fractions of the expected
	// large-message busbw below which nccl.busbw_low warns or is critical.
	NCCLBusBWWarn = 0.9
	NCCLBusBWCrit = 0.8
	// NCCLEfficiency is the share of the NICs' line rate busbw should
	// reach.
	NCCLEfficiency = 0.8
	// NCCLSmallLatencyUS is the time of the smallest message (µs) above
	// which small messages count as slow.
	NCCLSmallLatencyUS = 100.0
	// NCCLInplaceGap is the relative in-place/out-of-place busbw gap that
	// counts as asymmetric.
	NCCLInplaceGap = 0.25
	// NCCLPlateauGrowth is the busbw growth between the two largest sizes
	// that counts as still rising.
	NCCLPlateauGrowth = 0.10
)

// perftest rules (perf analyze).
const (
	// PerfBWWarn and PerfBWCrit are fractions of the line rate.
	PerfBWWarn = 0.9
	PerfBWCrit = 0.8
	// PerfLatFactor is the multiple of the latency floor above which
	// latency is high.
	PerfLatFactor = 1.5
	// PerfMinBWBytes is the smallest message that can show line rate.
	PerfMinBWBytes = 65536
)

// PairSlowFraction: a pair (perf pairwise) is slow below this fraction of
// the reference bandwidth.
const PairSlowFraction = 0.8

// Routing rules (fabric check): a link group whose max/mean route count
// reaches RouteImbalanceRatio is unbalanced, unless its busiest link
// carries fewer than RouteImbalanceMinRoutes routes.
const (
	RouteImbalanceRatio     = 1.5
	RouteImbalanceMinRoutes = 16
)

// Host triage rules (doctor).
const (
	// HostAERCorrectable correctable AER errors warn.
	HostAERCorrectable = 10
	// HostKmsgFlapWarning and HostKmsgFlapCritical count mlx5 link-down
	// events in the kernel log window.
	HostKmsgFlapWarning  = 2
	HostKmsgFlapCritical = 5
	// HostMemlockCritical is the locked-memory soft limit (bytes) below
	// which memory registration fails.
	HostMemlockCritical = 64 << 20
	// HostPauseRatio is PFC pause frames per packet on a priority,
	// HostPauseMin the fewest pause frames that count, HostPauseTimeShare
	// the share of time paused.
	HostPauseRatio     = 0.01
	HostPauseMin       = 10000
	HostPauseTimeShare = 0.10
	// HostRxDropRatio is receive drops for lack of host buffers per
	// received packet, HostRxDropMin the fewest drops that count.
	HostRxDropRatio = 0.0001
	HostRxDropMin   = 1000
)

// Pct formats a fraction as a percentage: 0.9 → "90%".
func Pct(f float64) string {
	return strconv.FormatFloat(math.Round(f*1e6)/1e4, 'g', -1, 64) + "%"
}

// Share formats a share of one with two decimals, as config files write
// it: 0.1 → "0.10".
func Share(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

// MiB formats a byte count in MiB: 64 << 20 → "64 MiB".
func MiB(b uint64) string { return fmt.Sprintf("%d MiB", b>>20) }
