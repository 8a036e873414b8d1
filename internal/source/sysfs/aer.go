package sysfs

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// AERFile is one parsed aer_dev_correctable / aer_dev_nonfatal /
// aer_dev_fatal file.
type AERFile struct {
	// Total is the TOTAL_ERR_COR / TOTAL_ERR_NONFATAL / TOTAL_ERR_FATAL line
	// (ERR_* messages, which need not equal the sum of the bits); when the
	// file has no TOTAL line it is the sum of the bits.
	Total uint64
	// Bits are the per-bit counts by the kernel's name ("RxErr", or
	// "Receiver Error" on 4.19–5.x kernels, or "dev_cor_errs_bit[12]").
	Bits map[string]uint64
	// Names keeps the bit names in file order.
	Names []string
}

// ParseAER parses an AER statistics file as drivers/pci/pcie/aer.c prints
// it: one "<name> <count>" line per bit, then "TOTAL_ERR_<KIND> <count>".
// Names may contain spaces (older kernels print "Bad TLP", "Replay Timer
// Timeout"), so the last field is the count and the rest is the name.
// source names the file in errors, which carry the line number.
func ParseAER(r io.Reader, source string) (*AERFile, error) {
	out := &AERFile{Bits: map[string]uint64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), 4096)
	haveTotal := false
	var sum uint64
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		i := strings.LastIndexAny(t, " \t")
		if i < 0 {
			return nil, fmt.Errorf("%s line %d: %q: want \"<name> <count>\"", source, line, t)
		}
		name, num := strings.TrimSpace(t[:i]), t[i+1:]
		n, err := strconv.ParseUint(num, 10, 64)
		if err != nil || num[0] == '+' {
			return nil, fmt.Errorf("%s line %d: %q: count is not an unsigned decimal", source, line, t)
		}
		if strings.HasPrefix(name, "TOTAL_ERR_") {
			if haveTotal {
				return nil, fmt.Errorf("%s line %d: second TOTAL line %q", source, line, t)
			}
			out.Total, haveTotal = n, true
			continue
		}
		if _, dup := out.Bits[name]; dup {
			return nil, fmt.Errorf("%s line %d: bit %q appears twice", source, line, name)
		}
		out.Bits[name] = n
		out.Names = append(out.Names, name)
		sum += n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if !haveTotal {
		out.Total = sum
	}
	return out, nil
}
