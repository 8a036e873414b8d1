package nvsmi

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// HandleError is nvidia-smi's report that NVML could not open a GPU it
// enumerated (nvmlDeviceGetHandleByIndex failed): "Unable to determine the
// device handle for GPU0000:03:00.0: Unknown Error". nvidia-smi prints it
// for each such GPU, on stderr, and goes on with the others. The forms
// seen: "GPU0000:25:00.0: …", "GPU 0000:01:00.0: …", "gpu 0000:01:00.0:
// …" (older drivers), "GPU3: 0000:5F:00.0: …" and "GPU2: …" (the index,
// with or without the address). Err is NVML's error string
// (nvmlErrorString: "Unknown Error", "GPU is lost", "Not Found",
// "Insufficient Power", "Timeout" …), the sentence after it kept
// ("GPU is lost.  Reboot the system to recover this GPU").
type HandleError struct {
	Line int `json:"line"`
	// Index is the GPU index the line names, -1 when it names none.
	Index int          `json:"index"`
	PCI   pcie.Address `json:"pci,omitempty"`
	Err   string       `json:"error"`
	Text  string       `json:"text"`
}

// ErrNoHandleError is returned when a text holds no device handle error.
var ErrNoHandleError = errors.New("no nvidia-smi 'Unable to determine the device handle' line")

const handlePrefix = "Unable to determine the device handle for "

var reHandleError = regexp.MustCompile(`^Unable to determine the device handle for (?:GPU|gpu) ?(?:(?P<pci>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])|(?P<idx>\d+))(?:: (?P<pci2>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]))?: +(?P<err>\S.*?)\s*$`)

// HandleErrorLine reads one line (spaces around it allowed).
func HandleErrorLine(l string) (HandleError, bool) {
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, handlePrefix) {
		return HandleError{}, false
	}
	m := reHandleError.FindStringSubmatch(t)
	if m == nil {
		return HandleError{}, false
	}
	h := HandleError{Index: -1, Err: m[4], Text: t}
	if m[2] != "" {
		h.Index, _ = strconv.Atoi(m[2])
	}
	for _, a := range []string{m[1], m[3]} {
		if a == "" {
			continue
		}
		if p, err := pcie.ParseAddress(normalizeDomain(a)); err == nil {
			h.PCI = p
		}
	}
	return h, true
}

// ParseHandleErrors reads the device handle errors of a text whose first
// line is line first of source; other lines (the prompt, nvidia-smi's
// table for the GPUs that still answer) are skipped.
func ParseHandleErrors(r io.Reader, source string, first int) ([]HandleError, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var out []HandleError
	for n := first; sc.Scan(); n++ {
		if h, ok := HandleErrorLine(sc.Text()); ok {
			h.Line = n
			out = append(out, h)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &parse.Error{Source: source, Err: err}
	}
	if len(out) == 0 {
		return nil, &parse.Error{Source: source, Err: ErrNoHandleError}
	}
	return out, nil
}

// Lost reports whether the error means the GPU no longer answers on the
// bus: NVML_ERROR_GPU_IS_LOST ("GPU is lost"), NVML_ERROR_UNKNOWN
// ("Unknown Error", what NVML returns when the driver's RM calls to a GPU
// that fell off the bus fail) and NVML_ERROR_TIMEOUT ("Timeout"). A GPU
// NVML cannot find ("Not Found"), one without its power cables
// ("Insufficient Power") or a user without the rights is another matter.
func (h HandleError) Lost() bool {
	e := strings.ToLower(h.Err)
	return strings.HasPrefix(e, "gpu is lost") || strings.HasPrefix(e, "unknown error") || strings.HasPrefix(e, "timeout")
}
