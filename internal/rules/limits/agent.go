package limits

import (
	"strings"
	"time"
)

// The agent's rules over time (ibdoctor agent; trend.Defaults). Its
// config file (--config) overrides any of them by key; the per-minute
// limits of the IBTA counters are in Counters.
const (
	// AgentWindow is the short window over which rates and growth are
	// judged.
	AgentWindow = 5 * time.Minute
	// AgentGrowthFactor and AgentGrowthMinEvents: an error counter that
	// rose at least AgentGrowthMinEvents in the window and more than
	// AgentGrowthFactor times its rise in the window before grew by an
	// order of magnitude.
	AgentGrowthFactor    = 10.0
	AgentGrowthMinEvents = 10.0
	// AgentSymbolBERMax is the IBTA bit-error-rate line for symbol
	// errors.
	AgentSymbolBERMax = 1e-12
	// Per-minute limits of the RDMA transport counters.
	AgentOutOfBufferPerMin = 60.0
	AgentRetransmitsPerMin = 10.0
	AgentCNPIgnoredPerMin  = 1.0
	// AgentFlapWindow, AgentFlapWarning, AgentFlapCritical: flaps counted
	// over the window for a warning and for critical.
	AgentFlapWindow   = time.Hour
	AgentFlapWarning  = 1
	AgentFlapCritical = 3
	// AgentCongestionFraction is the share of time port_xmit_wait says
	// the port waited for credits; AgentXmitWaitTick the assumed duration
	// of one tick.
	AgentCongestionFraction = 0.10
	AgentXmitWaitTick       = 4 * time.Nanosecond
	// AgentRateShortfall: an active rate more than this share below the
	// best rate seen is critical.
	AgentRateShortfall = 0.20
	// AgentPauseRatio (pause frames per packet), AgentPauseTimeShare
	// (share of the window paused) and AgentPauseMinFrames (fewer are
	// ignored) judge PFC pausing.
	AgentPauseRatio     = 0.01
	AgentPauseTimeShare = 0.10
	AgentPauseMinFrames = 100.0
)

// Dur formats a duration the way config files write it: "5m", "1h", "90s",
// "4ns".
func Dur(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
