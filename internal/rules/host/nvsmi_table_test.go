package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
)

// TestCheckPastedTable: the plain nvidia-smi table's faults: ERR! cells
// (gpu.nvml_error: a warning for sensor fields alone, critical when the
// GPU's other fields fail) and a non-zero Volatile Uncorr. ECC
// (gpu.ecc_uncorrectable). N/A, load, temperature and processes are not
// faults.
func TestCheckPastedTable(t *testing.T) {
	const head = "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n" +
		"| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n" +
		"|===============================+======================+======================|\n"
	tests := []struct {
		name string
		rows string
		want []string // ID/severity
		in   string   // in the first finding's summary
	}{
		{"version mismatch", "Failed to initialize NVML: Driver/library version mismatch\n",
			[]string{"gpu.smi_failed/critical"}, "not the version of the user-space library"},
		{"healthy, N/A and busy", head + "|   0  Tesla V100-SXM2...  On   | 00000000:1A:00.0 Off |                    0 |\n" +
			"| N/A   81C    P0   299W / 300W |  32000MiB / 32510MiB |    100%      Default |\n" +
			"|   1  GeForce GTX 1080    Off  | 00000000:02:00.0  On |                  N/A |\n" +
			"| 40%   60C    P8    20W / 180W |    489MiB /  8119MiB |      0%      Default |\n", nil, ""},
		{"uncorrectable ECC", head + "|   3  Tesla V100-SXM2...  On   | 00000000:1A:00.0 Off |                    4 |\n" +
			"| N/A   41C    P0    57W / 300W |      0MiB / 32510MiB |      0%      Default |\n",
			[]string{"gpu.ecc_uncorrectable/critical"}, "GPU3 (Tesla V100-SXM2...) at 00000000:1A:00.0 counted 4 uncorrectable ECC errors"},
		{"fan sensor", head + "|   0  GeForce RTX 3090    Off  | 00000000:01:00.0 Off |                  N/A |\n" +
			"|ERR!   45C    P2   ERR! / 350W |  10984MiB / 24268MiB |     97%      Default |\n",
			[]string{"gpu.nvml_error/warning"}, "ERR! for Fan, Pwr:Usage/Cap of GPU0 (GeForce RTX 3090)"},
		{"MIG device ECC", head + "|   0  A100-SXM4-40GB      On   | 00000000:36:00.0 Off |                   On |\n" +
			"| N/A   29C    P0    62W / 400W |     38MiB / 40537MiB |     N/A      Default |\n\n" +
			"| MIG devices:                                                                |\n|===|\n" +
			"|  0    1   0   0  |     19MiB / 20096MiB | 42      0 |  3   0    2    0    0 |\n" +
			"|  0    2   0   1  |     19MiB / 20096MiB | 42      1 |  3   0    2    0    0 |\n",
			[]string{"gpu.ecc_uncorrectable/critical"}, "MIG device 1 (GPU instance 2, compute instance 0) of GPU0 at 00000000:36:00.0 counted 1 uncorrectable ECC error"},
		{"GPU gone", head + "|   2  ERR!                On   | 00000000:47:00.0 Off |                 ERR! |\n" +
			"|ERR!  ERR!  ERR!    ERR! / ERR! |      0MiB / 81920MiB |    ERR!      Default |\n",
			[]string{"gpu.nvml_error/critical"}, "no longer answers the driver"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb, err := nvsmi.ParseTable(strings.NewReader(tc.rows), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckPastedTable(tb, "p.txt")
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s/%s", f.ID, f.Severity))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			if tc.in != "" && !strings.Contains(fs[0].Summary, tc.in) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tc.in)
			}
			if len(fs) > 0 && (fs[0].Subject.File != "p.txt" || !strings.HasPrefix(fs[0].Evidence[0].Source, "p.txt:")) {
				t.Errorf("subject %+v evidence %+v", fs[0].Subject, fs[0].Evidence)
			}
		})
	}
}

// TestCheckPastedTableReal: the real tables and failure messages of the
// table parser's testdata (its README.md names their sources) judged: a
// fan or power sensor's ERR! is a warning, a GPU whose other cells read
// ERR! is critical, a Volatile Uncorr. ECC of 2 is critical, a MIG GPU
// whose ECC cell reads "On" is healthy, each failure message is
// gpu.smi_failed with what it means.
func TestCheckPastedTableReal(t *testing.T) {
	tests := []struct {
		file string
		want []string // ID/severity/GPU
		in   string   // in the first finding's summary
	}{
		{"table-r384-quadro-p1000-power-err.txt", []string{"gpu.nvml_error/warning/0"}, "ERR! for Pwr:Usage/Cap of GPU0 (Quadro P1000) at 00000000:65:00.0"},
		{"table-r460-gtx1080ti-fan-power-err.txt", []string{"gpu.nvml_error/warning/1"}, "ERR! for Fan, Pwr:Usage/Cap of GPU1"},
		{"table-r525-a40-8gpu-gpu4-err.txt", []string{"gpu.nvml_error/critical/4"}, "GPU4 at 00000000:83:00.0"},
		{"table-r535-a30-mig-3dev.txt", nil, ""},
		{"table-r580-rtxpro6000-ecc2-cut.txt", []string{"gpu.ecc_uncorrectable/critical/1"}, "GPU1 (NVIDIA RTX PRO 6000 Blac...) at 00000000:55:00.0 counted 2 uncorrectable ECC errors"},
		{"table-r595-a100-4gpu-fan-mig-err.txt", []string{"gpu.nvml_error/critical/2", "gpu.nvml_error/critical/3"}, "ERR! for Fan, MIG M. of GPU2"},
		{"table-fail-no-devices-singuconda.txt", []string{"gpu.smi_failed/critical/"}, "sees no GPU"},
		{"table-fail-driver-shine-cluster.txt", []string{"gpu.smi_failed/critical/"}, "cannot talk to the NVIDIA kernel driver"},
		{"table-fail-driver-curly-quote.txt", []string{"gpu.smi_failed/critical/"}, "cannot talk to the NVIDIA kernel driver"},
		{"table-fail-nvml-mismatch-llvm.txt", []string{"gpu.smi_failed/critical/"}, "against the library's version (550.144, as nvidia-smi says)"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "..", "parse", "nvsmi", "testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tb, err := nvsmi.ParseTable(f, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			fs := CheckPastedTable(tb, tc.file)
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s/%s/%s", f.ID, f.Severity, f.Subject.GPU))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			if tc.in != "" && !strings.Contains(fs[0].Summary, tc.in) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tc.in)
			}
		})
	}
}
