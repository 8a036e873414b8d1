package ibdiags

import (
	"io"
	"strings"
)

// SARecord is one record of `saquery` (NodeRecord, PortInfoRecord,
// PathRecord, … "dump:" blocks of "field......value" lines).
type SARecord struct {
	// Type is the record type as printed ("NodeRecord").
	Type   string            `json:"type"`
	Fields map[string]string `json:"fields"`
	Line   int               `json:"line"`
}

// IsSARecordHeader matches the first line of a saquery record dump
// ("NodeRecord dump:").
func IsSARecordHeader(t string) bool {
	typ, ok := strings.CutSuffix(strings.TrimSpace(t), " dump:")
	return ok && strings.HasSuffix(typ, "Record") && !strings.ContainsAny(typ, " \t")
}

// ParseSARecords parses saquery record dumps: each "XRecord dump:" line
// starts a record, its "name.....value" lines are the fields. Lines
// outside a record (the command line) are ignored; a line inside one that
// is not a field ends it.
func ParseSARecords(r io.Reader, src string) ([]SARecord, error) {
	var out []SARecord
	in := false
	err := scanLines(r, src, func(n int, raw string) error {
		t := strings.TrimSpace(raw)
		if IsSARecordHeader(t) {
			typ, _ := strings.CutSuffix(t, " dump:")
			out = append(out, SARecord{Type: typ, Fields: map[string]string{}, Line: n})
			in = true
			return nil
		}
		if !in || t == "" {
			return nil
		}
		i := strings.Index(t, "..")
		if i <= 0 {
			in = false
			return nil
		}
		out[len(out)-1].Fields[t[:i]] = strings.TrimSpace(strings.TrimLeft(t[i:], "."))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, noData(src, "saquery record dump")
	}
	return out, nil
}
