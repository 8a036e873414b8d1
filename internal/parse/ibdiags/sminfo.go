package ibdiags

import (
	"io"
	"strings"
)

// SMInfo is sminfo's one-line answer:
// "sminfo: sm lid 1 sm guid 0x200000, activity count 130 priority 0 state 3 SMINFO_MASTER".
type SMInfo struct {
	LID      int    `json:"lid"`
	GUID     uint64 `json:"guid"`
	Activity uint64 `json:"activity"`
	Priority int    `json:"priority"`
	// State is the SMInfo state: 0 not active, 1 discovering, 2 standby,
	// 3 master; StateName as printed (SMINFO_MASTER).
	State     int    `json:"state"`
	StateName string `json:"state_name"`
	Line      int    `json:"line"`
}

// SM states (IBA 14.4.1, SMInfo.SMState).
const (
	SMNotActive   = 0
	SMDiscovering = 1
	SMStandby     = 2
	SMMaster      = 3
)

// ParseSMInfo parses one or more sminfo answers (one per queried SM).
func ParseSMInfo(r io.Reader, src string) ([]SMInfo, error) {
	var out []SMInfo
	err := scanLines(r, src, func(n int, raw string) error {
		line := strings.TrimSpace(raw)
		if line == "" {
			return nil
		}
		rest, ok := strings.CutPrefix(line, "sminfo: sm lid ")
		if !ok {
			return perr(src, n, raw, `want "sminfo: sm lid N sm guid 0x..., activity count N priority N state N NAME"`)
		}
		f := strings.Fields(strings.ReplaceAll(rest, ",", ""))
		// N sm guid G activity count A priority P state S NAME (12 fields)
		if len(f) != 12 || f[1] != "sm" || f[2] != "guid" || f[4] != "activity" || f[5] != "count" || f[7] != "priority" || f[9] != "state" {
			return perr(src, n, raw, "unexpected sminfo fields")
		}
		lid, ok1 := parseUint(f[0], 0xffff)
		g, ok2 := parseHexGUID(f[3])
		act, ok3 := parseUint(f[6], 1<<32)
		pri, ok4 := parseUint(f[8], 15)
		st, ok5 := parseUint(f[10], 3)
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
			return perr(src, n, raw, "bad sminfo value")
		}
		s := SMInfo{LID: int(lid), GUID: g, Activity: act, Priority: int(pri), State: int(st), StateName: f[11], Line: n}
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, noData(src, "sminfo answer")
	}
	return out, nil
}
