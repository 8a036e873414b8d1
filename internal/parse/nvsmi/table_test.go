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
		{"testdata/table-r470-2gpu-fan-err.txt", "470.82.01", "11.4", []gpu{
			{0, "NVIDIA GeForce ...", "00000000:01:00.0", -1, "P2", "10984MiB / 24268MiB", "Default", "N/A", []string{"Fan", "Pwr:Usage/Cap"}, 8},
			{1, "Tesla V100-SXM2...", "00000000:1A:00.0", 0, "P0", "0MiB / 32510MiB", "E. Process", "N/A", nil, 12},
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
