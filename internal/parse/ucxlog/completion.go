package ucxlog

import (
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
)

// syndromes maps an mlx5 CQE error syndrome to the ibv_wc_status the mlx5
// provider reports for it (rdma-core providers/mlx5/cq.c
// mlx5_handle_error_cqe; the syndromes are MLX5_CQE_SYNDROME_* of
// providers/mlx5/mlx5dv.h).
var syndromes = map[uint64]nccllog.WCStatus{
	0x01: 1,  // LOCAL_LENGTH_ERR → IBV_WC_LOC_LEN_ERR
	0x02: 2,  // LOCAL_QP_OP_ERR → IBV_WC_LOC_QP_OP_ERR
	0x04: 4,  // LOCAL_PROT_ERR → IBV_WC_LOC_PROT_ERR
	0x05: 5,  // WR_FLUSH_ERR → IBV_WC_WR_FLUSH_ERR
	0x06: 6,  // MW_BIND_ERR → IBV_WC_MW_BIND_ERR
	0x10: 7,  // BAD_RESP_ERR → IBV_WC_BAD_RESP_ERR
	0x11: 8,  // LOCAL_ACCESS_ERR → IBV_WC_LOC_ACCESS_ERR
	0x12: 9,  // REMOTE_INVAL_REQ_ERR → IBV_WC_REM_INV_REQ_ERR
	0x13: 10, // REMOTE_ACCESS_ERR → IBV_WC_REM_ACCESS_ERR
	0x14: 11, // REMOTE_OP_ERR → IBV_WC_REM_OP_ERR
	0x15: 12, // TRANSPORT_RETRY_EXC_ERR → IBV_WC_RETRY_EXC_ERR
	0x16: 13, // RNR_RETRY_EXC_ERR → IBV_WC_RNR_RETRY_EXC_ERR
	0x22: 16, // REMOTE_ABORTED_ERR → IBV_WC_REM_ABORT_ERR
}

// SyndromeStatus returns the ibv_wc_status of an mlx5 CQE syndrome.
func SyndromeStatus(synd uint64) (nccllog.WCStatus, bool) {
	s, ok := syndromes[synd]
	return s, ok
}

// completions finds the work-completion errors among the records, each
// with the work-request line its process printed right after it.
func completions(rs []Record) []Completion {
	var out []Completion
	for i, r := range rs {
		c, ok := completion(r)
		if !ok {
			continue
		}
		// The WQE dump is the next line of the same process and source.
		for _, nx := range rs[i+1 : min(len(rs), i+4)] {
			if nx.Proc() != r.Proc() || nx.File != r.File {
				continue
			}
			if q, ok := qpLine(nx.Msg); ok {
				c.QP = q
				c.RemoteLID = remoteLID(q)
			}
			break
		}
		out = append(out, c)
	}
	return out
}

// completion reads one line as a completion error.
func completion(r Record) (Completion, bool) {
	c := Completion{Record: r, Status: -1}
	m := r.Msg
	for _, p := range []string{"FATAL: ", "Fatal: ", "UCX Fatal: ", "Error: "} {
		m = strings.TrimPrefix(m, p)
	}
	// ib_mlx5_log.c since UCX 1.6: "<what> on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)".
	if i := strings.Index(m, " (synd 0x"); i > 0 {
		head, tail := m[:i], m[i+len(" (synd "):]
		// Before 1.6: "Error on mlx5_3:1 QP 0xe6d7 wqe[7821]: <what> (synd 0x15 vend 0x81) opcode SEND".
		if rest, ok := strings.CutPrefix(head, "Error on "); ok {
			dev, what, ok := strings.Cut(rest, ": ")
			if !ok {
				return c, false
			}
			c.What = what
			if f := strings.Fields(dev); len(f) > 0 {
				c.Device, c.Port = devPort(f[0])
			}
			if qp := strings.Fields(dev); len(qp) > 1 {
				c.QP = strings.Join(qp[1:], " ")
			}
		} else {
			on := strings.LastIndex(head, " on ")
			if on <= 0 {
				return c, false
			}
			c.What = head[:on]
			where := head[on+len(" on "):]
			if d, ll, ok := strings.Cut(where, "/"); ok {
				where, c.LinkLayer = d, ll
			}
			c.Device, c.Port = devPort(where)
		}
		f := strings.Fields(strings.NewReplacer(")", " ").Replace(tail))
		if len(f) == 0 {
			return c, false
		}
		s, err := strconv.ParseUint(strings.TrimPrefix(f[0], "0x"), 16, 32)
		if err != nil {
			return c, false
		}
		c.Syndrome, c.HasSyndrome = s, true
		if len(f) >= 3 && f[1] == "vend" {
			if v, err := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 32); err == nil {
				c.Vendor = v
			}
		}
		if st, ok := syndromes[s]; ok {
			c.Status = st
		}
		return c, c.Device != ""
	}
	// The verbs transports: "Send completion with error: transport retry
	// counter exceeded [qpn 0x… wrid 0x…vendor_err 0x51]".
	// ASCII case folding keeps every byte where it is (strings.ToLower
	// would widen an invalid byte into U+FFFD and shift the indexes).
	low := asciiLower(m)
	// dc_verbs.c before UCX 1.3: "Send completion with error on qp
	// 0x6214: remote access error syndrome 0x88", the number being the
	// work completion's vendor_err (the mlx5 vendor syndrome), not a
	// CQE syndrome.
	for _, p := range []string{"send completion with error on qp ", "receive completion with error on qp ", "completion with error on qp "} {
		i := strings.Index(low, p)
		if i < 0 {
			continue
		}
		qp, text, ok := strings.Cut(m[i+len(p):], ": ")
		if !ok || !strings.HasPrefix(qp, "0x") {
			return c, false
		}
		c.QP = "qp " + qp
		if j := strings.LastIndex(asciiLower(text), " syndrome 0x"); j >= 0 {
			if x, err := strconv.ParseUint(strings.TrimSpace(text[j+len(" syndrome 0x"):]), 16, 32); err == nil {
				c.Vendor = x
			}
			text = text[:j]
		}
		c.What = strings.TrimSpace(text)
		c.Status = wcStatusOf(c.What)
		return c, c.What != ""
	}
	// ib_iface.h UCT_IB_IFACE_VERBS_COMPLETION_ERR (the ud/srd verbs
	// interfaces, EFA's srd_iface.c among them): "send completion[0]
	// with error on rdmap132s0/0x55cf4425cfb0: Work Request Flushed
	// Error, vendor_err 0x1 wr_id 0x7f8b20022480".
	if i := strings.Index(low, "completion["); i >= 0 {
		if j := strings.Index(low[i:], "] with error on "); j > 0 {
			rest := m[i+j+len("] with error on "):]
			dev, text, ok := strings.Cut(rest, ": ")
			if !ok {
				return c, false
			}
			dev, _, _ = strings.Cut(dev, "/")
			c.Device, c.Port = devPort(dev)
			if k := strings.LastIndex(text, ", vendor_err 0x"); k >= 0 {
				v, wr, _ := strings.Cut(text[k+len(", vendor_err 0x"):], " ")
				if x, err := strconv.ParseUint(v, 16, 32); err == nil {
					c.Vendor = x
				}
				if wr = strings.TrimSpace(wr); wr != "" {
					c.QP = wr
				}
				text = text[:k]
			}
			c.What = strings.TrimSpace(text)
			c.Status = wcStatusOf(c.What)
			return c, c.What != "" && c.Device != ""
		}
	}
	for _, p := range []string{"send completion with error: ", "receive completion with error: ", "recv completion with error: ", "completion with error: "} {
		i := strings.Index(low, p)
		if i < 0 {
			continue
		}
		text := m[i+len(p):]
		if j := strings.IndexByte(text, '['); j >= 0 {
			if k := strings.Index(text[j:], "vendor_err 0x"); k >= 0 {
				v := strings.TrimRight(text[j+k+len("vendor_err 0x"):], "] ")
				if x, err := strconv.ParseUint(v, 16, 32); err == nil {
					c.Vendor = x
				}
			}
			c.QP = strings.TrimSpace(text[j:])
			text = text[:j]
		}
		c.What = strings.TrimSpace(text)
		c.Status = wcStatusOf(c.What)
		return c, c.What != ""
	}
	return c, false
}

// wcStatusOf is the ibv_wc_status whose ibv_wc_status_str text is what,
// -1 when none is.
func wcStatusOf(what string) nccllog.WCStatus {
	for code, info := range nccllog.WCStatuses() {
		if strings.EqualFold(info.Text, what) {
			return nccllog.WCStatus(code)
		}
	}
	return -1
}

// devPort splits "mlx5_0:1".
func devPort(s string) (string, int) {
	d, p, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return d, 0
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return d, 0
	}
	return d, n
}

// qpLine matches the WQE dump after a completion error: "DCI QP 0xa9f
// wqe[0]: SEND s-e [rqpn 0xa66 rlid 703] [inl len 18]".
func qpLine(m string) (string, bool) {
	f := strings.Fields(m)
	if len(f) >= 3 && f[1] == "QP" && strings.HasPrefix(f[2], "0x") {
		return m, true
	}
	return "", false
}

// remoteLID reads "rlid 703" or "dlid=12" from a WQE dump.
func remoteLID(q string) int {
	f := strings.Fields(strings.NewReplacer("[", " ", "]", " ", "=", " ").Replace(q))
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "rlid" || f[i] == "dlid" {
			if n, err := strconv.Atoi(f[i+1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// asciiLower lower-cases the ASCII letters of s and leaves every other
// byte as it is, so indexes into the result are indexes into s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
