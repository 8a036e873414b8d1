package nvsmi

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// The levels by their nvidia-smi names, so the expected matrices read like
// the files.
const (
	PIX  = pcie.PIX
	PXB  = pcie.PXB
	PHB  = pcie.PHB
	NODE = pcie.NODE
	SYS  = pcie.SYS
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParse(t *testing.T) {
	tests := []struct {
		file string
		want *Matrix
	}{
		{"v100-2gpu-4nic-tabs.txt", &Matrix{
			GPUs: []string{"GPU0", "GPU1"},
			NICs: []string{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"},
			Dist: [][]pcie.Level{{PHB, PHB, SYS, SYS}, {SYS, SYS, PHB, PHB}},
			NUMA: []string{"0", "1"},
		}},
		{"h100-4gpu-8nic-vm.txt", &Matrix{
			GPUs: []string{"GPU0", "GPU1", "GPU2", "GPU3"},
			NICs: []string{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"},
			Dist: [][]pcie.Level{
				{PHB, PHB, PHB, PHB, PHB, PHB, PHB, PHB},
				{PHB, PHB, PHB, PHB, PHB, PHB, PHB, PHB},
				{PHB, PHB, PHB, PHB, PHB, PHB, PHB, PHB},
				{PHB, PHB, PHB, PHB, PHB, PHB, PHB, PHB},
			},
			NUMA: []string{"0", "0", "0", "0"},
		}},
		// 8x H100 (NV18) with 12 NICs: each GPU has a PIX NIC (GPU0 and
		// GPU4 share a switch with three), behind sglang's title line.
		{"h100-8gpu-12nic-sglang.txt", &Matrix{
			GPUs: []string{"GPU0", "GPU1", "GPU2", "GPU3", "GPU4", "GPU5", "GPU6", "GPU7"},
			NICs: []string{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9", "mlx5_10", "mlx5_11"},
			Dist: [][]pcie.Level{
				{PIX, PIX, PIX, NODE, NODE, NODE, SYS, SYS, SYS, SYS, SYS, SYS},
				{NODE, NODE, NODE, PIX, NODE, NODE, SYS, SYS, SYS, SYS, SYS, SYS},
				{NODE, NODE, NODE, NODE, PIX, NODE, SYS, SYS, SYS, SYS, SYS, SYS},
				{NODE, NODE, NODE, NODE, NODE, PIX, SYS, SYS, SYS, SYS, SYS, SYS},
				{SYS, SYS, SYS, SYS, SYS, SYS, PIX, PIX, PIX, NODE, NODE, NODE},
				{SYS, SYS, SYS, SYS, SYS, SYS, NODE, NODE, NODE, PIX, NODE, NODE},
				{SYS, SYS, SYS, SYS, SYS, SYS, NODE, NODE, NODE, NODE, PIX, NODE},
				{SYS, SYS, SYS, SYS, SYS, SYS, NODE, NODE, NODE, NODE, NODE, PIX},
			},
			NUMA: []string{"0", "0", "0", "0", "1", "1", "1", "1"},
		}},
		// Pre-"NIC Legend" drivers named the NIC columns after the devices;
		// composed in that layout from the legend of the files above.
		{"old-named-columns.txt", &Matrix{
			GPUs: []string{"GPU0", "GPU1"},
			NICs: []string{"mlx5_0", "mlx5_1"},
			Dist: [][]pcie.Level{{PIX, SYS}, {SYS, PXB}},
			NUMA: []string{"0", "1"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := Parse(strings.NewReader(string(read(t, tt.file))), tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	hdr := "\tGPU0\tNIC0\tCPU Affinity\tNUMA Affinity\n"
	tests := []struct {
		name, in string
		want     error
		line     int
	}{
		{"empty", "", ErrNoMatrix, 0},
		{"prose", "hello\nworld\n", ErrNoMatrix, 0},
		{"bad cell in a NIC row", hdr + "GPU0\t X \tPIX\t0-3\t0\nNIC0\tFOO\t X \n", ErrMalformed, 3},
		{"row shifted by a cell not split", "\tGPU0\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n" + "GPU0\t X \tPIXFOO\tSYS\tSYS\t0-3\t0\n", ErrMalformed, 2},
		{"short row", hdr + "GPU0\t X\n", ErrMalformed, 2},
		{"misplaced self", hdr + "GPU0\tPIX\t X \n", ErrMalformed, 2},
		{"header only", hdr, ErrMalformed, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in), "topo.txt")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var pe *ParseError
			if tt.line > 0 && (!errors.As(err, &pe) || pe.Line != tt.line) {
				t.Errorf("err = %v, want line %d", err, tt.line)
			}
			if !strings.HasPrefix(err.Error(), "topo.txt") {
				t.Errorf("error %q does not name the source", err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	ents, _ := os.ReadDir("testdata")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			f.Add(string(read(f, e.Name())))
		}
	}
	f.Add(sglang9812)
	f.Fuzz(func(t *testing.T, in string) {
		m, err := Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if len(m.Dist) != len(m.GPUs) || len(m.NUMA) != len(m.GPUs) {
			t.Fatalf("rows %d numa %d for %d GPUs", len(m.Dist), len(m.NUMA), len(m.GPUs))
		}
		for _, row := range m.Dist {
			if len(row) != len(m.NICs) {
				t.Fatalf("row of %d for %d NICs", len(row), len(m.NICs))
			}
			for _, l := range row {
				if (l < PIX || l > SYS) && (l != pcie.LevelUnknown || len(m.Unread) == 0) {
					t.Fatalf("level %v out of range", l)
				}
			}
		}
	})
}

// TestGluedCells: NVIDIA/nccl#820 (realworld-fresh16): a paste glued two
// columns ("NODENODE"); the cells are split at the link words, and a cell
// that is no link word at all is read as unknown and named.
func TestGluedCells(t *testing.T) {
	hdr := "        GPU0    GPU1    mlx5_0  mlx5_1  mlx5_4       mlx5_5  CPU Affinity    NUMA Affinity\n"
	in := hdr + "GPU0     X      NV12    PXB     PXB     NODENODE     0-31,64-95      0\n" +
		"GPU1    NV12     X      SYS     SYS     SYS SYS      32-63,96-127    1\n"
	m, err := Parse(strings.NewReader(in), "glued.txt")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]pcie.Level{{PXB, PXB, NODE, NODE}, {SYS, SYS, SYS, SYS}}, m.Dist); d != "" || len(m.Unread) != 0 {
		t.Errorf("dist (-want +got):\n%s unread %v", d, m.Unread)
	}
	m, err = Parse(strings.NewReader(hdr+"GPU0     X      NV12    PXB     P?B     NODE NODE     0-31,64-95      0\n"), "glued.txt")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]pcie.Level{{PXB, pcie.LevelUnknown, NODE, NODE}}, m.Dist); d != "" || !slices.Equal(m.Unread, []string{`line 2 GPU0/mlx5_1: "P?B"`}) {
		t.Errorf("dist (-want +got):\n%s unread %v", d, m.Unread)
	}
	// vllm-project/vllm#13855 (realworld-fresh9): the header glued too
	// ("NIC8NIC9"), the rows' cells under it ("NODEPXB").
	vllm := "\tGPU0\tNIC7\tNIC8NIC9\tNIC10\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n" +
		"GPU0\t X \tNODE\tNODEPXB\tNODE\t56-111,168-223\t1\t\tN/A\n"
	m, err = Parse(strings.NewReader(vllm), "glued.txt")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]pcie.Level{{NODE, NODE, PXB, NODE}}, m.Dist); d != "" || !slices.Equal(m.NICs, []string{"NIC7", "NIC8", "NIC9", "NIC10"}) {
		t.Errorf("dist (-want +got):\n%s nics %v", d, m.NICs)
	}
	for c, want := range map[string][]string{"NIC8NIC9": {"NIC8", "NIC9"}, "mlx5_4mlx5_5": {"mlx5_4", "mlx5_5"}, "GPU7": {"GPU7"}, "NICX": {"NICX"}, "NIC8NIC": {"NIC8NIC"}} {
		if got := splitGluedColumns(c); !slices.Equal(got, want) {
			t.Errorf("splitGluedColumns(%q) = %q, want %q", c, got, want)
		}
	}
	for c, want := range map[string][]string{"NODENODE": {"NODE", "NODE"}, "NV12SYS": {"NV12", "SYS"}, "SYSSOC": {"SYS", "SOC"}, "NODEX": {"NODE", "X"}, "NV": {"NV"}, "NODEFOO": {"NODEFOO"}} {
		if got := splitGlued(c); !slices.Equal(got, want) {
			t.Errorf("splitGlued(%q) = %q, want %q", c, got, want)
		}
	}
}

// TestCutBeforeLegend: a matrix pasted without its NIC Legend is judged
// with the NICs named by their columns.
func TestCutBeforeLegend(t *testing.T) {
	in := "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tSYS\tPIX\tSYS\t0-3\t0\nGPU1\tSYS\t X \tSYS\tNODE\t4-7\t1\nNIC0\tPIX\tSYS\t X \tSYS\nNIC1\tSYS\tNODE\tSYS\t X \n"
	m, err := Parse(strings.NewReader(in), "cut.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.NICs, []string{"NIC0", "NIC1"}) || !slices.Equal(m.Unnamed, []string{"NIC0", "NIC1"}) || m.Dist[1][1] != pcie.NODE {
		t.Errorf("matrix %+v", m)
	}
}

// TestCutAfterSomeRows: a matrix whose paste ends after some GPU rows
// (NVIDIA/nccl#933 stops after GPU6 of eight; DeepEP#145 after GPU3) is
// judged on the rows it has, and says which GPUs have none.
func TestCutAfterSomeRows(t *testing.T) {
	in := "        GPU0    GPU1    GPU2    NIC0    NIC1    CPU Affinity    NUMA Affinity\n" +
		"GPU0     X      NV8     NV8     PIX     SYS     0-47,96-143     0\n" +
		"GPU1    NV8      X      NV8     SYS     PIX     48-95,144-191   1\n"
	m, err := Parse(strings.NewReader(in), "cut.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.GPUs, []string{"GPU0", "GPU1"}) || !slices.Equal(m.Missing, []string{"GPU2"}) || m.Dist[1][1] != pcie.PIX || m.NUMA[1] != "1" {
		t.Errorf("matrix %+v", m)
	}
}

// sglang9812 is `nvidia-smi topo -m` rows GPU1-GPU6 of an 8x H100 (NV18)
// pasted without the header, the GPU0 row and the legend (GPU7 cut), from
// https://github.com/sgl-project/sglang/pull/9812.
const sglang9812 = "```\n" +
	"GPU1    NV18     X      NV18    NV18    NV18    NV18    NV18    NV18    NODE    NODE    NODE    PXB     NODE NODE     SYS     SYS     SYS     SYS     SYS     SYS     0-55,112-167    0               N/A\n" +
	"GPU2    NV18    NV18     X      NV18    NV18    NV18    NV18    NV18    NODE    NODE    NODE    NODE    PXB  NODE     SYS     SYS     SYS     SYS     SYS     SYS     0-55,112-167    0               N/A\n" +
	"GPU4    NV18    NV18    NV18    NV18     X      NV18    NV18    NV18    SYS     SYS     SYS     SYS     SYS  SYS      PXB     NODE    NODE    NODE    NODE    NODE    56-111,168-223  1               N/A\n"

func TestHeaderless(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		gpus     string // rows read
		nics     int
		missing  string
		dist     string // first row's levels
	}{
		{"NVLink rows, header and GPU0 missing", sglang9812, "GPU1 GPU2 GPU4", 12, "GPU0 GPU3 GPU5 GPU6 GPU7",
			"NODE NODE NODE PXB NODE NODE SYS SYS SYS SYS SYS SYS"},
		{"PCIe-only rows: GPU columns up to the last X",
			"GPU0     X      PIX     SYS     PXB     SYS     0-11    0\nGPU1    PIX      X      SYS     PXB     SYS     0-11    0\n",
			"GPU0 GPU1", 3, "", "SYS PXB SYS"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(strings.NewReader(tt.in), "t")
			if err != nil {
				t.Fatal(err)
			}
			var d []string
			for _, l := range m.Dist[0] {
				d = append(d, l.String())
			}
			if !m.NoHeader || strings.Join(m.GPUs, " ") != tt.gpus || len(m.NICs) != tt.nics ||
				strings.Join(m.Missing, " ") != tt.missing || strings.Join(d, " ") != tt.dist {
				t.Errorf("got noheader %v gpus %v nics %d missing %v dist %v", m.NoHeader, m.GPUs, len(m.NICs), m.Missing, d)
			}
		})
	}
	if !Detect(sglang9812) {
		t.Error("Detect: headerless rows not recognised")
	}
	for _, in := range []string{
		"GPU1    NV18     X      NV18\n",                 // one row
		"GPU1 X NV18 NODE 0-1 0\nGPU2 NV18 X NODE 0-1 0", // X not in the row's own column
		"GPU1 is hot, X marks it\nGPU2 too X\n",
	} {
		if Detect(in) {
			t.Errorf("Detect(%q) = true", in)
		}
	}
}
