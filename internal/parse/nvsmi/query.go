package nvsmi

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// ErrNoMemorySection is returned when an `nvidia-smi -q` text holds no
// Remapped Rows, Retired Pages or Fabric section.
var ErrNoMemorySection = errors.New("no Remapped Rows, Retired Pages or Fabric section of nvidia-smi -q")

// Query is what ParseQuery reads of `nvidia-smi -q`: the GPU memory
// error state of each GPU (the full output, a `-d ROW_REMAPPER` or
// `-d PAGE_RETIREMENT` one, or a fragment pasted without its GPU line).
type Query struct {
	GPUs []QueryGPU `json:"gpus"`
}

// QueryGPU is one GPU's block.
type QueryGPU struct {
	// PCI is the "GPU 00000000:10:1C.0" line's address, "" in a
	// fragment without it; Name is "Product Name".
	PCI  pcie.Address `json:"pci,omitempty"`
	Name string       `json:"name,omitempty"`
	Line int          `json:"line"`
	// Rows is the Remapped Rows section (Ampere and later), nil when
	// absent or "N/A".
	Rows *RemappedRows `json:"remapped_rows,omitempty"`
	// Pages is the Retired Pages section (dynamic page retirement,
	// before Ampere), nil when absent or all "N/A".
	Pages *RetiredPages `json:"retired_pages,omitempty"`
	// Fabric is the NVLink fabric section of NVSwitch and multi-node
	// NVLink systems, nil when absent or all "N/A".
	Fabric *Fabric `json:"fabric,omitempty"`
}

// Fabric is nvmlDeviceGetGpuFabricInfo as nvidia-smi -q prints it
// ("Fabric" with State, Status, CliqueId, ClusterUUID): the GPU's
// registration with the fabric manager. State is "Not Started", "In
// Progress" or "Completed" (NVML_GPU_FABRIC_STATE_*), Status the result
// of a completed registration ("Success", "Insufficient Resources" …),
// "" where not printed.
type Fabric struct {
	State       string `json:"state,omitempty"`
	Status      string `json:"status,omitempty"`
	CliqueID    string `json:"clique_id,omitempty"`
	ClusterUUID string `json:"cluster_uuid,omitempty"`
	Line        int    `json:"line"`
	// StatusLine is the line of Status, 0 when not printed.
	StatusLine int `json:"status_line,omitempty"`
}

// RemappedRows is nvmlDeviceGetRemappedRows as nvidia-smi prints it. A
// counter or flag the section does not print (or prints as N/A) is -1.
type RemappedRows struct {
	Correctable   int `json:"correctable"`
	Uncorrectable int `json:"uncorrectable"`
	// Pending (a remap waits for the GPU's next reset) and Failure (a
	// remap failed: no spare row left in a bank) are 1 for Yes, 0 for No.
	Pending int `json:"pending"`
	Failure int `json:"failure"`
	Line    int `json:"line"`
}

// RetiredPages is the dynamic page retirement state; -1 where unknown.
type RetiredPages struct {
	SingleBit int `json:"single_bit"`
	DoubleBit int `json:"double_bit"`
	// Pending is "Pending Page Blacklist" (or "Pending Page Retirement"):
	// 1 when pages wait for a reboot or GPU reset to be retired.
	Pending int `json:"pending"`
	Line    int `json:"line"`
}

// ParseQuery reads the GPU memory error sections of `nvidia-smi -q`.
// Sections are known by their indentation: a line without " : " opens a
// section, the deeper lines below are its keys (so "Pending" of ECC Mode
// is not taken for the row remapper's). Lines of other sections, "[...]"
// elisions and prose are skipped. A GPU whose block header ("GPU
// 0000:01:00.0") and Product Name were read is kept without either
// section (an old driver or a consumer board prints neither, or "N/A":
// nvidia-smi -q of driver 319 on a GeForce): its Rows and Pages are nil.
// ErrNoMemorySection when no GPU block and neither section is there.
func ParseQuery(r io.Reader, source string) (*Query, error) {
	q := &Query{}
	var cur *QueryGPU
	gpu := func(n int) *QueryGPU {
		if cur == nil {
			q.GPUs = append(q.GPUs, QueryGPU{Line: n})
			cur = &q.GPUs[len(q.GPUs)-1]
		}
		return cur
	}
	type open struct {
		indent int
		name   string
	}
	var stack []open
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	flat := true // a paste whose indentation was stripped: a section lasts to the next one
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), " \t\r")
		if l != "" && (l[0] == ' ' || l[0] == '\t') {
			flat = false
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: len(lines) + 1, Err: err}
	}
	for i, raw := range lines {
		n := i + 1
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent && !flat {
			stack = stack[:len(stack)-1]
		}
		if a, ok := strings.CutPrefix(t, "GPU "); ok && indent == 0 && !strings.Contains(t, " : ") {
			if addr, err := pcie.ParseAddress(strings.ToLower(normalizeDomain(a))); err == nil {
				q.GPUs = append(q.GPUs, QueryGPU{PCI: addr, Line: n})
				cur = &q.GPUs[len(q.GPUs)-1]
				stack = stack[:0]
				continue
			}
		}
		key, val, kv := strings.Cut(t, " : ")
		if !kv {
			if strings.HasSuffix(t, " :") {
				key, val, kv = strings.TrimSuffix(t, " :"), "", true
			}
		}
		if !kv {
			if flat {
				stack = stack[:0]
			}
			stack = append(stack, open{indent, t})
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		section := ""
		if len(stack) > 0 {
			section = stack[len(stack)-1].name
		}
		switch {
		case key == "Product Name" && cur != nil:
			cur.Name = val
		case key == "Remapped Rows" && val != "":
			// "Remapped Rows : N/A" (no row remapper on this GPU).
		case section == "Remapped Rows":
			g := gpu(n)
			if g.Rows == nil {
				g.Rows = &RemappedRows{Correctable: -1, Uncorrectable: -1, Pending: -1, Failure: -1, Line: n}
			}
			switch key {
			case "Correctable Error":
				g.Rows.Correctable = count(val)
			case "Uncorrectable Error":
				g.Rows.Uncorrectable = count(val)
			case "Pending":
				g.Rows.Pending = yes(val)
			case "Remapping Failure Occurred":
				g.Rows.Failure = yes(val)
			}
		case section == "Fabric":
			g := gpu(n)
			if g.Fabric == nil {
				g.Fabric = &Fabric{Line: n}
			}
			if val == "N/A" {
				val = ""
			}
			switch key {
			case "State":
				g.Fabric.State = val
			case "Status":
				g.Fabric.Status, g.Fabric.StatusLine = val, n
			case "CliqueId":
				g.Fabric.CliqueID = val
			case "ClusterUUID":
				g.Fabric.ClusterUUID = val
			}
		case section == "Retired Pages":
			g := gpu(n)
			if g.Pages == nil {
				g.Pages = &RetiredPages{SingleBit: -1, DoubleBit: -1, Pending: -1, Line: n}
			}
			switch key {
			case "Single Bit ECC":
				g.Pages.SingleBit = count(val)
			case "Double Bit ECC":
				g.Pages.DoubleBit = count(val)
			case "Pending Page Blacklist", "Pending Page Retirement", "Pending":
				g.Pages.Pending = yes(val)
			}
		}
	}
	out := q.GPUs[:0]
	for _, g := range q.GPUs {
		if g.Pages != nil && g.Pages.SingleBit < 0 && g.Pages.DoubleBit < 0 && g.Pages.Pending < 0 {
			g.Pages = nil // all N/A: the GPU remaps rows instead
		}
		if g.Rows != nil && g.Rows.Correctable < 0 && g.Rows.Uncorrectable < 0 && g.Rows.Pending < 0 && g.Rows.Failure < 0 {
			g.Rows = nil
		}
		if f := g.Fabric; f != nil && f.State == "" && f.Status == "" {
			g.Fabric = nil // all N/A: no NVLink fabric on this system
		}
		if g.Rows != nil || g.Pages != nil || g.Fabric != nil || g.PCI != "" && g.Name != "" {
			out = append(out, g)
		}
	}
	q.GPUs = out
	if len(q.GPUs) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoMemorySection}
	}
	return q, nil
}

// normalizeDomain turns nvidia-smi's 8-digit PCI domain
// ("00000000:10:1C.0") into the kernel's 4 digits.
func normalizeDomain(a string) string {
	d, rest, ok := strings.Cut(a, ":")
	if ok && len(d) == 8 && strings.TrimLeft(d[:4], "0") == "" {
		return d[4:] + ":" + rest
	}
	return a
}

// count reads a counter value, -1 for "N/A" and anything else.
func count(v string) int {
	n, err := strconv.Atoi(strings.Fields(v + " x")[0])
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// yes reads Yes/No, -1 for N/A.
func yes(v string) int {
	switch strings.ToLower(v) {
	case "yes":
		return 1
	case "no":
		return 0
	}
	return -1
}
