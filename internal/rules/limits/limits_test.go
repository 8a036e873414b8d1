package limits

import (
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Pct(0.9), "90%"}, {Pct(0.1), "10%"}, {Pct(0.25), "25%"}, {Pct(0.01), "1%"}, {Pct(0.2), "20%"}, {Pct(0.125), "12.5%"},
		{Float(0.2), "0.2"}, {Share(0.1), "0.10"}, {Share(0.01), "0.01"}, {Float(10), "10"}, {Float(1.5), "1.5"}, {Uint(10000), "10000"}, {MiB(64 << 20), "64 MiB"},
		{Dur(5 * time.Minute), "5m"}, {Dur(time.Hour), "1h"}, {Dur(90 * time.Second), "1m30s"}, {Dur(4 * time.Nanosecond), "4ns"}, {Dur(time.Hour + time.Minute), "1h1m"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
