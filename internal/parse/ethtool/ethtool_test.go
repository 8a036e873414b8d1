package ethtool

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func parseFile(t testing.TB, name string) *Stats {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(strings.NewReader(string(b)), "eth0", name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func TestParseCorpus(t *testing.T) {
	tests := []struct {
		file  string
		count int
		name  string
		want  uint64
	}{
		{"mlx5-cx4-ubuntu1804-head.txt", 23, "tx_csum_partial", 726606998},
		{"mlx5-cx4-ubuntu1804-head.txt", 23, "rx_bytes", 2195783498134},
		{"bnx2x-queue-prefixes.txt", 10, "[0]: rx_bytes", 209487403324},
		{"mlx5-roce-pfc-storm.txt", 31, "tx_pause_storm_error_events", 1},
		{"mlx5-roce-phy-errors.txt", 31, "rx_pcs_symbol_err_phy", 37},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.name, func(t *testing.T) {
			s := parseFile(t, tt.file)
			if len(s.Stats) != tt.count {
				t.Errorf("count = %d, want %d", len(s.Stats), tt.count)
			}
			if v, ok := s.Get(tt.name); !ok || v != tt.want {
				t.Errorf("%s = %d, %v; want %d", tt.name, v, ok, tt.want)
			}
			if _, ok := s.Get("no_such_counter"); ok {
				t.Error("missing counter reported present")
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
		line     int
	}{
		{"empty", "", ErrNoData, 0},
		{"header only", "NIC statistics:\n", ErrNoData, 0},
		{"negative", "NIC statistics:\n     rx_packets: 1\n     tx_packets: -1\n", ErrMalformed, 3},
		{"text value", "     rx_packets: many\n", ErrMalformed, 1},
		{"no colon", "     rx_packets 1\n", ErrMalformed, 1},
		{"overflow", "     rx_packets: 18446744073709551616\n", ErrMalformed, 1},
		{"no name", "     : 5\n", ErrMalformed, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in), "eth0", "cmd/ethtool-S-eth0.txt")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var pe *ParseError
			if tt.line > 0 && (!errors.As(err, &pe) || pe.Line != tt.line) {
				t.Errorf("err = %v, want line %d", err, tt.line)
			}
			if !strings.Contains(err.Error(), "cmd/ethtool-S-eth0.txt") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestNewTrimsAndSorts(t *testing.T) {
	s := New("eth0", "SIOCETHTOOL", map[string]uint64{"tx_pause_storm_warning_events ": 2, "a": 1})
	if v, ok := s.Get("tx_pause_storm_warning_events"); !ok || v != 2 {
		t.Errorf("trailing-space name not trimmed: %v", s.Stats)
	}
	if s.Stats[0].Name != "a" {
		t.Errorf("not sorted: %v", s.Stats)
	}
	if sum, n := s.Sum("a", "tx_pause_storm_warning_events", "missing"); sum != 3 || n != 2 {
		t.Errorf("Sum = %d, %d", sum, n)
	}
	var nilStats *Stats
	if _, ok := nilStats.Get("a"); ok {
		t.Error("nil stats has a value")
	}
}

func FuzzParse(f *testing.F) {
	ents, _ := os.ReadDir("testdata")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".txt") {
			b, _ := os.ReadFile(filepath.Join("testdata", e.Name()))
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(strings.NewReader(in), "x", "fuzz")
		if err != nil {
			return
		}
		for i, st := range s.Stats {
			if st.Name == "" || (i > 0 && s.Stats[i-1].Name >= st.Name) {
				t.Fatalf("stats not sorted/unique at %d: %v", i, s.Stats)
			}
			if v, ok := s.Get(st.Name); !ok || v != st.Value {
				t.Fatalf("Get(%q) = %d, %v", st.Name, v, ok)
			}
		}
	})
}

// TestPastedBodies: ethtool -S bodies as people paste them, from the
// analyze corpus (a 751-line mlx5 body without header or indentation; an
// Intel ice `| grep prio` output collapsed onto one markdown table line).
func TestPastedBodies(t *testing.T) {
	rw := filepath.Join("..", "..", "diagnose", "analyze", "testdata", "realworld")
	for _, tt := range []struct {
		file  string
		pairs int // counters on the file's first line
	}{
		{"ethtool-ethq-tests-mlx5.txt", 1},
		{"ethtool-1000bd-ice-pfc-flattened.txt", 32},
	} {
		b, err := os.ReadFile(filepath.Join(rw, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if !DetectBody(string(b)) {
			t.Errorf("%s: DetectBody false", tt.file)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if got := len(Pairs(first)); got != tt.pairs {
			t.Errorf("%s: %d pairs on line 1, want %d", tt.file, got, tt.pairs)
		}
	}
	ps := Pairs("| # ethtool -S enp175s0f0 | grep prio tx_priority_0_xon.nic: 1 tx_priority_0_xoff.nic: 6434 |")
	if len(ps) != 2 || ps[1].Name != "tx_priority_0_xoff.nic" || ps[1].Value != 6434 {
		t.Errorf("pairs %+v", ps)
	}
	for _, neg := range []string{"just prose\nwith: words\n", "CA 'mlx5_0'\n\tCA type: MT4123\n\tPort 1:\n\t\tRate: 200\n\t\tBase lid: 3\n", ""} {
		if DetectBody(neg) {
			t.Errorf("DetectBody(%q) true", neg)
		}
	}
}

// TestQueueSum adds a statistic over the per-queue names drivers print.
func TestQueueSum(t *testing.T) {
	s, err := Parse(strings.NewReader("NIC statistics:\n     rx_pkts: 5\n     rxq0: rx_pkts: 10\n     rxq1: rx_pkts: 20\n     [2]: rx_pkts: 1\n     rxq0: rx_pkts_x: 99\n"), "eth0", "t")
	if err != nil {
		t.Fatal(err)
	}
	if sum, n := s.QueueSum("rx_pkts"); sum != 36 || n != 4 {
		t.Errorf("QueueSum = %d over %d, want 36 over 4", sum, n)
	}
	if sum, n := s.QueueSum("rx_drops"); sum != 0 || n != 0 {
		t.Errorf("QueueSum of a missing name = %d over %d", sum, n)
	}
}
