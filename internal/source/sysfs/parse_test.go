package sysfs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAER(t *testing.T) {
	tests := []struct {
		name, in string
		total    uint64
		bits     map[string]uint64
		err      string
	}{
		{name: "short names (current kernels)", in: "RxErr 3\nBadTLP 0\nTOTAL_ERR_COR 3\n", total: 3, bits: map[string]uint64{"RxErr": 3, "BadTLP": 0}},
		{name: "long names (4.19–5.x)", in: "Receiver Error 2\nRELAY_NUM Rollover 1\nTOTAL_ERR_COR 2\n", total: 2, bits: map[string]uint64{"Receiver Error": 2, "RELAY_NUM Rollover": 1}},
		{name: "unnamed bit", in: "dev_cor_errs_bit[12] 5\nTOTAL_ERR_COR 5\n", total: 5, bits: map[string]uint64{"dev_cor_errs_bit[12]": 5}},
		{name: "no total line sums the bits", in: "DLP 1\nSDES 2\n", total: 3, bits: map[string]uint64{"DLP": 1, "SDES": 2}},
		{name: "total differs from the sum", in: "BadTLP 4\nTOTAL_ERR_COR 1\n", total: 1, bits: map[string]uint64{"BadTLP": 4}},
		{name: "empty file", in: "", total: 0, bits: map[string]uint64{}},
		{name: "one field", in: "RxErr\n", err: `aer line 1: "RxErr"`},
		{name: "negative", in: "RxErr 0\nBadTLP -1\n", err: "aer line 2"},
		{name: "not a number", in: "RxErr x\n", err: "not an unsigned decimal"},
		{name: "duplicate", in: "RxErr 1\nRxErr 2\n", err: "appears twice"},
		{name: "two totals", in: "TOTAL_ERR_COR 1\nTOTAL_ERR_COR 2\n", err: "second TOTAL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAER(strings.NewReader(tt.in), "aer")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != tt.total {
				t.Errorf("total = %d, want %d", got.Total, tt.total)
			}
			if d := cmp.Diff(tt.bits, got.Bits); d != "" {
				t.Errorf("bits (-want +got):\n%s", d)
			}
		})
	}
}

func TestAttributeParsers(t *testing.T) {
	type tc struct {
		in   string
		want any
		ok   bool
	}
	run := func(name string, f func(string) (any, error), cases []tc) {
		for _, c := range cases {
			got, err := f(c.in)
			if (err == nil) != c.ok || (c.ok && got != c.want) {
				t.Errorf("%s(%q) = %v, %v; want %v ok=%v", name, c.in, got, err, c.want, c.ok)
			}
		}
	}
	run("ParseNodeType", func(s string) (any, error) { return ParseNodeType(s) }, []tc{
		{"1: CA\n", "CA", true}, {"4: RNIC\n", "RNIC", true}, {"7: usNIC UDP\n", "usNIC UDP", true},
		{"CA\n", nil, false}, {"x: CA", nil, false}, {"1: ", nil, false},
	})
	run("ParseHex32", func(s string) (any, error) { return ParseHex32(s) }, []tc{
		{"0x1a\n", uint32(0x1a), true}, {"0x0\n", uint32(0), true}, {"0xa651e848\n", uint32(0xa651e848), true},
		{"26\n", nil, false}, {"0x\n", nil, false}, {"0x1ffffffff", nil, false}, {"0x-1", nil, false},
	})
	run("ParseNUMANode", func(s string) (any, error) { return ParseNUMANode(s) }, []tc{
		{"-1\n", -1, true}, {"0\n", 0, true}, {"3\n", 3, true}, {"-2\n", nil, false}, {"\n", nil, false},
	})
}

func FuzzParseAER(f *testing.F) {
	// Seed with every AER file of the fixture (short and long names).
	filepath.WalkDir(filepath.Join("testdata", "node1"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "aer_dev_") {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(string(b))
			}
		}
		return nil
	})
	f.Add("Receiver Error 2\nTOTAL_ERR_COR 2\n")
	f.Add("dev_fatal_errs_bit[3] 1\n")
	f.Fuzz(func(t *testing.T, in string) {
		a, err := ParseAER(strings.NewReader(in), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz") {
				t.Fatalf("error does not name its source: %v", err)
			}
			return
		}
		if len(a.Names) != len(a.Bits) {
			t.Fatalf("names %v vs bits %v", a.Names, a.Bits)
		}
	})
}

func FuzzParseAttr(f *testing.F) {
	for _, s := range []string{"1: CA\n", "0x1a\n", "-1\n", "0xa651e848\n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if name, err := ParseNodeType(in); err == nil && name == "" {
			t.Fatalf("ParseNodeType(%q) accepted an empty name", in)
		}
		if v, err := ParseHex32(in); err == nil && !strings.Contains(strings.ToLower(in), "0x") {
			t.Fatalf("ParseHex32(%q) = %d without 0x", in, v)
		}
		if n, err := ParseNUMANode(in); err == nil && n < -1 {
			t.Fatalf("ParseNUMANode(%q) = %d", in, n)
		}
		if k, err := ParsePKey(in); err == nil {
			// The kernel writes "0x%04x"; what was read writes back so.
			if again, err := ParsePKey(fmt.Sprintf("0x%04x\n", k)); err != nil || again != k {
				t.Fatalf("ParsePKey(%q) = %#x, which reads back as %#x, %v", in, k, again, err)
			}
		}
	})
}
