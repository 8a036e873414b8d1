package nvsmi

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// TestHandleErrorLine: nvidia-smi's "Unable to determine the device
// handle" line in the forms pasted in public issues: rwth-i6/returnn#1486
// (analyze testdata/realworld-fresh19
// dmesg-returnn1486-nvsmi-gpu-unknown-error-aer-dll-timeout.txt), and the
// index forms newer drivers print ("GPU3: 0000:5F:00.0: Unknown Error").
func TestHandleErrorLine(t *testing.T) {
	tests := []struct {
		in   string
		want HandleError
		lost bool
	}{
		{"Unable to determine the device handle for GPU0000:03:00.0: Unknown Error",
			HandleError{Index: -1, PCI: "0000:03:00.0", Err: "Unknown Error"}, true},
		{"Unable to determine the device handle for GPU3: 0000:5F:00.0: Unknown Error",
			HandleError{Index: 3, PCI: "0000:5f:00.0", Err: "Unknown Error"}, true},
		{"Unable to determine the device handle for gpu 0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU",
			HandleError{Index: -1, PCI: "0000:3b:00.0", Err: "GPU is lost.  Reboot the system to recover this GPU"}, true},
		{"Unable to determine the device handle for GPU2: Unknown Error",
			HandleError{Index: 2, Err: "Unknown Error"}, true},
		{"Unable to determine the device handle for GPU 0000:01:00.0: Not Found",
			HandleError{Index: -1, PCI: "0000:01:00.0", Err: "Not Found"}, false},
		{"  Unable to determine the device handle for GPU00000000:86:00.0: Insufficient Power  ",
			HandleError{Index: -1, PCI: "0000:86:00.0", Err: "Insufficient Power"}, false},
	}
	for _, tt := range tests {
		got, ok := HandleErrorLine(tt.in)
		if !ok {
			t.Errorf("%q: not read", tt.in)
			continue
		}
		tt.want.Text = strings.TrimSpace(tt.in)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.in, d)
		}
		if got.Lost() != tt.lost {
			t.Errorf("%q: Lost() = %v, want %v", tt.in, got.Lost(), tt.lost)
		}
	}
	for _, neg := range []string{
		"Unable to determine the device handle for",
		"Unable to determine the device handle for GPU: Unknown Error",
		"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
		"nvidia-smi says: Unable to determine the device handle for GPU0000:03:00.0: Unknown Error",
	} {
		if h, ok := HandleErrorLine(neg); ok {
			t.Errorf("%q read as %+v", neg, h)
		}
	}
}

// TestParseHandleErrors: the lines are numbered from first; a text
// without one is an error naming the source.
func TestParseHandleErrors(t *testing.T) {
	in := "zeyer@cn-234 ~ % nvidia-smi\nUnable to determine the device handle for GPU0000:03:00.0: Unknown Error\n"
	got, err := ParseHandleErrors(strings.NewReader(in), "paste.txt", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Line != 3 || got[0].PCI != "0000:03:00.0" {
		t.Errorf("got %+v", got)
	}
	_, err = ParseHandleErrors(strings.NewReader("hello\n"), "paste.txt", 1)
	if !errors.Is(err, ErrNoHandleError) || !strings.Contains(err.Error(), "paste.txt") {
		t.Errorf("err = %v", err)
	}
}

// FuzzParseHandleErrors: any text is read without a panic; every error
// read names its line and an NVML error, and its address is valid.
func FuzzParseHandleErrors(f *testing.F) {
	f.Add("$ nvidia-smi\nUnable to determine the device handle for GPU0000:03:00.0: Unknown Error\n")
	f.Add("Unable to determine the device handle for GPU3: 0000:5F:00.0: Unknown Error\nUnable to determine the device handle for GPU2: Not Found\n")
	f.Fuzz(func(t *testing.T, in string) {
		errs, err := ParseHandleErrors(strings.NewReader(in), "fuzz", 1)
		if err != nil {
			return
		}
		for _, h := range errs {
			if h.Line < 1 || h.Err == "" || !strings.HasPrefix(h.Text, handlePrefix) {
				t.Fatalf("read %+v", h)
			}
			if h.PCI != "" {
				if a, err := pcie.ParseAddress(string(h.PCI)); err != nil || a != h.PCI {
					t.Fatalf("address %q: %v", h.PCI, err)
				}
			}
		}
	})
}
