package hcatext

import (
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// IsShowGIDsHeader matches the column header of MLNX_OFED's show_gids
// script: "DEV PORT INDEX GID IPv4 VER DEV".
func IsShowGIDsHeader(t string) bool {
	f := strings.Fields(t)
	return len(f) == 7 && f[0] == "DEV" && f[1] == "PORT" && f[2] == "INDEX" && f[3] == "GID" && f[4] == "IPv4" && f[5] == "VER" && f[6] == "DEV"
}

// ParseShowGIDs parses the output of MLNX_OFED's show_gids: one row per
// populated GID table slot, "mlx5_0 1 3 fe80:…:c441 [172.19.0.60] v2
// ens1f0" (the IPv4 column is empty for an address that is not IPv4),
// under the "DEV PORT INDEX GID IPv4 VER DEV" header and its dashes, and
// a closing "n_gids_found=N". The script reads
// /sys/class/infiniband/<dev>/ports/<port>/gids/<index> with
// gid_attrs/types/<index> (v1 "IB/RoCE v1", v2 "RoCE v2") and
// gid_attrs/ndevs/<index>, so the rows become the ports' GID tables; a
// port whose rows name a netdev is a RoCE (Ethernet) port. Port state
// and rate are not in the output. A table that ends without the closing
// line names the port of its last row in Unclosed. ErrNoData when no row
// was read.
func ParseShowGIDs(rd io.Reader, source string) (*Result, error) {
	r := newResult(source)
	var last PortName
	closed := false
	// A row a mail client or a narrow terminal wrapped before its VER
	// column waits for the next line: when that holds only VER [DEV], the
	// two are one row (read at the first line's number).
	var held struct {
		n    int
		line string
	}
	row := func(n int, line string) {
		t := strings.TrimSpace(line)
		if held.line != "" {
			h := held
			held.line = ""
			if f := strings.Fields(t); len(f) >= 1 && len(f) <= 2 {
				if _, err := ib.ParseGIDType(f[0]); err == nil {
					n, line, t = h.n, h.line+" "+t, strings.TrimSpace(h.line)+" "+t
				} else {
					r.skip(h.n, h.line, "no VER column")
				}
			} else {
				r.skip(h.n, h.line, "no VER column")
			}
		}
		switch {
		case t == "", IsShowGIDsHeader(t), strings.Trim(t, "- \t") == "":
			return
		case strings.HasPrefix(t, "n_gids_found="):
			closed = true
			return
		}
		if why, ok := isNoise(t); ok {
			r.skip(n, line, "%s", why)
			return
		}
		f := strings.Fields(t)
		if len(f) < 4 || len(f) > 7 {
			r.skip(n, line, "not a show_gids row (DEV PORT INDEX GID [IPv4] VER [DEV])")
			return
		}
		port, err1 := strconv.Atoi(f[1])
		idx, err2 := strconv.Atoi(f[2])
		gid, err3 := ib.ParseGID(f[3])
		if err1 != nil || err2 != nil || err3 != nil || port < 0 || port > 255 || idx < 0 || strings.ContainsAny(f[0], "/'") {
			r.skip(n, line, "not a show_gids row (DEV PORT INDEX GID [IPv4] VER [DEV])")
			return
		}
		rest := f[4:]
		if len(rest) > 0 && strings.Count(rest[0], ".") == 3 {
			rest = rest[1:] // the IPv4 column, derived from the GID
		}
		if len(rest) == 0 {
			held.n, held.line = n, line
			return
		}
		typ, err := ib.ParseGIDType(rest[0])
		if err != nil {
			r.skip(n, line, "unknown GID version %q", rest[0])
			return
		}
		p := r.port(f[0], port)
		e := snapshot.GIDEntry{Index: idx, GID: gid, Type: typ}
		if len(rest) > 1 {
			e.NetDev = rest[1]
			if p.NetDev == "" {
				p.NetDev = rest[1]
			}
			p.LinkLayer = ib.LinkLayerEthernet
		}
		p.GIDs = append(p.GIDs, e)
		last, closed = PortName{f[0], port}, false
		if path := portPath(f[0], port, "gid_attrs/types"); r.Lines[path].N == 0 {
			r.note(path, n, line)
		}
		r.note(portPath(f[0], port, "gids/"+strconv.Itoa(idx)), n, line)
	}
	err := r.scanLines(rd, row)
	if held.line != "" {
		r.skip(held.n, held.line, "no VER column")
	}
	if !closed && last.Device != "" {
		r.Unclosed = &last
	}
	return r.finish(err)
}

// ShowGIDsFound reads the "n_gids_found=N" line show_gids ends with: N,
// the line's number (1-based) and text; ok is false when there is none.
// "n_gids_found=0" under the header is a table with no GID at all, which
// ParseShowGIDs reports as ErrNoData.
func ShowGIDsFound(text string) (n, line int, l string, ok bool) {
	for i, raw := range strings.Split(text, "\n") {
		t := strings.TrimSpace(raw)
		if v, found := strings.CutPrefix(t, "n_gids_found="); found {
			if x, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && x >= 0 {
				n, line, l, ok = x, i+1, t, true
			}
		}
	}
	return n, line, l, ok
}
