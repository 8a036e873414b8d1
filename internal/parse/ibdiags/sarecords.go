package ibdiags

import (
	"io"
	"strconv"
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

// PathSL is the service level of one SA PathRecord: packets from SLID to
// DLID use SL (routing engines such as LASH and DFSSSP set it per path
// to keep routes that would deadlock on different virtual lanes).
type PathSL struct {
	SLID int `json:"slid"`
	DLID int `json:"dlid"`
	SL   int `json:"sl"`
	Line int `json:"line"`
}

// ParsePathSLs reads the SLID, DLID and SL of every PathRecord in saquery
// output (`saquery --src-to-dst S:D`, `saquery -p`, concatenated):
//
//	PathRecord dump:
//			dlid....................9
//			slid....................1
//			sl......................0x1
//
// A PathRecord without one of the three fields, or with a value out of
// range, is an error naming the record's line.
func ParsePathSLs(r io.Reader, src string) ([]PathSL, error) {
	recs, err := ParseSARecords(r, src)
	if err != nil {
		return nil, err
	}
	var out []PathSL
	for _, rec := range recs {
		if rec.Type != "PathRecord" {
			continue
		}
		p := PathSL{Line: rec.Line}
		for _, f := range []struct {
			name string
			max  int64
			dst  *int
		}{{"slid", 0xffff, &p.SLID}, {"dlid", 0xffff, &p.DLID}, {"sl", 15, &p.SL}} {
			s, ok := rec.Fields[f.name]
			if !ok {
				return nil, perr(src, rec.Line, "PathRecord dump:", "PathRecord without %s", f.name)
			}
			v, err := strconv.ParseInt(s, 0, 32)
			if err != nil || v < 0 || v > f.max {
				return nil, perr(src, rec.Line, "PathRecord dump:", "bad %s %q", f.name, s)
			}
			*f.dst = int(v)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, noData(src, "saquery PathRecord")
	}
	return out, nil
}
