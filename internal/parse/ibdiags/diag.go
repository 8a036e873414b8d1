package ibdiags

import (
	"io"
	"strings"
)

// DiagKind classifies a warning the tools print on stderr.
type DiagKind string

// Diagnostic kinds.
const (
	// DiagPMAFailed: "IB_GSI_PORT_COUNTERS query failed on spine2, Lid 3
	// port 1" or "classportinfo query failed on ...": the port's counters
	// could not be read.
	DiagPMAFailed DiagKind = "pma_query_failed"
	// DiagDuplicateGUID: libibnetdisc's "Duplicate Port: Port with guid
	// 0x... already exists in ports DB" (or Duplicate Node).
	DiagDuplicateGUID DiagKind = "duplicate_guid"
	// DiagNoAccess: umad could not be opened (no device, or permission
	// denied on /dev/infiniband/umad*).
	DiagNoAccess DiagKind = "umad_access"
	// DiagSAFailed: an SA query timed out (no SM, or SA unreachable).
	DiagSAFailed DiagKind = "sa_query_failed"
)

// Diag is one recognised stderr warning of an infiniband-diags tool.
type Diag struct {
	Kind     DiagKind `json:"kind"`
	NodeDesc string   `json:"node_desc,omitempty"`
	LID      int      `json:"lid,omitempty"`
	Port     int      `json:"port,omitempty"`
	GUID     uint64   `json:"guid,omitempty"`
	Text     string   `json:"text"`
	Line     int      `json:"line"`
}

// ParseDiags extracts the warnings ibdoctor acts on from a tool's stderr;
// lines it does not recognise (ibsim's "sim_connect" notes, mad_rpc
// retries) are skipped, so this never fails on content.
func ParseDiags(r io.Reader, src string) ([]Diag, error) {
	var out []Diag
	err := scanLines(r, src, func(n int, raw string) error {
		line := strings.TrimSpace(raw)
		d := Diag{Text: line, Line: n}
		switch {
		case strings.Contains(line, " query failed on "):
			d.Kind = DiagPMAFailed
			// "... query failed on spine2, Lid 3 port 1", or without LIDs
			// "... query failed on h1, DR path slid 0; dlid 0; 0 port 1".
			_, rest, _ := strings.Cut(line, " query failed on ")
			desc, addr, ok := cutLast(rest, ", Lid ")
			if !ok {
				if desc, addr, ok = cutLast(rest, ", DR path "); !ok {
					return nil
				}
				addr = "0 " + addr[strings.LastIndex(addr, " port ")+1:]
			}
			d.NodeDesc = desc
			f := strings.Fields(addr)
			if len(f) == 3 && f[1] == "port" {
				l, ok1 := parseUint(f[0], 0xffff)
				p, ok2 := parseUint(f[2], 255)
				if ok1 && ok2 {
					d.LID, d.Port = int(l), int(p)
				}
			}
		case strings.Contains(line, "Duplicate Port: Port with guid ") || strings.Contains(line, "Duplicate Node: Node with guid "):
			d.Kind = DiagDuplicateGUID
			_, rest, _ := strings.Cut(line, " with guid ")
			g, _, _ := strings.Cut(rest, " ")
			if v, ok := parseHexGUID(g); ok {
				d.GUID = v
			}
		case strings.Contains(line, "Permission denied") || strings.Contains(line, "client_register for mgmt") ||
			strings.Contains(line, "can't open UMAD port") || strings.Contains(line, "No such file or directory") && strings.Contains(line, "umad"):
			d.Kind = DiagNoAccess
		case strings.Contains(line, "Query SA failed") || strings.Contains(line, "sa call path_query failed"):
			d.Kind = DiagSAFailed
		default:
			return nil
		}
		out = append(out, d)
		return nil
	})
	return out, err
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
