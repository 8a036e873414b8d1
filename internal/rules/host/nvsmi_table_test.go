package host

import (
	"fmt"
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
