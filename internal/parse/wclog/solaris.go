package wclog

import (
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxlog"
)

// SourceHermon is the Solaris and illumos driver of ConnectX HCAs (hermon,
// named mcxnex in Oracle Solaris 11), which logs its error completions
// itself.
const SourceHermon Source = "hermon"

// The driver logs an error completion (illumos
// usr/src/uts/common/io/ib/adapters/hermon/hermon_cq.c,
// hermon_cq_errcqe_consume) in up to three kernel lines, which syslog
// keeps as "Mar 30 21:04:53 zfstgt-1 genunix: [ID 204426 kern.warning]
// WARNING: …":
//
//	mcxnex0: CQE ERR: IB Client 'srpt'
//	mcxnex0: CQE ERR: cqe ffffa100fbff5fa0 QPN 0x40064 indx 0x1d81 status 0x13 vendor syndrome 0x88
//	mcxnex0: CQE remote access error
//
// The first names the kernel client (IBTF) whose queue pair it is, the
// second the CQE's syndrome ("status", HERMON_CQE_* of hermon_hw.h: the
// ConnectX syndromes, the values of rdma-core's MLX4_CQE_SYNDROME_* and
// MLX5_CQE_SYNDROME_*: 0x13 is a remote access error, ibv_wc_status 10,
// not the number 19) and the firmware's vendor syndrome, the third the
// syndrome in words (HERMON_FMA_* of hermon_fm.h). A flush is not logged.

// hermonWords are the words of the third line (HERMON_FMA_*), with the
// ibv_wc_status they are.
var hermonWords = map[string]nccllog.WCStatus{
	"local length error": 1, "local qp operation error": 2, "local protection error": 4,
	"wqe flushed in error": 5, "memory window bind error": 6, "bad response": 7,
	"local access error": 8, "remote invalid request error": 9, "remote access error": 10,
	"remote operation error": 11, "transport retry counter exceeded": 12,
	"rnr retry counter exceeded": 13, "remote aborted error": 16,
}

// hermonMsg cuts a line to the driver's message: the syslog date, host and
// tag ("genunix: [ID 204426 kern.warning] "), cmn_err's "WARNING: ", and
// returns the host (when syslog named one), the device ("mcxnex0") and
// the text after it. Lines without ": CQE " are refused at once.
func hermonMsg(l string) (host, dev, msg string, ok bool) {
	i := strings.Index(l, ": CQE ")
	if i < 0 {
		return "", "", "", false
	}
	head := l[:i]
	j := strings.LastIndexAny(head, " \t")
	dev = head[j+1:]
	if !hermonDevice(dev) {
		return "", "", "", false
	}
	before := strings.TrimSuffix(strings.TrimRight(head[:j+1], " \t"), "WARNING:")
	before = strings.TrimRight(before, " \t")
	if k := strings.Index(before, "[ID "); k >= 0 && strings.HasSuffix(before, "]") {
		// "Mar 30 21:04:53 zfstgt-1 genunix: [ID 204426 kern.warning]":
		// the host is the word before the program tag.
		if f := strings.Fields(before[:k]); len(f) >= 5 {
			host = f[len(f)-2]
		}
	} else if strings.TrimSpace(before) != "" {
		return "", "", "", false
	}
	return host, dev, l[i+2:], true
}

// hermonDevice says whether s is an instance of the driver: hermon0,
// mcxnex1.
func hermonDevice(s string) bool {
	for _, p := range []string{"hermon", "mcxnex"} {
		if n, ok := strings.CutPrefix(s, p); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			return true
		}
	}
	return false
}

// hermonLine reads one line of the driver's error completion: a CQE line
// (ok, Error filled), the words line (ok, Error with Status from the
// words), or the client line (client set, ok false).
func hermonLine(l string) (e Error, client string, ok bool) {
	host, dev, msg, found := hermonMsg(l)
	if !found {
		return e, "", false
	}
	e = Error{Text: l, Source: SourceHermon, Status: -1, Host: host, LocalNIC: dev}
	if c, isClient := strings.CutPrefix(msg, "CQE ERR: IB Client "); isClient {
		return e, strings.Trim(c, "'‘’\" "), false
	}
	if rest, isCQE := strings.CutPrefix(msg, "CQE ERR: cqe "); isCQE {
		f := strings.Fields(rest)
		vals := map[string]uint64{}
		for k := 1; k+1 < len(f); k++ {
			switch f[k] {
			case "QPN", "indx", "status", "syndrome":
				if v, err := strconv.ParseUint(strings.TrimPrefix(f[k+1], "0x"), 16, 32); err == nil {
					vals[f[k]] = v
				}
			}
		}
		synd, has := vals["status"]
		if !has {
			return e, "", false
		}
		e.CQE, e.Syndrome, e.Vendor, e.QPN = true, synd, vals["syndrome"], uint32(vals["QPN"])
		if st, known := ucxlog.SyndromeStatus(synd); known {
			e.Status, e.What = st, st.Info().Text
		}
		return e, "", true
	}
	words, isWords := strings.CutPrefix(msg, "CQE ")
	st, known := hermonWords[strings.ToLower(strings.TrimSpace(words))]
	if !isWords || !known {
		return e, "", false
	}
	e.Status, e.What = st, strings.TrimSpace(words)
	return e, "", true
}

// hermonWithin bounds how many lines apart the lines of one error
// completion are read together.
const hermonWithin = 4

// addHermon adds a line of the driver to the log: the words line joins the
// CQE line of the same device just before it (the words confirm its
// syndrome), the client line names the client of the next CQE line.
func (lg *Log) addHermon(n int, e Error, client string, isErr bool, pending *hermonClient) {
	if !isErr {
		*pending = hermonClient{line: n, dev: e.LocalNIC, name: client}
		return
	}
	if !e.CQE && len(lg.Errors) > 0 {
		last := &lg.Errors[len(lg.Errors)-1]
		if last.Source == SourceHermon && last.CQE && last.LocalNIC == e.LocalNIC && n-last.Line <= hermonWithin {
			if last.Status < 0 {
				last.Status = e.Status
			}
			last.What = e.What
			return
		}
	}
	if pending.name != "" && pending.dev == e.LocalNIC && n-pending.line <= hermonWithin {
		e.Client = pending.name
	}
	*pending = hermonClient{}
	e.Line = n
	lg.Errors = append(lg.Errors, e)
}

// hermonClient is the client line waiting for its CQE line.
type hermonClient struct {
	line      int
	dev, name string
}

// HermonLine says whether a line is one of the Solaris hermon driver's
// error-completion lines (a kernel line by its syslog tag, read here:
// the kernel log reader knows no ibv_wc_status).
func HermonLine(l string) bool {
	_, c, ok := hermonLine(l)
	return ok || c != ""
}
