package trend

import (
	"fmt"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// pfcClasses are the PFC classes of mlx5 ethtool statistics: "global"
// (802.3x pause) and prio0..prio7 (mlx5 counters.rst, format "rx_%s_pause").
var pfcClasses = []string{"global", "prio0", "prio1", "prio2", "prio3", "prio4", "prio5", "prio6", "prio7"}

// RoCE judges PFC and ECN behaviour of RoCE ports from their netdev's
// ethtool statistics and the port's congestion hw_counters:
//
//   - roce.pfc_storm: tx_pause_storm_error_events rose (critical: the NIC
//     stopped honouring PFC) or tx_pause_storm_warning_events rose.
//   - roce.pause_heavy: on a PFC class, pause frames (rx+tx) per packet
//     above PauseRatio, or the share of time paused (rx_*_pause_duration,
//     µs) above PauseTimeShare, with at least PauseMinFrames pauses.
//   - roce.ecn_not_effective: the port paused (at least PauseMinFrames)
//     while no ECN-marked packets arrived and no CNPs were handled, or
//     ECN-marked packets arrived but the notification point sent no CNPs.
func RoCE(in Input, th Thresholds) []finding.Finding {
	now := in.now()
	w := time.Duration(th.Window)
	from := now.Add(-w)
	var out []finding.Finding
	for i := range in.last().Ports {
		p := &in.last().Ports[i]
		if p.NetDev == "" {
			continue
		}
		sum := func(src Source, name string) agg {
			return in.sum(p.Device, p.Port, src, name, from, now)
		}
		storm := sum(SrcEthtool, "tx_pause_storm_error_events")
		warn := sum(SrcEthtool, "tx_pause_storm_warning_events")
		if storm.inc > 0 || warn.inc > 0 {
			f := catalog.New("roce.pfc_storm", subject(in.Host, p),
				fmt.Sprintf("%s (%s port %d): PFC pause storm in the last %s (%.0f warning, %.0f error events)", p.NetDev, p.Device, p.Port, w, warn.inc, storm.inc),
				finding.Evidence{Source: sysPath(p, SrcEthtool, "tx_pause_storm_warning_events"), Value: fmt.Sprintf("+%.0f", warn.inc)},
				finding.Evidence{Source: sysPath(p, SrcEthtool, "tx_pause_storm_error_events"), Value: fmt.Sprintf("+%.0f", storm.inc)})
			if storm.inc == 0 {
				f.Severity = finding.Warning
			}
			out = append(out, f)
		}
		var pauses, most float64
		prio := "" // the priority that paused most, for the remedy's sysfs path
		var heavy []string
		var ev []finding.Evidence
		for _, c := range pfcClasses {
			rx := sum(SrcEthtool, "rx_"+c+"_pause")
			tx := sum(SrcEthtool, "tx_"+c+"_pause")
			frames := rx.inc + tx.inc
			pauses += frames
			if n, isPrio := strings.CutPrefix(c, "prio"); isPrio && frames > most {
				most, prio = frames, n
			}
			if frames < th.PauseMinFrames || frames == 0 {
				continue
			}
			pkts := sum(SrcEthtool, "rx_"+c+"_packets").inc + sum(SrcEthtool, "tx_"+c+"_packets").inc
			dur := sum(SrcEthtool, "rx_"+c+"_pause_duration")
			var why []string
			if pkts > 0 && frames/pkts > th.PauseRatio {
				why = append(why, fmt.Sprintf("%.2g pause frames per packet", frames/pkts))
			}
			if dur.known() && dur.inc/1e6/dur.secs > th.PauseTimeShare {
				why = append(why, fmt.Sprintf("paused %.0f%% of the time", 100*dur.inc/1e6/dur.secs))
			}
			if len(why) > 0 {
				heavy = append(heavy, c+": "+strings.Join(why, ", "))
				ev = append(ev, finding.Evidence{Source: sysPath(p, SrcEthtool, "rx_"+c+"_pause+tx_"+c+"_pause"), Value: fmt.Sprintf("+%.0f frames, +%.0f packets", frames, pkts)})
			}
		}
		if len(heavy) > 0 {
			out = append(out, catalog.New("roce.pause_heavy", subject(in.Host, p),
				fmt.Sprintf("%s (%s port %d) pauses heavily in the last %s: %s", p.NetDev, p.Device, p.Port, w, strings.Join(heavy, "; ")), ev...))
		}
		marked := sum(SrcHW, "np_ecn_marked_roce_packets")
		handled := sum(SrcHW, "rp_cnp_handled")
		sent := sum(SrcHW, "np_cnp_sent")
		switch {
		case pauses >= th.PauseMinFrames && pauses > 0 && marked.known() && handled.known() && marked.inc == 0 && handled.inc == 0:
			f := catalog.New("roce.ecn_not_effective", subject(in.Host, p),
				fmt.Sprintf("%s (%s port %d): %.0f PFC pauses in the last %s but no ECN-marked packets and no CNPs handled: congestion is left to PFC", p.NetDev, p.Device, p.Port, pauses, w),
				finding.Evidence{Source: "ethtool -S " + p.NetDev + ": *_pause", Value: fmt.Sprintf("+%.0f", pauses)},
				finding.Evidence{Source: sysPath(p, SrcHW, "np_ecn_marked_roce_packets"), Value: "+0"},
				finding.Evidence{Source: sysPath(p, SrcHW, "rp_cnp_handled"), Value: "+0"})
			if prio != "" {
				catalog.Fill(&f, "prio", prio)
			}
			out = append(out, f)
		case marked.inc > 0 && sent.known() && sent.inc == 0:
			out = append(out, catalog.New("roce.ecn_not_effective", subject(in.Host, p),
				fmt.Sprintf("%s (%s port %d) received %.0f ECN-marked packets in the last %s but sent no CNPs: the notification point is disabled", p.NetDev, p.Device, p.Port, marked.inc, w),
				finding.Evidence{Source: sysPath(p, SrcHW, "np_ecn_marked_roce_packets"), Value: fmt.Sprintf("+%.0f", marked.inc)},
				finding.Evidence{Source: sysPath(p, SrcHW, "np_cnp_sent"), Value: "+0"}))
		}
	}
	return out
}
