package perftest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// jsonReport is the file `--out_json --out_json_file=F` writes (perftest
// 4.5-0.x and later): banner keys with underscores, one result object.
type jsonReport struct {
	TestInfo map[string]any `json:"test_info"`
	Results  *struct {
		MsgSize     *float64 `json:"MsgSize"`
		NIterations *float64 `json:"n_iterations"`
		BWPeak      *float64 `json:"BW_peak"`
		BWAverage   *float64 `json:"BW_average"`
		MsgRate     *float64 `json:"MsgRate"`
	} `json:"results"`
}

// parseJSON reads a perftest --out_json file. The JSON does not say
// whether BW is in Gb/s or MiB/s, so the unit is derived from the message
// rate (MsgRate × MsgSize is the byte rate) and the file is refused when
// neither unit fits.
func parseJSON(data []byte, source string) (*Result, error) {
	var rep jsonReport
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rep); err != nil {
		line := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		case errors.As(err, &te):
			line = 1 + bytes.Count(data[:min(int(te.Offset), len(data))], []byte("\n"))
		}
		return nil, &ParseError{Source: source, Line: line, Err: fmt.Errorf("%w: perftest JSON: %v", ErrMalformed, err)}
	}
	res := rep.Results
	if res == nil || res.MsgSize == nil || res.BWAverage == nil || res.MsgRate == nil || res.NIterations == nil {
		return nil, &ParseError{Source: source, Err: fmt.Errorf("%w: perftest JSON without results.MsgSize, n_iterations, BW_average and MsgRate (only bandwidth reports are read)", ErrMalformed)}
	}
	for _, v := range []float64{*res.MsgSize, *res.BWAverage, *res.MsgRate, *res.NIterations} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &ParseError{Source: source, Err: fmt.Errorf("%w: negative or non-finite value in results", ErrMalformed)}
		}
	}
	r := &Result{Source: source, Line: 1, Kind: KindBW}
	ti := rep.TestInfo
	str := func(k string) string {
		s, _ := ti[k].(string)
		return s
	}
	num := func(k string) (int, bool) {
		f, ok := ti[k].(float64)
		if !ok || f != math.Trunc(f) || f < 0 || f > 1<<20 {
			return 0, false
		}
		return int(f), true
	}
	r.Test = strings.ReplaceAll(str("test"), "_", " ")
	t := strings.ToLower(r.Test)
	for _, v := range []string{"write", "read", "send", "atomic"} {
		if strings.Contains(t, v) {
			r.Verb = v
			break
		}
	}
	r.Bidirectional = strings.Contains(t, "bidirectional")
	r.Device, r.Transport, r.Connection = str("Device"), str("Transport_type"), str("Connection_type")
	r.LinkType, r.DataExMethod = str("Link_type"), str("Data_ex_method")
	r.RDMACM = str("rdma_cm_QPs") == "ON"
	r.QPs, _ = num("Number_of_qps")
	r.MTU, _ = num("Mtu")
	r.CQModeration, _ = num("CQ_Moderation")
	if g, ok := num("GID_index"); ok && g <= 255 {
		r.GIDIndex = &g
	}

	byteRate := *res.MsgRate * 1e6 * *res.MsgSize
	gbps, mib := byteRate*8/1e9, byteRate/1048576
	avg := *res.BWAverage
	near := func(a, b float64) bool { return b > 0 && math.Abs(a-b)/b < 0.05 }
	var factor float64
	switch {
	case near(avg, gbps):
		r.Unit, factor = "Gb/sec", 1
	case near(avg, mib):
		r.Unit, factor = "MiB/sec", mibToGbps
	default:
		return nil, &ParseError{Source: source, Err: fmt.Errorf("%w: BW_average %.2f fits neither Gb/s (%.2f) nor MiB/s (%.2f) of MsgRate × MsgSize", ErrMalformed, avg, gbps, mib)}
	}
	row := BWRow{Line: 1, Bytes: int64(*res.MsgSize), Iterations: int64(*res.NIterations), AvgGbps: avg * factor, MsgRateMpps: res.MsgRate}
	if res.BWPeak != nil && *res.BWPeak >= 0 && !math.IsInf(*res.BWPeak, 0) && !math.IsNaN(*res.BWPeak) {
		row.PeakGbps = *res.BWPeak * factor
	}
	r.BW = []BWRow{row}
	return r, nil
}
