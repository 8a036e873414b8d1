package agent

import (
	"context"
	"log/slog"
	"maps"
	"slices"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// subjectAttr renders a finding's subject as a group of its set fields.
func subjectAttr(s finding.Subject) slog.Attr {
	var as []any
	str := func(k, v string) {
		if v != "" {
			as = append(as, slog.String(k, v))
		}
	}
	str("host", s.Host)
	str("device", s.Device)
	if s.Port != 0 {
		as = append(as, slog.Int("port", s.Port))
	}
	str("netdev", s.NetDev)
	str("pci", s.PCI)
	str("gpu", s.GPU)
	str("node_guid", s.NodeGUID)
	str("file", s.File)
	return slog.Group("subject", as...)
}

// logTransitions writes one line per finding raised since the last
// sample and one per finding cleared, and remembers the active set.
func (a *Agent) logTransitions(ctx context.Context, fs []finding.Finding) {
	cur := make(map[string]finding.Finding, len(fs))
	for _, f := range fs {
		k := key(f)
		cur[k] = f
		if _, was := a.active[k]; !was && a.opts.Log != nil {
			level := slog.LevelInfo
			if f.Severity == finding.Warning || f.Severity == finding.Critical {
				level = slog.LevelWarn
			}
			a.opts.Log.LogAttrs(ctx, level, "finding raised", slog.String("id", f.ID), slog.String("severity", string(f.Severity)),
				subjectAttr(f.Subject), slog.String("summary", f.Summary))
		}
	}
	if a.opts.Log != nil {
		for _, k := range sortedKeys(a.active) {
			if _, still := cur[k]; still {
				continue
			}
			f := a.active[k]
			a.opts.Log.LogAttrs(ctx, slog.LevelInfo, "finding cleared", slog.String("id", f.ID), slog.String("severity", string(f.Severity)),
				subjectAttr(f.Subject), slog.String("summary", f.Summary))
		}
	}
	a.active = cur
}

func sortedKeys(m map[string]finding.Finding) []string { return slices.Sorted(maps.Keys(m)) }
