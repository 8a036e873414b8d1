package nvsmi

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseQuery(t *testing.T) {
	for _, tt := range []struct {
		file string
		want []QueryGPU
	}{
		{"q-a100-pending-mlengineering.txt", []QueryGPU{{PCI: "0000:10:1c.0", Name: "NVIDIA A100-SXM4-80GB", Line: 6,
			Rows: &RemappedRows{Correctable: 1, Uncorrectable: 0, Pending: 1, Failure: 0, Line: 25}}}},
		{"q-row-remapper-pending-dbe.txt", []QueryGPU{{PCI: "0000:55:00.0", Line: 1,
			Rows: &RemappedRows{Correctable: 0, Uncorrectable: 1, Pending: 1, Failure: 0, Line: 3}}}},
		// ECC Mode's own "Pending : Enabled" is not the row remapper's.
		{"q-healthy-ecc-fragment.txt", []QueryGPU{{Line: 16,
			Rows: &RemappedRows{Correctable: 0, Uncorrectable: 0, Pending: 0, Failure: 0, Line: 20}}}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			q, err := ParseQuery(f, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, q.GPUs); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseQueryForms(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		rows     *RemappedRows
		pages    *RetiredPages
		gpus     int
	}{
		{"fragment with failure", "    Remapped Rows\n        Correctable Error                 : 0\n        Uncorrectable Error               : 8\n        Pending                           : Yes\n        Remapping Failure Occurred        : Yes\n",
			&RemappedRows{Correctable: 0, Uncorrectable: 8, Pending: 1, Failure: 1, Line: 2}, nil, 1},
		{"keys in another order, unindented paste", "Remapped Rows\nRemapping Failure Occurred : Yes\nPending : No\n",
			&RemappedRows{Correctable: -1, Uncorrectable: -1, Pending: 0, Failure: 1, Line: 2}, nil, 1},
		{"Volta page retirement pending", "GPU 00000000:3B:00.0\n    Retired Pages\n        Single Bit ECC                    : 2\n        Double Bit ECC                    : 1\n        Pending Page Blacklist            : Yes\n",
			nil, &RetiredPages{SingleBit: 2, DoubleBit: 1, Pending: 1, Line: 3}, 1},
		{"two GPUs", "GPU 00000000:07:00.0\n    Remapped Rows\n        Pending : No\nGPU 00000000:0F:00.0\n    Remapped Rows\n        Pending : Yes\n",
			&RemappedRows{Correctable: -1, Uncorrectable: -1, Pending: 0, Failure: -1, Line: 3}, nil, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(strings.NewReader(tt.in), "q.txt")
			if err != nil {
				t.Fatal(err)
			}
			if len(q.GPUs) != tt.gpus {
				t.Fatalf("%d GPUs: %+v", len(q.GPUs), q.GPUs)
			}
			if d := cmp.Diff(tt.rows, q.GPUs[0].Rows); d != "" {
				t.Errorf("rows (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.pages, q.GPUs[0].Pages); d != "" {
				t.Errorf("pages (-want +got):\n%s", d)
			}
		})
	}
	// pastebin.com/Mtr8NR2N (realworld-fresh17): driver 319.49 on a
	// GeForce GTX 560 Ti, no memory section, its fields N/A; the paste's
	// line numbers stripped (the detector does that), indentation gone.
	old := "==============NVSMI LOG==============\n\nTimestamp : Tue Dec 10 17:46:22 2013\nDriver Version : 319.49\n\nAttached GPUs : 1\nGPU 0000:01:00.0\n" +
		"Product Name : GeForce GTX 560 Ti\nDisplay Mode : N/A\nGPU Link Info\nPCIe Generation\nMax : N/A\nCurrent : N/A\nFan Speed : 40 %\n"
	if q, err := ParseQuery(strings.NewReader(old), "q.txt"); err != nil || len(q.GPUs) != 1 || q.GPUs[0].Name != "GeForce GTX 560 Ti" || q.GPUs[0].PCI != "0000:01:00.0" || q.GPUs[0].Rows != nil || q.GPUs[0].Pages != nil {
		t.Errorf("GPU block without a memory section: %+v %v", q, err)
	}
	// Azure/azhpc-images#506 (analyze testdata/realworld-fresh40): a Fabric
	// block pasted alone; Health's own Status is not the fabric's.
	fab := "Fabric\n    State                             : Completed\n    Status                            : Insufficient Resources\n    CliqueId                          : 0\n    ClusterUUID                       : 00000000-0000-0000-0000-000000000000\n    Health\n        Bandwidth                     : Full\n        Status                        : Healthy\n"
	want := &Fabric{State: "Completed", Status: "Insufficient Resources", CliqueID: "0", ClusterUUID: "00000000-0000-0000-0000-000000000000", Line: 2, StatusLine: 3}
	if q, err := ParseQuery(strings.NewReader(fab), "q.txt"); err != nil || len(q.GPUs) != 1 || cmp.Diff(want, q.GPUs[0].Fabric) != "" {
		t.Errorf("Fabric block: %+v %v", q, err)
	}
	for _, in := range []string{"", "GPU 0000:01:00.0\nFan Speed : 40 %\n", "    Fabric\n        State : N/A\n        Status : N/A\n", "    Ecc Mode\n        Pending : Enabled\n", "    Remapped Rows                     : N/A\n", "    Retired Pages\n        Single Bit ECC : N/A\n"} {
		if _, err := ParseQuery(strings.NewReader(in), "q.txt"); !errors.Is(err, ErrNoMemorySection) || !strings.HasPrefix(err.Error(), "q.txt: ") {
			t.Errorf("%q: err = %v", in, err)
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, n := range []string{"q-a100-pending-mlengineering.txt", "q-row-remapper-pending-dbe.txt", "q-healthy-ecc-fragment.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ParseQuery(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, g := range q.GPUs {
			if g.Rows == nil && g.Pages == nil && (g.PCI == "" || g.Name == "") {
				t.Fatalf("GPU without a section, its header or its name: %+v", g)
			}
		}
	})
}
