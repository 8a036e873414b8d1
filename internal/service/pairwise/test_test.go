package pairwise

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestTestDefaultsAndValidate(t *testing.T) {
	tests := []struct {
		in      Test
		want    Test
		wantErr string
	}{
		{in: Test{Backend: "tcp", Kind: "bw", DurationMS: 1000}, want: Test{Backend: "tcp", Kind: "bw", DurationMS: 1000, Size: 128 << 10, Streams: 1}},
		{in: Test{Backend: "tcp", Kind: "lat", DurationMS: 1000}, want: Test{Backend: "tcp", Kind: "lat", DurationMS: 1000, Size: 64, Streams: 1}},
		{in: Test{Backend: "perftest", Kind: "lat", DurationMS: 1000, Perftest: &PerftestParams{Device: "mlx5_0"}},
			want: Test{Backend: "perftest", Kind: "lat", DurationMS: 1000, Size: 2, Streams: 1, Iterations: 1000, Perftest: &PerftestParams{Device: "mlx5_0"}}},
		{in: Test{Backend: "tcp", Kind: "bw", DurationMS: 1000, Perftest: &PerftestParams{Device: "mlx5_0"}}, wantErr: "perftest settings given to the tcp backend"},
		{in: Test{Backend: "tcp", Kind: "bw", DurationMS: 2 * 3600 * 1000}, wantErr: "out of range"},
		// ×1e6 ns wraps to about 1 s: the range is checked in milliseconds.
		{in: Test{Backend: "tcp", Kind: "bw", DurationMS: 18446744074710}, wantErr: "out of range"},
		{in: Test{Backend: "tcp", Kind: "bw", DurationMS: math.MaxInt64}, wantErr: "out of range"},
		{in: Test{Backend: "tcp", Kind: "bw", DurationMS: math.MinInt64}, wantErr: "out of range"},
		{in: Test{Backend: "tcp", Kind: "bw", DurationMS: 49}, wantErr: "out of range"},
		{in: Test{Backend: "tcp", Kind: "bw", DurationMS: 1000, Size: 32 << 20}, wantErr: "size"},
		{in: Test{Backend: "perftest", Kind: "bw", DurationMS: 1000}, wantErr: "needs perftest settings"},
	}
	for _, tt := range tests {
		got := tt.in.WithDefaults()
		err := got.Validate(0)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%+v: err %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tt.in, err)
		}
		a, _ := json.Marshal(tt.want)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Errorf("defaults: got %s, want %s", b, a)
		}
	}
	if err := (Test{Backend: "tcp", Kind: "bw", DurationMS: 2000, Size: 1, Streams: 1}).Validate(time.Second); err == nil {
		t.Error("agent's MaxDuration not applied")
	}
	for _, ms := range []int64{18446744074710, math.MaxInt64} {
		if d := (Test{DurationMS: ms}).Duration(); d < time.Hour {
			t.Errorf("Duration() of %d ms = %v: overflowed", ms, d)
		}
	}
}

// safeArg is what any argv element built from an accepted request may
// look like: no shell metacharacters, spaces or quotes.
var safeArg = regexp.MustCompile(`^[A-Za-z0-9_.:/-]+$`)

// FuzzTestRequest decodes arbitrary request bodies as the agent does; an
// accepted perftest request must yield an argv of plain words whose
// options all come from the builder.
func FuzzTestRequest(f *testing.F) {
	f.Add(`{"test":{"backend":"perftest","kind":"bw","duration_ms":1000,"perftest":{"device":"mlx5_0","gid_index":3}},"peer":"10.0.0.2","port":18515}`)
	f.Add(`{"test":{"backend":"perftest","kind":"lat","duration_ms":1000,"iterations":5000,"perftest":{"device":"rocep1s0f1","ib_port":2}},"peer":"gpu002","port":20000}`)
	f.Add(`{"test":{"backend":"tcp","kind":"bw","duration_ms":100,"streams":4},"peer":"127.0.0.1","port":9,"key":"00112233445566778899aabbccddeeff"}`)
	f.Fuzz(func(t *testing.T, body string) {
		var req ClientRequest
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		if dec.Decode(&req) != nil {
			return
		}
		s := &server{opts: ServerOptions{Backends: []string{BackendTCP, BackendPerftest}, MaxDuration: time.Minute}}
		tst, err := s.checkTest(req.Test)
		if err != nil || checkPeer(req, tst) != nil || tst.Backend != BackendPerftest {
			return
		}
		argv, err := perftestArgs(tst, req.Port, req.Peer)
		if err != nil {
			return
		}
		if argv[0] != "ib_write_bw" && argv[0] != "ib_write_lat" {
			t.Fatalf("program %q", argv[0])
		}
		for i, a := range argv {
			if !safeArg.MatchString(a) {
				t.Fatalf("argv[%d] = %q is not a plain word", i, a)
			}
			// Values never look like options: the last element is the peer.
			if i == len(argv)-1 && strings.HasPrefix(a, "-") && a != "-F" && a != "--report_gbits" {
				t.Fatalf("peer %q looks like an option", a)
			}
		}
	})
}
