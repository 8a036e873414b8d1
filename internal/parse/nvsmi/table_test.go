package nvsmi

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseTable(t *testing.T) {
	type gpu struct {
		Index     int
		Name, Bus string
		ECC       int
		Perf, Mem string
		Compute   string
		MIG       string
		Errs      []string
		Line      int
	}
	tests := []struct {
		file         string
		driver, cuda string
		gpus         []gpu
		mig, procs   int
		noProcs      bool
	}{
		{"../../diagnose/analyze/testdata/realworld-fresh23/nvidia-smi-pai1396-quadro-p5000-ecc-0-cntk.txt", "384.111", "",
			[]gpu{{0, "Quadro P5000", "00000000:65:00.0", 0, "P0", "500MiB / 15245MiB", "Default", "", nil, 9}}, 0, 1, false},
		{"testdata/table-r535-a100-mig-err.txt", "535.104.05", "12.2", []gpu{
			{0, "NVIDIA A100-SXM4-80GB", "00000000:07:00.0", 0, "P0", "13MiB / 81920MiB", "Default", "Enabled", nil, 9},
			{1, "NVIDIA A100-SXM4-80GB", "00000000:0F:00.0", 2, "P0", "4MiB / 81920MiB", "Default", "Disabled", nil, 13},
			{2, "ERR!", "00000000:47:00.0", -1, "ERR!", "0MiB / 81920MiB", "Default", "ERR!",
				[]string{"Name", "Volatile Uncorr. ECC", "Fan", "Temp", "Perf", "Pwr:Usage/Cap", "GPU-Util", "MIG M."}, 17},
		}, 2, 0, true},
		// Real tables, one per layout generation (testdata/README.md
		// names their sources).
		{"testdata/table-r384-quadro-p1000-power-err.txt", "384.111", "", []gpu{
			{0, "Quadro P1000", "00000000:65:00.0", -1, "P0", "620MiB / 4035MiB", "Default", "", []string{"Pwr:Usage/Cap"}, 7},
			{1, "Quadro M4000", "00000000:B3:00.0", -1, "P8", "2MiB / 8121MiB", "Default", "", nil, 10},
		}, 0, 1, false},
		{"testdata/table-r460-gtx1080ti-fan-power-err.txt", "460.39", "11.2", []gpu{
			{0, "GeForce GTX 108...", "00000000:01:00.0", -1, "P8", "1MiB / 11178MiB", "Default", "N/A", nil, 9},
			{1, "GeForce GTX 108...", "00000000:06:00.0", -1, "P0", "1MiB / 11178MiB", "Default", "N/A", []string{"Fan", "Pwr:Usage/Cap"}, 13},
		}, 0, 0, true},
		{"testdata/table-r525-a40-8gpu-gpu4-err.txt", "525.60.13", "12.0", []gpu{
			{0, "NVIDIA A40", "00000000:03:00.0", 0, "P8", "0MiB / 46068MiB", "Default", "N/A", nil, 9},
			{1, "NVIDIA A40", "00000000:04:00.0", 0, "P8", "0MiB / 46068MiB", "Default", "N/A", nil, 13},
			{2, "NVIDIA A40", "00000000:43:00.0", 0, "P0", "821MiB / 46068MiB", "Default", "N/A", nil, 17},
			{3, "NVIDIA A40", "00000000:44:00.0", 0, "P8", "0MiB / 46068MiB", "Default", "N/A", nil, 21},
			{4, "ERR!", "00000000:83:00.0", -1, "ERR!", "0MiB / 46068MiB", "Default", "ERR!",
				[]string{"Name", "Volatile Uncorr. ECC", "Fan", "Temp", "Perf", "Pwr:Usage/Cap", "GPU-Util", "MIG M."}, 25},
			{5, "NVIDIA A40", "00000000:84:00.0", 0, "P8", "3MiB / 46068MiB", "Default", "N/A", nil, 29},
			{6, "NVIDIA A40", "00000000:C3:00.0", 0, "P8", "3MiB / 46068MiB", "Default", "N/A", nil, 33},
			{7, "NVIDIA A40", "00000000:C4:00.0", 0, "P8", "3MiB / 46068MiB", "Default", "N/A", nil, 37},
		}, 0, 1, false},
		// MIG on: the GPU's ECC cell reads "On" (the counts are per MIG
		// device); the `nvidia-smi mig -lcip` box pasted below the
		// Processes box is not read as processes.
		{"testdata/table-r535-a30-mig-3dev.txt", "535.183.01", "12.2", []gpu{
			{0, "NVIDIA A30", "00000000:0B:00.0", -1, "P0", "50MiB / 24576MiB", "Default", "Enabled", nil, 10},
		}, 3, 0, true},
		{"testdata/table-r580-rtxpro6000-ecc2-cut.txt", "", "", []gpu{
			{0, "NVIDIA RTX PRO 6000 Blac...", "00000000:54:00.0", 0, "P8", "0MiB / 97887MiB", "Default", "", nil, 6},
			{1, "NVIDIA RTX PRO 6000 Blac...", "00000000:55:00.0", 2, "P8", "0MiB / 97887MiB", "Default", "", nil, 9},
		}, 0, 0, false},
		{"testdata/table-r595-a100-4gpu-fan-mig-err.txt", "595.71.05", "13.2", []gpu{
			{0, "NVIDIA A100 80GB PCIe", "00000000:17:00.0", 0, "P0", "69617MiB / 81920MiB", "Default", "Disabled", nil, 9},
			{1, "NVIDIA A100 80GB PCIe", "00000000:65:00.0", 0, "P0", "0MiB / 81920MiB", "Default", "Disabled", nil, 13},
			{2, "NVIDIA A100 80GB PCIe", "00000000:CA:00.0", -1, "P0", "0MiB / 81920MiB", "Default", "ERR!", []string{"Fan", "MIG M."}, 17},
			{3, "NVIDIA A100 80GB PCIe", "00000000:E3:00.0", -1, "P0", "0MiB / 81920MiB", "Default", "ERR!", []string{"Fan", "MIG M."}, 21},
		}, 0, 1, false},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			f, err := os.Open(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tb, err := ParseTable(f, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if tb.Driver != tc.driver || tb.CUDA != tc.cuda {
				t.Errorf("driver %q CUDA %q, want %q %q", tb.Driver, tb.CUDA, tc.driver, tc.cuda)
			}
			var got []gpu
			for _, g := range tb.GPUs {
				got = append(got, gpu{g.Index, g.Name, g.BusID, g.ECC, g.Perf, g.Memory, g.Compute, g.MIG, g.Errs, g.Line})
			}
			if !reflect.DeepEqual(got, tc.gpus) {
				t.Errorf("GPUs\n got %+v\nwant %+v", got, tc.gpus)
			}
			if tb.MIGDevices != tc.mig || tb.Processes != tc.procs || tb.NoProcesses != tc.noProcs {
				t.Errorf("MIG %d processes %d none %v, want %d %d %v", tb.MIGDevices, tb.Processes, tb.NoProcesses, tc.mig, tc.procs, tc.noProcs)
			}
		})
	}
}

func TestParseTableRefuses(t *testing.T) {
	for _, in := range []string{
		"",
		"| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05 |\n",
		// A Processes box alone holds no GPU row.
		"| Processes: |\n|=====|\n|  0   1234  C  python  100MiB |\n",
		// GPU-shaped rows above the column header are not read.
		"|   0  Tesla V100  Off | 00000000:1A:00.0 Off | 0 |\n",
	} {
		if _, err := ParseTable(strings.NewReader(in), "x"); !errors.Is(err, ErrNoTable) {
			t.Errorf("%q: err %v, want ErrNoTable", in, err)
		}
	}
}

// TestParseTableFailure: nvidia-smi's own error in place of the table is
// read as the table's Failure, with its line; other prose is not.
func TestParseTableFailure(t *testing.T) {
	for in, want := range map[string]string{
		"$ nvidia-smi\nNo devices were found\n": "No devices were found",
		"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
		"# nvidia-smi\n  Failed to initialize NVML: Driver/library version mismatch\n":                                                                      "Failed to initialize NVML: Driver/library version mismatch",
	} {
		tb, err := ParseTable(strings.NewReader(in), "x")
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if tb.Failure != want || tb.FailureLine != strings.Count(in, "\n") || len(tb.GPUs) != 0 {
			t.Errorf("%q: failure %q at %d, %d GPUs", in, tb.Failure, tb.FailureLine, len(tb.GPUs))
		}
	}
	for _, in := range []string{"no devices were found on the bus, says the user\n", "Failed to initialize NVML: \n"} {
		if _, err := ParseTable(strings.NewReader(in), "x"); !errors.Is(err, ErrNoTable) {
			t.Errorf("%q: %v, want ErrNoTable", in, err)
		}
	}
}

// TestParseTableMIGs: the MIG devices box of the real 535 A30 table: ids
// and the per-device volatile uncorrectable ECC count (the GPU's own ECC
// cell reads "On"); the composed 535 table's two devices too.
func TestParseTableMIGs(t *testing.T) {
	for file, want := range map[string][]TableMIG{
		"table-r535-a30-mig-3dev.txt": {
			{Line: 22, GPU: 0, GI: 2, CI: 0, Dev: 0, ECC: 0},
			{Line: 25, GPU: 0, GI: 3, CI: 0, Dev: 1, ECC: 0},
			{Line: 28, GPU: 0, GI: 4, CI: 0, Dev: 2, ECC: 0},
		},
		"table-r535-a100-mig-err.txt": {
			{Line: 29, GPU: 0, GI: 1, CI: 0, Dev: 0, ECC: 0},
			{Line: 32, GPU: 0, GI: 2, CI: 0, Dev: 1, ECC: 0},
		},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		tb, err := ParseTable(strings.NewReader(string(b)), file)
		if err != nil {
			t.Fatal(err)
		}
		var got []TableMIG
		for _, m := range tb.MIGs {
			m.Text = ""
			got = append(got, m)
		}
		if !reflect.DeepEqual(got, want) || tb.MIGDevices != len(want) {
			t.Errorf("%s: MIGs %+v (%d), want %+v", file, got, tb.MIGDevices, want)
		}
	}
	// A device's ECC count read from its third cell; "N/A" is -1.
	in := "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n|===|\n" +
		"|   0  A100-SXM4-40GB      On   | 00000000:36:00.0 Off |                   On |\n\n" +
		"| MIG devices:  |\n|===|\n" +
		"|  0    1   0   0  |     19MiB / 40192MiB | 42      3 |  3   0    2    0    0 |\n" +
		"|  0    2   0   1  |     19MiB / 40192MiB | 42    N/A |  3   0    2    0    0 |\n"
	tb, err := ParseTable(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.MIGs) != 2 || tb.MIGs[0].ECC != 3 || tb.MIGs[1].ECC != -1 || tb.MIGs[1].Dev != 1 || tb.MIGs[0].Line != 7 {
		t.Errorf("MIGs %+v", tb.MIGs)
	}
}

// TestParseTableRealFailures: nvidia-smi's failure messages as real
// pastes show them (testdata/README.md names the sources), with the
// line they are on; a curly apostrophe from a blog or an editor does not
// hide the driver message.
func TestParseTableRealFailures(t *testing.T) {
	for _, c := range []struct {
		file, failure string
		line          int
		library       string
	}{
		{"table-fail-no-devices-singuconda.txt", "No devices were found", 2, ""},
		{"table-fail-driver-shine-cluster.txt", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.", 2, ""},
		{"table-fail-driver-curly-quote.txt", "NVIDIA-SMI has failed because it couldn\u2018t communicate with the NVIDIA driver.", 1, ""},
		{"table-fail-nvml-mismatch-llvm.txt", "Failed to initialize NVML: Driver/library version mismatch", 2, "550.144"},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tb, err := ParseTable(f, c.file)
			if err != nil {
				t.Fatal(err)
			}
			if tb.Failure != c.failure || tb.FailureLine != c.line || len(tb.GPUs) != 0 || tb.NVMLLibrary != c.library {
				t.Errorf("failure %q at %d (library %q), %d GPUs; want %q at %d (%q)", tb.Failure, tb.FailureLine, tb.NVMLLibrary, len(tb.GPUs), c.failure, c.line, c.library)
			}
		})
	}
}

func TestTableDetect(t *testing.T) {
	for _, c := range []struct {
		l            string
		banner, cols bool
	}{
		{"| NVIDIA-SMI 384.111                Driver Version: 384.111                   |", true, false},
		{"|NVIDIA-SMI 550.54.15  Driver Version: 550.54.15  CUDA Version: 12.4|", true, false},
		{"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", false, false},
		{"| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |", false, true},
		{"| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |", false, true},
		{"| a | b |", false, false},
	} {
		if got := TableBanner(c.l); got != c.banner {
			t.Errorf("TableBanner(%q) = %v", c.l, got)
		}
		if got := TableColumns(c.l); got != c.cols {
			t.Errorf("TableColumns(%q) = %v", c.l, got)
		}
	}
}

// FuzzParseTable: any input parses or fails with an error, never panics,
// and every GPU points at a line of the input.
func FuzzParseTable(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "table-*.txt"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("| GPU Name Persistence-M| Bus-Id |\n|===|\n| 0 x | | |\n|||\n")
	f.Fuzz(func(t *testing.T, s string) {
		tb, err := ParseTable(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		lines := strings.Count(s, "\n") + 1
		for _, g := range tb.GPUs {
			if g.Line < 1 || g.Line > lines {
				t.Fatalf("GPU line %d of %d", g.Line, lines)
			}
		}
	})
}
