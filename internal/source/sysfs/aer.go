package sysfs

import (
	"bufio"
	"fmt"
	"io"
	"slices"
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
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	out := &AERFile{Bits: map[string]uint64{}}
	out.Total, err = scanAER(string(data), source, nil, func(name string, n uint64) {
		out.Bits[name] = n
		out.Names = append(out.Names, name)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// maxAERLine is the longest line ParseAER accepts.
const maxAERLine = 4096

// scanAER parses the text of an AER statistics file as ParseAER describes,
// calling bit for every bit line in order, and returns the total. names
// is scratch space for the duplicate check (may be nil).
func scanAER(text, source string, names []string, bit func(name string, n uint64)) (uint64, error) {
	haveTotal := false
	var sum, total uint64
	names = names[:0]
	for line := 1; text != ""; line++ {
		l, rest, _ := strings.Cut(text, "\n")
		text = rest
		if len(l) > maxAERLine {
			return 0, fmt.Errorf("%s: %w", source, bufio.ErrTooLong)
		}
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		i := strings.LastIndexAny(t, " \t")
		if i < 0 {
			return 0, fmt.Errorf("%s line %d: %q: want \"<name> <count>\"", source, line, t)
		}
		name, num := strings.TrimSpace(t[:i]), t[i+1:]
		n, err := strconv.ParseUint(num, 10, 64)
		if err != nil || num[0] == '+' {
			return 0, fmt.Errorf("%s line %d: %q: count is not an unsigned decimal", source, line, t)
		}
		if strings.HasPrefix(name, "TOTAL_ERR_") {
			if haveTotal {
				return 0, fmt.Errorf("%s line %d: second TOTAL line %q", source, line, t)
			}
			total, haveTotal = n, true
			continue
		}
		if slices.Contains(names, name) {
			return 0, fmt.Errorf("%s line %d: bit %q appears twice", source, line, name)
		}
		names = append(names, name)
		bit(name, n)
		sum += n
	}
	if !haveTotal {
		total = sum
	}
	return total, nil
}
