package nvsmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoMatrix is returned when the input holds no `nvidia-smi topo -m`
// header.
var ErrNoMatrix = errors.New("no nvidia-smi topo -m matrix")

// ErrMalformed is wrapped by every ParseError.
var ErrMalformed = errors.New("malformed nvidia-smi topo -m output")

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

// Matrix is the GPU×NIC part of `nvidia-smi topo -m`.
type Matrix struct {
	// GPUs are the GPU column names ("GPU0", …) in order.
	GPUs []string `json:"gpus"`
	// NICs are the RDMA device names of the NIC columns, resolved through
	// the "NIC Legend" ("NIC0: mlx5_0"); old drivers name the columns
	// after the devices directly.
	NICs []string `json:"nics"`
	// Dist[g][n] is the GPU×NIC level.
	Dist [][]pcie.Level `json:"dist"`
	// NUMA is the "NUMA Affinity" column per GPU ("" when absent).
	NUMA []string `json:"numa,omitempty"`
	// Unnamed are NIC columns the paste has no "NIC Legend" line for (cut
	// before the legend): they keep their column name ("NIC0").
	Unnamed []string `json:"unnamed,omitempty"`
	// Missing are GPU columns without a row: a paste cut before them.
	Missing []string `json:"missing,omitempty"`
	// NoHeader says the paste holds GPU rows without the header line
	// above them: the GPU columns are as many as the rows' X (self)
	// cells and NVLink cells show, the other device columns are NICs
	// named by position ("NIC0", also in Unnamed).
	NoHeader bool `json:"no_header,omitempty"`
	// Unread are the cells that read as no link word even split at the
	// known words ("line 7 GPU0/mlx5_4: \"NOD\""): their distance is
	// unknown.
	// Cells glued by a paste ("NODENODE") are split and read.
	Unread []string `json:"unread,omitempty"`
}

var (
	reGPUCol    = regexp.MustCompile(`^GPU\d+$`)
	reNICCol    = regexp.MustCompile(`^NIC\d+$`)
	reNVLink    = regexp.MustCompile(`^NV\d+$`)
	reLegendNIC = regexp.MustCompile(`^\s*(NIC\d+):\s*(\S+)\s*$`)
	reANSI      = regexp.MustCompile("\x1b\\[[0-9;]*m")
)

// Parse parses `nvidia-smi topo -m` output, tab- or
// space-separated (pasted copies turn tabs into spaces), with or without
// the terminal's underline escape on the header, the legend and the NIC
// legend. Text before the header (a shell prompt) is ignored.
func Parse(r io.Reader, source string) (*Matrix, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	p := &topoParser{source: source, gpuRows: map[string][]string{}, legend: map[string]string{}}
	for sc.Scan() {
		p.n++
		if err := p.line(reANSI.ReplaceAllString(strings.TrimRight(sc.Text(), "\r"), "")); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s line %d: %w", source, p.n+1, err)
	}
	if p.m == nil && len(p.bare) > 0 {
		if err := p.headerless(); err != nil {
			return nil, err
		}
	}
	if p.m == nil {
		return nil, fmt.Errorf("%s: %w", source, ErrNoMatrix)
	}
	return p.matrix()
}

// bareRow is a GPU row read before any header: its line and cells.
type bareRow struct {
	n int
	f []string
}

// HeaderlessRow reports whether t (trimmed) is a GPU row of
// `nvidia-smi topo -m` that may stand without the header: "GPU1  NV18  X
// NV18 …  PXB …", GPUk with its X (self) in device column k and link
// cells before it. nvidia-smi prints the device columns GPUs first, in
// order, so row k's X is in column k.
func HeaderlessRow(t string) bool {
	if !strings.HasPrefix(t, "GPU") || strings.IndexByte(t, 'X') < 0 {
		return false
	}
	f := strings.Fields(t)
	k, err := strconv.Atoi(strings.TrimPrefix(f[0], "GPU"))
	if err != nil || k < 0 || k > 255 || len(f) < k+3 || f[k+1] != "X" {
		return false
	}
	for _, c := range f[1 : k+1] {
		if !isLinkCell(c) {
			return false
		}
	}
	return true
}

// isLinkCell says whether c is a topo -m cell: X, NV#, or a PCIe level.
func isLinkCell(c string) bool {
	if c == "X" || reNVLink.MatchString(c) {
		return true
	}
	_, err := pcie.ParseLevel(c)
	return err == nil
}

// headerless builds the columns of GPU rows pasted without the header:
// GPU columns up to the last row's X (self) cell or the last NVLink cell
// of any row (NVLink joins GPUs only), then NIC columns up to the
// affinity cells. A GPU column without NVLink after the last row's X is
// read as a NIC column: a GPU is then nearer to a "NIC" than it may be,
// never farther.
func (p *topoParser) headerless() error {
	gpus, devs := 0, 0
	for i, r := range p.bare {
		f := glueSplit(r.f)
		p.bare[i].f = f
		k, _ := strconv.Atoi(strings.TrimPrefix(f[0], "GPU"))
		gpus = max(gpus, k+1)
		d := 0
		for _, c := range f[1:] {
			if !isLinkCell(c) {
				break
			}
			d++
			if c == "X" || reNVLink.MatchString(c) {
				gpus = max(gpus, d)
			}
		}
		devs = max(devs, d)
	}
	p.m = &Matrix{NoHeader: true}
	for i := range devs {
		if i < gpus {
			p.cols = append(p.cols, fmt.Sprintf("GPU%d", i))
		} else {
			p.cols = append(p.cols, fmt.Sprintf("NIC%d", i-gpus))
		}
	}
	for _, r := range p.bare {
		p.n = r.n
		if err := p.row(r.f); err != nil {
			return err
		}
	}
	return nil
}

// topoParser is the state of Parse: the header's device columns, the GPU
// rows and the NIC legend read so far.
type topoParser struct {
	source  string
	m       *Matrix  // nil until the header is read
	cols    []string // device columns in order
	gpuRows map[string][]string
	legend  map[string]string // "NIC0" → RDMA device name
	n       int               // current line number
	inRows  bool              // between the header and the legend
	bare    []bareRow         // GPU rows before any header
}

// perr returns a malformed-input error at the current line.
func (p *topoParser) perr(format string, a ...any) error {
	return &ParseError{Source: p.source, Line: p.n, Err: fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, a...)...)}
}

// line reads one line, its escapes removed: the header, a matrix row or
// a NIC legend line.
func (p *topoParser) line(line string) error {
	f := strings.Fields(line)
	if p.m == nil && len(f) > 0 && HeaderlessRow(strings.TrimSpace(line)) {
		p.bare = append(p.bare, bareRow{p.n, f})
		return nil
	}
	if p.m == nil && len(p.bare) > 0 {
		if m2 := reLegendNIC.FindStringSubmatch(line); m2 != nil {
			p.legend[m2[1]] = m2[2]
			return nil
		}
	}
	if p.m == nil {
		// The header starts with the GPU0 column; the GPU0 row
		// has X (self) next.
		if len(f) > 1 && f[0] == "GPU0" && f[1] != "X" {
			p.m = &Matrix{}
			for _, c := range f {
				if c == "CPU" {
					break
				}
				// Columns glued like the cells ("NIC8NIC9"): split.
				p.cols = append(p.cols, splitGluedColumns(c)...)
			}
			p.inRows = true
		}
		return nil
	}
	if m2 := reLegendNIC.FindStringSubmatch(line); m2 != nil {
		p.legend[m2[1]] = m2[2]
		return nil
	}
	if !p.inRows {
		return nil
	}
	if len(f) == 0 || strings.HasPrefix(strings.TrimSpace(line), "Legend") {
		p.inRows = false
		return nil
	}
	return p.row(f)
}

// row checks a matrix row's cells against the header and keeps GPU rows.
// Cells a paste glued together ("NODENODE", "SYSSYS", "NV12PXB": the
// column separator lost) are split at the link words first. A GPU row
// with a cell that is still no link word keeps it as unknown (listed in
// Unread) when the row has exactly the header's cells.
func (p *topoParser) row(f []string) error {
	cols := p.cols
	label := f[0]
	f = glueSplit(f)
	if len(f)-1 < len(cols) {
		return p.perr("row %s has %d cells, want %d", label, len(f)-1, len(cols))
	}
	cells := f[1 : 1+len(cols)]
	for i, c := range cells {
		if c == "X" {
			if cols[i] != label {
				return p.perr("row %s: X (self) in column %s", label, cols[i])
			}
			continue
		}
		if reNVLink.MatchString(c) {
			continue
		}
		if _, err := pcie.ParseLevel(c); err != nil {
			if !reGPUCol.MatchString(label) || !isAffinity(f[1+len(cols):]) {
				// A row shifted by a cell not split (its affinity
				// columns hold link words) is not read by position.
				return p.perr("row %s column %s: %v", label, cols[i], err)
			}
			p.m.Unread = append(p.m.Unread, fmt.Sprintf("line %d %s/%s: %q", p.n, label, cols[i], c))
		}
	}
	if reGPUCol.MatchString(label) {
		p.gpuRows[label] = f[1:]
	}
	return nil
}

// glueSplit splits the cells of a row a paste glued together.
func glueSplit(f []string) []string {
	for i := 1; i < len(f); i++ {
		if c := f[i]; len(c) < 4 || c[0] < 'A' || c[0] > 'Z' {
			continue // one word at most, or an affinity cell
		}
		if g := splitGlued(f[i]); len(g) > 1 {
			f = slices.Concat(f[:i:i], g, f[i+1:])
			i += len(g) - 1
		}
	}
	return f
}

// linkWords are the words of a topo -m cell, longest first.
var linkWords = []string{"NODE", "PIX", "PXB", "PHB", "SYS", "SOC", "X"}

// splitGlued splits a cell that holds several link words run together
// ("NODENODE" → NODE NODE, "NV12SYS" → NV12 SYS); a cell that is not
// made of link words alone comes back as it is.
func splitGlued(c string) []string {
	var out []string
	rest := c
	for rest != "" {
		w := ""
		for _, k := range linkWords {
			if strings.HasPrefix(rest, k) {
				w = k
				break
			}
		}
		if w == "" && strings.HasPrefix(rest, "NV") {
			j := 2
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
			if j > 2 {
				w = rest[:j]
			}
		}
		if w == "" {
			return []string{c}
		}
		out = append(out, w)
		rest = rest[len(w):]
	}
	return out
}

// splitGluedColumns splits a header word that holds several device
// columns run together ("NIC8NIC9", "GPU3GPU4", "mlx5_4mlx5_5") at each
// repeat of its first column's name stem; any other word comes back as
// it is.
func splitGluedColumns(c string) []string {
	stem := ""
	switch {
	case strings.HasPrefix(c, "NIC"), strings.HasPrefix(c, "GPU"):
		stem = c[:3]
	case strings.HasPrefix(c, "mlx") && len(c) > 5 && c[4] == '_':
		stem = c[:5]
	default:
		return []string{c}
	}
	var out []string
	rest := c
	for rest != "" {
		j := strings.Index(rest[len(stem):], stem)
		if j < 0 {
			out = append(out, rest)
			break
		}
		out = append(out, rest[:len(stem)+j])
		rest = rest[len(stem)+j:]
	}
	for _, w := range out {
		if len(w) == len(stem) || strings.Trim(w[len(stem):], "0123456789") != "" {
			return []string{c} // not a run of numbered columns
		}
	}
	return out
}

// isAffinity says whether the cells after the device columns are the
// CPU and NUMA affinity ("0-31,64-95" "0"), or "N/A".
func isAffinity(extra []string) bool {
	if len(extra) == 0 {
		return true
	}
	c := extra[0]
	return c == "N/A" || strings.Trim(c, "0123456789,-") == ""
}

// columns returns the indexes of the GPU and NIC columns, naming the NICs
// in the matrix through the legend.
func (p *topoParser) columns() (gpuIdx, nicIdx []int) {
	m := p.m
	for i, c := range p.cols {
		switch {
		case reGPUCol.MatchString(c):
			gpuIdx = append(gpuIdx, i)
		case reNICCol.MatchString(c):
			name, ok := p.legend[c]
			if !ok {
				// A paste cut before the legend: the column still says
				// how far that NIC is; it is named by its column.
				name = c
				m.Unnamed = append(m.Unnamed, c)
			}
			nicIdx = append(nicIdx, i)
			m.NICs = append(m.NICs, name)
		case strings.HasPrefix(c, "mlx") || strings.HasPrefix(c, "ib") || strings.HasPrefix(c, "roce") || strings.HasPrefix(c, "bnxt") || strings.HasPrefix(c, "irdma") || strings.HasPrefix(c, "efa"):
			nicIdx = append(nicIdx, i)
			m.NICs = append(m.NICs, c)
		}
	}
	return gpuIdx, nicIdx
}

// matrix fills in the GPU×NIC levels and NUMA affinity from the rows read.
func (p *topoParser) matrix() (*Matrix, error) {
	m, cols := p.m, p.cols
	gpuIdx, nicIdx := p.columns()
	for _, gi := range gpuIdx {
		name := cols[gi]
		row, ok := p.gpuRows[name]
		if !ok {
			m.Missing = append(m.Missing, name)
			continue
		}
		m.GPUs = append(m.GPUs, name)
		d := make([]pcie.Level, len(nicIdx))
		for j, ni := range nicIdx {
			d[j], _ = pcie.ParseLevel(row[ni])
		}
		m.Dist = append(m.Dist, d)
		numa := ""
		if extra := row[len(cols):]; len(extra) >= 2 {
			if _, err := strconv.Atoi(extra[1]); err == nil {
				numa = extra[1]
			}
		}
		m.NUMA = append(m.NUMA, numa)
	}
	if len(m.GPUs) == 0 && len(gpuIdx) > 0 {
		return nil, fmt.Errorf("%s: %w: no row for %s", p.source, ErrMalformed, cols[gpuIdx[0]])
	}
	return m, nil
}

// Detect reports whether text holds an `nvidia-smi topo -m`
// matrix: a header line starting with the GPU0 column and ending in the
// affinity columns, the matrix legend, or two GPU rows without the
// header (HeaderlessRow).
func Detect(text string) bool {
	bare := false
	for _, line := range strings.Split(reANSI.ReplaceAllString(text, ""), "\n") {
		// Two GPU rows in a row without the header above them.
		if line != "" && line[0] == 'G' && HeaderlessRow(strings.TrimSpace(line)) {
			if bare {
				return true
			}
			bare = true
		} else {
			bare = false
		}
		f := strings.Fields(line)
		if len(f) > 1 && f[0] == "GPU0" && f[1] != "X" && strings.Contains(line, "CPU Affinity") {
			return true
		}
		if strings.HasPrefix(strings.TrimSpace(line), "X    = Self") {
			return true
		}
	}
	return false
}
