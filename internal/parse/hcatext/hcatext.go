package hcatext

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/ibdoctor/ibdoctor/internal/parse"
	"io"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// ErrNoData says the input held nothing of the expected format.
var ErrNoData = errors.New("no HCA tool output found")

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

// Line is one input line that a value was read from.
type Line struct {
	N    int    `json:"line"`
	Text string `json:"text"`
}

// Skip is an input line the parser did not use, and why.
type Skip struct {
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// PortName names a port of a device.
type PortName struct {
	Device string
	Port   int
}

// Absent is a tool's own line saying an RDMA device does not exist:
// Device is the name asked for, "" when the tool found none at all.
type Absent struct {
	Device string
	Line   Line
}

// Result is one parsed output.
type Result struct {
	// Snap holds the devices and ports read; Host and Root are empty.
	Snap *snapshot.Snapshot
	// Source names the input (a file name).
	Source string
	// Lines maps the sysfs path the node rules cite as evidence
	// ("sys/class/infiniband/mlx5_0/ports/1/state") to the input line the
	// value came from.
	Lines map[string]Line
	// Skipped lists lines not understood or values that did not parse.
	Skipped []Skip
	// Fragments names the devices read from a port block pasted without
	// the device's own header line (ibstat's "CA '…'", ibv_devinfo's
	// "hca_id:"): the poster cut the output down to that port, and the
	// device's other ports, if any, were cut with it.
	Fragments []string
	// Unclosed names the port whose row is the last of a show_gids table
	// without the script's closing "n_gids_found=N" line (nil when the
	// line is there): the paste may end inside that port's rows.
	Unclosed *PortName
	// Absent lists the tool's own words that a device does not exist
	// (ibstatus' "Fatal error:  device '*': sys files not found …").
	Absent []Absent
	// Verbs lists libibverbs' warnings about devices it cannot use
	// (ibv_devinfo prints them first): a device without a provider.
	Verbs []VerbsWarn

	lines int // lines read
}

// VerbsWarnKind says what a libibverbs warning is about.
type VerbsWarnKind string

// The libibverbs warnings VerbsWarning reads.
const (
	VerbsNoProvider VerbsWarnKind = "no provider"   // a uverbs device no provider claims
	VerbsLoadFailed VerbsWarnKind = "load failed"   // a provider library did not load
	VerbsNoConfig   VerbsWarnKind = "no config dir" // /etc/libibverbs.d missing
	// VerbsABIMismatch: the provider claims the device but does not speak
	// the kernel driver's uverbs ABI (an image's rdma-core older or newer
	// than the host's kernel driver).
	VerbsABIMismatch VerbsWarnKind = "abi mismatch"
)

// VerbsWarn is one libibverbs warning: its kind, the uverbs device,
// driver or directory it names, and its line.
type VerbsWarn struct {
	Kind VerbsWarnKind
	Name string
	Line Line
}

// Ports counts the ports read.
func (r *Result) Ports() int {
	n := 0
	for _, d := range r.Snap.Devices {
		n += len(d.Ports)
	}
	return n
}

// Locate returns the input line behind an evidence source the node rules
// produce (a sysfs path), if any.
func (r *Result) Locate(src string) (Line, bool) {
	l, ok := r.Lines[src]
	return l, ok
}

func newResult(source string) *Result {
	return &Result{Snap: &snapshot.Snapshot{}, Source: source, Lines: map[string]Line{}}
}

func (r *Result) skip(n int, text, format string, a ...any) {
	r.Skipped = append(r.Skipped, Skip{Line: n, Text: text, Reason: fmt.Sprintf(format, a...)})
}

func (r *Result) note(path string, n int, text string) {
	r.Lines[path] = Line{N: n, Text: strings.TrimSpace(text)}
}

func portPath(dev string, port int, file string) string {
	return fmt.Sprintf("sys/class/infiniband/%s/ports/%d/%s", dev, port, file)
}

func devPath(dev, file string) string { return "sys/class/infiniband/" + dev + "/" + file }

// device returns the device named name, adding it when new.
func (r *Result) device(name string) *snapshot.Device {
	if d := r.Snap.Device(name); d != nil {
		return d
	}
	r.Snap.Devices = append(r.Snap.Devices, snapshot.Device{Name: name})
	return &r.Snap.Devices[len(r.Snap.Devices)-1]
}

// port returns port n of dev, adding it when new.
func (r *Result) port(dev string, n int) *snapshot.Port {
	if p := r.Snap.Port(dev, n); p != nil {
		return p
	}
	d := r.device(dev)
	d.Ports = append(d.Ports, snapshot.Port{Device: dev, Number: n})
	return &d.Ports[len(d.Ports)-1]
}

// finish sorts the snapshot and reports ErrNoData when nothing was read.
// A read error (a line over maxLine) names the line after the last read.
func (r *Result) finish(err error) (*Result, error) {
	if err != nil {
		return nil, &ParseError{Source: r.Source, Line: r.lines + 1, Err: err}
	}
	if len(r.Snap.Devices) == 0 && len(r.Absent) == 0 && !slices.ContainsFunc(r.Verbs, func(w VerbsWarn) bool { return w.Kind == VerbsNoProvider }) {
		return nil, fmt.Errorf("%s: %w", r.Source, ErrNoData)
	}
	r.Snap.Sort()
	return r, nil
}

// maxLine bounds one input line (an rdma statistic line of a device with
// every counter is under 2 KiB).
const maxLine = 1 << 20

// scanLines calls fn with every line of rd (CR stripped), numbered from 1,
// counting them in r.lines.
func (r *Result) scanLines(rd io.Reader, fn func(n int, line string)) error {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	n := 0
	for sc.Scan() {
		n++
		r.lines = n
		fn(n, strings.TrimRight(sc.Text(), "\r"))
	}
	return sc.Err()
}

// keyValue splits "Key: value" (any run of blanks after the colon).
func keyValue(line string) (key, val string, ok bool) {
	k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
	if !ok {
		return "", "", false
	}
	return strings.TrimSpace(k), cleanValue(v), true
}

// isNoise says whether a line is something the tools print around their
// output that carries no data: ibpanic/ibwarn/iberror messages and shell
// prompts. The reason is for the skipped list.
func isNoise(t string) (string, bool) {
	switch {
	case strings.HasPrefix(t, "ibpanic:"):
		return "the tool crashed here (ibpanic); the devices after it are missing", true
	case strings.HasPrefix(t, "ibwarn:"), strings.HasPrefix(t, "iberror:"), strings.HasPrefix(t, "ibdebug:"):
		return "tool diagnostic", true
	case strings.Trim(t, ".…") == "":
		return "an ellipsis: lines the poster cut", true
	case strings.HasPrefix(t, "$ "), strings.HasPrefix(t, "# "), strings.HasPrefix(t, "[root@"), strings.Contains(t, "]# "), strings.Contains(t, "]$ "):
		return "shell prompt", true
	}
	// "user@host:~$ ibstat", "root@node2# ibstat"
	if f := strings.Fields(t); len(f) > 1 && strings.Index(f[0], "@") > 0 && (strings.HasSuffix(f[0], "$") || strings.HasSuffix(f[0], "#")) {
		return "shell prompt", true
	}
	return "", false
}

// parseGUID reads either GUID form and renders it as ib.GUIDString.
// A GUID the poster redacted ("...", "xxxx") is no error: it is unknown.
func parseGUID(s string) (string, error) {
	if redacted(s) {
		return "", nil
	}
	return ib.NormalizeGUID(s)
}

func u32(v uint64) *uint32 {
	x := uint32(v)
	return &x
}

func u8(v uint64) *uint8 {
	x := uint8(v)
	return &x
}

// Shift adds n to every line number of r: for a parse of a segment that
// starts at line n+1 of a larger file.
func (r *Result) Shift(n int) {
	for k, l := range r.Lines {
		l.N += n
		r.Lines[k] = l
	}
	for i := range r.Skipped {
		r.Skipped[i].Line += n
	}
	for i := range r.Absent {
		r.Absent[i].Line.N += n
	}
	for i := range r.Verbs {
		r.Verbs[i].Line.N += n
	}
}
