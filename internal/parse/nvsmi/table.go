package nvsmi

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ErrNoTable is returned when a text holds no GPU row of the plain
// nvidia-smi table.
var ErrNoTable = errors.New("no GPU row of the nvidia-smi table")

// Table is what ParseTable reads of plain `nvidia-smi`: its banner
// ("| NVIDIA-SMI 384.111  Driver Version: 384.111  CUDA Version: …|"),
// one entry per GPU of the GPU box and the Processes box.
type Table struct {
	SMIVersion string     `json:"nvidia_smi,omitempty"`
	Driver     string     `json:"driver,omitempty"`
	CUDA       string     `json:"cuda,omitempty"`
	GPUs       []TableGPU `json:"gpus"`
	// MIGDevices counts the rows of the "MIG devices" box.
	MIGDevices int `json:"mig_devices,omitempty"`
	// Processes counts the rows of the Processes box; NoProcesses is
	// set by its "No running processes found".
	Processes   int  `json:"processes"`
	NoProcesses bool `json:"no_processes,omitempty"`
	// Failure is nvidia-smi's own error in place of the table (see
	// ToolError), FailureLine its line; "" when none.
	Failure     string `json:"failure,omitempty"`
	FailureLine int    `json:"failure_line,omitempty"`
}

// ToolError says whether t (a trimmed line) is nvidia-smi's own failure
// message, printed instead of the table: "No devices were found",
// "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA
// driver. …" and "Failed to initialize NVML: Driver/library version
// mismatch" (or another NVML error after the colon).
func ToolError(t string) bool {
	switch {
	case t == "No devices were found":
		return true
	case strings.HasPrefix(t, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"):
		return true
	case strings.HasPrefix(t, "Failed to initialize NVML: ") && len(t) > len("Failed to initialize NVML: "):
		return true
	}
	return false
}

// TableGPU is one GPU of the table: its two rows (three from driver 525
// on, the third holding "MIG M."). Fields are as printed ("N/A" kept);
// ECC is the "Volatile Uncorr. ECC" cell, -1 when it is not a number
// ("N/A", "Off", "ERR!").
type TableGPU struct {
	Line        int    `json:"line"`
	Index       int    `json:"index"`
	Name        string `json:"name"`
	Persistence string `json:"persistence"`
	BusID       string `json:"bus_id"`
	DispA       string `json:"disp_a,omitempty"`
	ECCText     string `json:"ecc_text"`
	ECC         int    `json:"ecc"`
	Fan         string `json:"fan,omitempty"`
	Temp        string `json:"temp,omitempty"`
	Perf        string `json:"perf,omitempty"`
	Power       string `json:"power,omitempty"`
	Memory      string `json:"memory,omitempty"`
	Util        string `json:"util,omitempty"`
	Compute     string `json:"compute,omitempty"`
	MIG         string `json:"mig,omitempty"`
	// Errs names the fields nvidia-smi printed as "ERR!" (NVML could
	// not read them), in the table's order.
	Errs []string `json:"errors,omitempty"`
	// Text is the GPU's rows as read, joined by newlines.
	Text string `json:"text"`
}

// TableBanner says whether t (a trimmed line) is the banner of the plain
// nvidia-smi table: "| NVIDIA-SMI 384.111   Driver Version: …|".
func TableBanner(t string) bool {
	if len(t) < 12 || t[0] != '|' {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(t[1:], " "), "NVIDIA-SMI ")
}

// TableColumns says whether t (a trimmed line) is the first column
// header row of the GPU box: "| GPU  Name        Persistence-M| Bus-Id
// Disp.A | Volatile Uncorr. ECC |".
func TableColumns(t string) bool {
	return len(t) > 0 && t[0] == '|' && strings.Contains(t, "Persistence-M") && strings.Contains(t, "Bus-Id")
}

type box int

const (
	boxNone box = iota
	boxGPU
	boxMIG
	boxProcs
)

// ParseTable reads the plain nvidia-smi table of every driver generation:
// the old layout (drivers up to 470, "Persistence-M|" without a blank)
// and the wide one of drivers 525 and later (a third row per GPU with
// "MIG M."), "N/A" and "ERR!" in any cell, the MIG devices box and the
// Processes box ("No running processes found"). Lines outside the boxes
// (prose, the date nvidia-smi prints first) are skipped, but for
// nvidia-smi's own failure message (ToolError), kept in Failure.
// ErrNoTable when neither a GPU row nor that message is there.
func ParseTable(r io.Reader, source string) (*Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	t := &Table{}
	in := boxNone
	data := false // below the box's "|===" rule
	row := 0      // the GPU's row read last (1-3), 0 between GPUs
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "":
			in, data, row = boxNone, false, 0
			continue
		case TableBanner(l):
			readBanner(t, l)
			continue
		case l[0] == '+':
			row = 0 // a rule between GPUs or under the box
			continue
		case l[0] != '|':
			if t.Failure == "" && ToolError(l) {
				t.Failure, t.FailureLine = l, n
			}
			continue
		}
		if strings.HasPrefix(l, "|=") {
			data, row = true, 0
			continue
		}
		if strings.HasPrefix(l, "|-") {
			row = 0
			continue
		}
		switch {
		case TableColumns(l):
			in, data, row = boxGPU, false, 0
			continue
		case strings.Contains(l, "MIG devices:"):
			in, data = boxMIG, false
			continue
		case strings.Contains(l, "Processes:"):
			in, data = boxProcs, false
			continue
		}
		if !data {
			continue
		}
		cells := splitCells(l)
		switch in {
		case boxMIG:
			if f := strings.Fields(cells[0]); len(f) >= 4 && isInt(f[0]) {
				t.MIGDevices++
			}
		case boxProcs:
			switch f := strings.Fields(cells[0]); {
			case strings.Contains(l, "No running processes found"):
				t.NoProcesses = true
			case len(f) >= 3 && isInt(f[0]):
				t.Processes++
			}
		case boxGPU:
			if len(cells) != 3 {
				continue
			}
			if f := strings.Fields(cells[0]); len(f) >= 2 && isInt(f[0]) {
				t.GPUs = append(t.GPUs, gpuRow1(n, l, f, cells))
				row = 1
				continue
			}
			if row == 0 || len(t.GPUs) == 0 {
				continue
			}
			g := &t.GPUs[len(t.GPUs)-1]
			g.Text += "\n" + l
			row++
			if row == 2 {
				gpuRow2(g, cells)
			} else if row == 3 {
				g.MIG = cells[2]
				if cells[2] == "ERR!" {
					g.Errs = append(g.Errs, "MIG M.")
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Err: err}
	}
	if len(t.GPUs) == 0 && t.Failure == "" {
		return nil, &parse.Error{Source: source, Err: ErrNoTable}
	}
	return t, nil
}

// readBanner reads "NVIDIA-SMI 535.104.05  Driver Version: 535.104.05
// CUDA Version: 12.2".
func readBanner(t *Table, l string) {
	f := strings.Fields(strings.Trim(l, "| "))
	for i := 0; i+1 < len(f); i++ {
		switch {
		case f[i] == "NVIDIA-SMI":
			t.SMIVersion = f[i+1]
		case f[i] == "Version:" && i > 0 && f[i-1] == "Driver":
			t.Driver = f[i+1]
		case f[i] == "Version:" && i > 0 && f[i-1] == "CUDA":
			t.CUDA = f[i+1]
		}
	}
}

// splitCells splits "| a | b | c |" into its trimmed cells.
func splitCells(l string) []string {
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// gpuRow1 reads "| 0  Quadro P5000  Off | 00000000:02:00.0 On | 0 |".
func gpuRow1(n int, l string, f, cells []string) TableGPU {
	g := TableGPU{Line: n, Text: l, ECC: -1, ECCText: cells[2]}
	g.Index, _ = strconv.Atoi(f[0])
	if len(f) >= 3 {
		g.Persistence = f[len(f)-1]
		g.Name = strings.Join(f[1:len(f)-1], " ")
	} else {
		g.Name = f[1]
	}
	if g.Name == "ERR!" || strings.HasSuffix(g.Name, " ERR!") {
		g.Errs = append(g.Errs, "Name")
	}
	if g.Persistence == "ERR!" {
		g.Errs = append(g.Errs, "Persistence-M")
	}
	if b := strings.Fields(cells[1]); len(b) > 0 {
		g.BusID = b[0]
		g.DispA = strings.Join(b[1:], " ")
		if g.BusID == "ERR!" {
			g.Errs = append(g.Errs, "Bus-Id")
		}
		if g.DispA == "ERR!" {
			g.Errs = append(g.Errs, "Disp.A")
		}
	}
	if v, err := strconv.Atoi(cells[2]); err == nil {
		g.ECC = v
	} else if cells[2] == "ERR!" {
		g.Errs = append(g.Errs, "Volatile Uncorr. ECC")
	}
	return g
}

// gpuRow2 reads "| 26%   39C    P8    42W / 180W |  489MiB / 16273MiB |
// 0%  Default |".
func gpuRow2(g *TableGPU, cells []string) {
	f := strings.Fields(cells[0])
	names := []string{"Fan", "Temp", "Perf"}
	dst := []*string{&g.Fan, &g.Temp, &g.Perf}
	for i := 0; i < len(names) && i < len(f); i++ {
		*dst[i] = f[i]
		if f[i] == "ERR!" {
			g.Errs = append(g.Errs, names[i])
		}
	}
	if len(f) > 3 {
		g.Power = strings.Join(f[3:], " ")
		if strings.Contains(g.Power, "ERR!") {
			g.Errs = append(g.Errs, "Pwr:Usage/Cap")
		}
	}
	g.Memory = strings.Join(strings.Fields(cells[1]), " ")
	if strings.Contains(g.Memory, "ERR!") {
		g.Errs = append(g.Errs, "Memory-Usage")
	}
	if u := strings.Fields(cells[2]); len(u) > 0 {
		g.Util = u[0]
		g.Compute = strings.Join(u[1:], " ")
		if g.Util == "ERR!" {
			g.Errs = append(g.Errs, "GPU-Util")
		}
		if g.Compute == "ERR!" {
			g.Errs = append(g.Errs, "Compute M.")
		}
	}
}

func isInt(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
