package nccltests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// testsJSON is the report newer nccl-tests write with -J/--output_file
// (JSON_FILE_VERSION 2, NVIDIA/nccl-tests src/util.cu): config, devices,
// results (one object per size), out_of_bounds, average_bus_bandwidth.
type testsJSON struct {
	Version     int `json:"version"`
	NCCLVersion int `json:"nccl_version"`
	Config      struct {
		NThreads int   `json:"nthreads"`
		NGpus    int   `json:"ngpus"`
		MinBytes int64 `json:"minimum_bytes"`
		MaxBytes int64 `json:"maximum_bytes"`
		// Devices sit inside config: writeDeviceReport closes the config
		// object after the device list.
		Devices []deviceJSON `json:"devices"`
	} `json:"config"`
	Devices []deviceJSON `json:"devices"`
	Results []struct {
		Size       *int64          `json:"size"`
		Count      int64           `json:"count"`
		Type       string          `json:"type"`
		Redop      string          `json:"redop"`
		Root       string          `json:"root"`
		OutOfPlace json.RawMessage `json:"out_of_place"`
		InPlace    json.RawMessage `json:"in_place"`
	} `json:"results"`
	OutOfBounds *struct {
		Count int64 `json:"count"`
	} `json:"out_of_bounds"`
	AverageBusBandwidth *struct {
		Bandwidth json.RawMessage `json:"bandwidth"`
	} `json:"average_bus_bandwidth"`
	Errors []string `json:"errors"`
}

type deviceJSON struct {
	Rank       int    `json:"rank"`
	Group      int    `json:"group"`
	Pid        int    `json:"pid"`
	Hostname   string `json:"hostname"`
	Device     int    `json:"device"`
	DeviceHex  string `json:"device_hex"`
	DeviceInfo string `json:"device_info"`
}

type measureJSON struct {
	Time    json.RawMessage `json:"time"`
	CPUTime json.RawMessage `json:"cpu_time"`
	AlgBW   json.RawMessage `json:"alg_bw"`
	BusBW   json.RawMessage `json:"bus_bw"`
	NWrong  json.RawMessage `json:"nwrong"`
}

// jsonNumber reads a number util.cu wrote with "%lf" (or the string "nan").
func jsonNumber(raw json.RawMessage, what string) (float64, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, fmt.Errorf("%w: %s %s", ErrMalformed, what, raw)
	}
	return v, true, nil
}

func parseMeasureJSON(raw json.RawMessage) (*Measure, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var mj measureJSON
	if err := json.Unmarshal(raw, &mj); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var m Measure
	var ok bool
	var err error
	t := mj.Time
	if len(t) == 0 {
		t = mj.CPUTime
	}
	if m.TimeUS, ok, err = jsonNumber(t, "time"); err != nil || !ok {
		return nil, fmt.Errorf("%w: measure without a time", ErrMalformed)
	}
	if m.AlgBW, _, err = jsonNumber(mj.AlgBW, "alg_bw"); err != nil {
		return nil, err
	}
	if m.BusBW, _, err = jsonNumber(mj.BusBW, "bus_bw"); err != nil {
		return nil, err
	}
	w, ok, err := jsonNumber(mj.NWrong, "nwrong")
	switch {
	case err != nil:
		return nil, err
	case !ok:
		m.WrongNA = true
	case w != math.Trunc(w) || w > math.MaxInt64/2:
		return nil, fmt.Errorf("%w: nwrong %v", ErrMalformed, w)
	default:
		m.Wrong = int64(w)
	}
	return &m, nil
}

// parseJSON reads the JSON report into the same model as the text
// output. Lines are those of the JSON file (1 for compact files).
func parseJSON(data []byte, source string) (*Output, error) {
	var j testsJSON
	if err := json.Unmarshal(data, &j); err != nil {
		line := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		case errors.As(err, &te):
			line = 1 + bytes.Count(data[:min(int(te.Offset), len(data))], []byte("\n"))
		}
		return nil, &ParseError{Source: source, Line: line, Err: fmt.Errorf("%w: nccl-tests JSON: %v", ErrMalformed, err)}
	}
	devices := append(j.Config.Devices, j.Devices...)
	if j.Version == 0 || (j.Results == nil && devices == nil) {
		return nil, &ParseError{Source: source, Err: fmt.Errorf("%w: not an nccl-tests JSON report (no version, devices or results)", ErrNoData)}
	}
	run := &Run{Line: 1, Headers: 1, NCCLLibrary: j.NCCLVersion, NThread: j.Config.NThreads, NGpus: j.Config.NGpus,
		MinBytes: j.Config.MinBytes, MaxBytes: j.Config.MaxBytes, Errors: j.Errors}
	out := &Output{Source: source, Runs: []*Run{run}}
	for _, d := range devices {
		run.Ranks = append(run.Ranks, RankInfo{Rank: d.Rank, Group: d.Group, Pid: d.Pid, Host: d.Hostname, Device: d.Device, BusID: d.DeviceHex, GPU: d.DeviceInfo, Line: 1})
	}
	for i, r := range j.Results {
		if r.Size == nil || *r.Size < 0 || r.Count < 0 {
			out.Skipped = append(out.Skipped, Note{1, fmt.Sprintf("results[%d]: no size", i)})
			continue
		}
		row := Row{Line: 1, Size: *r.Size, Count: r.Count, Type: r.Type, Redop: r.Redop, Root: -1}
		if v, err := strconv.Atoi(strings.TrimSpace(r.Root)); err == nil {
			row.Root = v
		}
		var err error
		if row.OutOfPlace, err = parseMeasureJSON(r.OutOfPlace); err == nil {
			row.InPlace, err = parseMeasureJSON(r.InPlace)
		}
		if err != nil {
			out.Skipped = append(out.Skipped, Note{1, fmt.Sprintf("results[%d]: %v", i, err)})
			continue
		}
		if row.InPlace == nil && row.OutOfPlace != nil {
			row.InPlace, row.OutOfPlace = row.OutOfPlace, nil
		}
		if row.InPlace == nil {
			out.Skipped = append(out.Skipped, Note{1, fmt.Sprintf("results[%d]: no measure", i)})
			continue
		}
		run.Rows = append(run.Rows, row)
	}
	if j.OutOfBounds != nil {
		c := j.OutOfBounds.Count
		run.OutOfBounds, run.OutOfBoundsLine = &c, 1
		run.Footers++
	}
	if j.AverageBusBandwidth != nil {
		if v, ok, err := jsonNumber(j.AverageBusBandwidth.Bandwidth, "bandwidth"); err == nil && ok {
			run.AvgBusBW, run.AvgBusBWLine = &v, 1
		}
	}
	return out, nil
}
