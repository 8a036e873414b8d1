package trend

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

// Duration is a time.Duration written as "5m", "90s" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	if v <= 0 {
		return fmt.Errorf("line %d: duration %q must be positive", n.Line, s)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as a string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// String formats the duration.
func (d Duration) String() string { return time.Duration(d).String() }

// Thresholds are the limits of the rules over time. Defaults() documents
// each; a YAML config file (--config) overrides any subset.
type Thresholds struct {
	// Window is the short window over which rates and growth are judged;
	// growth compares it with the window before it.
	Window Duration `yaml:"window"`
	// GrowthFactor and GrowthMinEvents: an error counter that rose at
	// least GrowthMinEvents in the last window and more than GrowthFactor
	// times its rise in the preceding window "grew by an order of
	// magnitude".
	GrowthFactor    float64 `yaml:"growth_factor"`
	GrowthMinEvents float64 `yaml:"growth_min_events"`
	// SymbolBERMax is the IBTA bit-error-rate line (1e-12) for the
	// symbol-error estimate errors / (rate bits/s × seconds).
	SymbolBERMax float64 `yaml:"symbol_ber_max"`
	// Per-minute rate limits of error counters, averaged over Window.
	SymbolErrorsPerMin float64 `yaml:"symbol_errors_per_min"`
	LinkRecoveryPerMin float64 `yaml:"link_recovery_per_min"`
	RcvErrorsPerMin    float64 `yaml:"rcv_errors_per_min"`
	XmitDiscardsPerMin float64 `yaml:"xmit_discards_per_min"`
	OutOfBufferPerMin  float64 `yaml:"out_of_buffer_per_min"`
	RetransmitsPerMin  float64 `yaml:"retransmits_per_min"`
	CNPIgnoredPerMin   float64 `yaml:"cnp_ignored_per_min"`
	// FlapWindow, FlapWarning, FlapCritical: flaps (link_downed
	// increments, carrier changes, ACTIVE→not ACTIVE) counted over
	// FlapWindow from the flap history.
	FlapWindow   Duration `yaml:"flap_window"`
	FlapWarning  int      `yaml:"flap_warning"`
	FlapCritical int      `yaml:"flap_critical"`
	// CongestionFraction is the share of time port_xmit_wait says the
	// port waited for credits; XmitWaitTick is the duration of one tick of
	// port_xmit_wait (an assumption: see Congestion).
	CongestionFraction float64  `yaml:"congestion_fraction"`
	XmitWaitTick       Duration `yaml:"xmit_wait_tick"`
	// RateShortfall: an active rate more than this share below the
	// expected rate is critical; any shortfall is a warning.
	RateShortfall float64 `yaml:"rate_shortfall"`
	// PauseRatio: PFC pause frames per packet on a priority (the
	// catalogue's pause_ratio); PauseTimeShare: share of the window a
	// priority spent paused; PauseMinFrames: fewer pause frames than this
	// in the window are ignored.
	PauseRatio     float64 `yaml:"pause_ratio"`
	PauseTimeShare float64 `yaml:"pause_time_share"`
	PauseMinFrames float64 `yaml:"pause_min_frames"`
}

// Defaults returns the documented defaults.
func Defaults() Thresholds {
	return Thresholds{
		Window:             Duration(limits.AgentWindow),
		GrowthFactor:       limits.AgentGrowthFactor,
		GrowthMinEvents:    limits.AgentGrowthMinEvents,
		SymbolBERMax:       limits.AgentSymbolBERMax,
		SymbolErrorsPerMin: limits.SymbolError.PerMin,
		LinkRecoveryPerMin: limits.LinkErrorRecovery.PerMin,
		RcvErrorsPerMin:    limits.RcvErrors.PerMin,
		XmitDiscardsPerMin: limits.XmitDiscards.PerMin,
		OutOfBufferPerMin:  limits.AgentOutOfBufferPerMin,
		RetransmitsPerMin:  limits.AgentRetransmitsPerMin,
		CNPIgnoredPerMin:   limits.AgentCNPIgnoredPerMin,
		FlapWindow:         Duration(limits.AgentFlapWindow),
		FlapWarning:        limits.AgentFlapWarning,
		FlapCritical:       limits.AgentFlapCritical,
		CongestionFraction: limits.AgentCongestionFraction,
		XmitWaitTick:       Duration(limits.AgentXmitWaitTick),
		RateShortfall:      limits.AgentRateShortfall,
		PauseRatio:         limits.AgentPauseRatio,
		PauseTimeShare:     limits.AgentPauseTimeShare,
		PauseMinFrames:     limits.AgentPauseMinFrames,
	}
}

// Doc is one row of the threshold table (README and `ibdoctor rules`).
type Doc struct {
	Key, Default, Rules, Meaning string
}

// Docs is the threshold table in config-key order.
func Docs() []Doc {
	return []Doc{
		{"window", limits.Dur(limits.AgentWindow), "all rate and growth rules", "short window over which rates are averaged; growth compares it with the window before"},
		{"growth_factor", limits.Float(limits.AgentGrowthFactor), "port.symbol_errors, port.link_recovery, port.rcv_errors, port.xmit_discards", "rise in the last window versus the preceding one that counts as an order of magnitude"},
		{"growth_min_events", limits.Float(limits.AgentGrowthMinEvents), "same", "smallest rise in the last window that growth may fire on"},
		{"symbol_ber_max", limits.Float(limits.AgentSymbolBERMax), "port.symbol_errors", "IBTA bit-error-rate line for symbol errors / (active rate × seconds)"},
		{"symbol_errors_per_min", limits.Float(limits.SymbolError.PerMin), "port.symbol_errors", "rate limit when the active rate is unknown"},
		{"link_recovery_per_min", limits.Float(limits.LinkErrorRecovery.PerMin), "port.link_recovery", "retrains per minute (one per 5 min window)"},
		{"rcv_errors_per_min", limits.Float(limits.RcvErrors.PerMin), "port.rcv_errors", "received bad packets per minute"},
		{"xmit_discards_per_min", limits.Float(limits.XmitDiscards.PerMin), "port.xmit_discards", "discarded outbound packets per minute"},
		{"out_of_buffer_per_min", limits.Float(limits.AgentOutOfBufferPerMin), "rdma.out_of_buffer", "drops for lack of a receive WQE per minute"},
		{"retransmits_per_min", limits.Float(limits.AgentRetransmitsPerMin), "rdma.retransmits", "local_ack_timeout_err+packet_seq_err+implied_nak_seq_err+rnr_nak_retry_err per minute"},
		{"cnp_ignored_per_min", limits.Float(limits.AgentCNPIgnoredPerMin), "rdma.cnp_ignored", "rp_cnp_ignored per minute"},
		{"flap_window", limits.Dur(limits.AgentFlapWindow), "port.link_flapping", "how far back flaps are counted (flap history survives restarts)"},
		{"flap_warning", limits.Uint(limits.AgentFlapWarning), "port.link_flapping", "flaps in flap_window for a warning"},
		{"flap_critical", limits.Uint(limits.AgentFlapCritical), "port.link_flapping", "flaps in flap_window for critical"},
		{"congestion_fraction", limits.Share(limits.AgentCongestionFraction), "port.congestion", "share of time port_xmit_wait reports waiting for credits"},
		{"xmit_wait_tick", limits.Dur(limits.AgentXmitWaitTick), "port.congestion", "duration of one port_xmit_wait tick: implementation-defined, assumed 4 ns (the 32-bit counter then spans 17 s of waiting); set it for your HCA"},
		{"rate_shortfall", limits.Share(limits.AgentRateShortfall), "port.rate_below_expected", "shortfall below the expected rate that is critical (any shortfall warns)"},
		{"pause_ratio", limits.Share(limits.AgentPauseRatio), "roce.pause_heavy", "PFC pause frames per packet on a priority"},
		{"pause_time_share", limits.Share(limits.AgentPauseTimeShare), "roce.pause_heavy", "share of the window a priority was paused (rx_prio*_pause_duration)"},
		{"pause_min_frames", limits.Float(limits.AgentPauseMinFrames), "roce.pause_heavy, roce.ecn_not_effective", "pause frames in the window below which pausing is ignored"},
	}
}

// LoadConfig reads thresholds from YAML over the defaults. Unknown keys are
// rejected; errors name the source and line.
func LoadConfig(name string, r io.Reader) (Thresholds, error) {
	th := Defaults()
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return th, fmt.Errorf("%s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&th); err != nil && !errors.Is(err, io.EOF) {
		return th, fmt.Errorf("%s: %w", name, err)
	}
	if err := th.Validate(); err != nil {
		return th, fmt.Errorf("%s: %w", name, err)
	}
	return th, nil
}

// Validate rejects limits that would make rules fire always or never.
func (t Thresholds) Validate() error {
	pos := map[string]float64{
		"growth_factor": t.GrowthFactor, "symbol_ber_max": t.SymbolBERMax,
		"congestion_fraction": t.CongestionFraction, "rate_shortfall": t.RateShortfall,
		"pause_ratio": t.PauseRatio, "pause_time_share": t.PauseTimeShare,
	}
	for _, k := range []string{"growth_factor", "symbol_ber_max", "congestion_fraction", "rate_shortfall", "pause_ratio", "pause_time_share"} {
		if !(pos[k] > 0) {
			return fmt.Errorf("%s must be positive, got %v", k, pos[k])
		}
	}
	if t.CongestionFraction > 1 || t.RateShortfall >= 1 || t.PauseTimeShare > 1 {
		return errors.New("congestion_fraction, pause_time_share and rate_shortfall are shares of one")
	}
	for k, v := range map[string]float64{"growth_min_events": t.GrowthMinEvents, "symbol_errors_per_min": t.SymbolErrorsPerMin,
		"link_recovery_per_min": t.LinkRecoveryPerMin, "rcv_errors_per_min": t.RcvErrorsPerMin, "xmit_discards_per_min": t.XmitDiscardsPerMin,
		"out_of_buffer_per_min": t.OutOfBufferPerMin, "retransmits_per_min": t.RetransmitsPerMin, "cnp_ignored_per_min": t.CNPIgnoredPerMin,
		"pause_min_frames": t.PauseMinFrames} {
		if !(v >= 0) {
			return fmt.Errorf("%s must not be negative, got %v", k, v)
		}
	}
	if t.FlapWarning < 1 || t.FlapCritical < t.FlapWarning {
		return fmt.Errorf("need 1 <= flap_warning <= flap_critical, got %d and %d", t.FlapWarning, t.FlapCritical)
	}
	if t.Window <= 0 || t.FlapWindow <= 0 || t.XmitWaitTick <= 0 {
		return errors.New("window, flap_window and xmit_wait_tick must be positive")
	}
	return nil
}
