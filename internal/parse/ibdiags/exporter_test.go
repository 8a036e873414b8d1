package ibdiags

import (
	"errors"
	"strings"
	"testing"
)

// The lines of infiniband-exporter's log (guilbaults/infiniband-exporter
// pull request: a diff of its log, '< ' marking removed lines).
func TestParseSaturated(t *testing.T) {
	const log = "< 2021-11-10 18:30:43,489 - ERROR - Missing description for counter metric: PortSwHOQLifetimeLimitDiscards\n" +
		"2021-11-10 18:30:43,512 - WARNING - Counters on 0xc42a10300dd0c0e port 1 is maxed out on PortRcvErrors\n" +
		"< 2021-11-10 18:30:43,559 - WARNING - Counters on 0x506b4b03007d8621 port 1 is maxed out on PortXmitDiscards\n" +
		"Counters on 0x506b4b03007d8621 port x is maxed out on PortXmitDiscards\n" +
		"Counters on 0x506b4b03007d8621 port 1 is maxed\n"
	ss, err := ParseSaturated(strings.NewReader(log), "p.txt", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 || ss[0] != (Saturated{GUID: "0xc42a10300dd0c0e", Port: 1, Counter: "PortRcvErrors", Line: 2, Text: ss[0].Text}) ||
		ss[1].GUID != "0x506b4b03007d8621" || ss[1].Counter != "PortXmitDiscards" || ss[1].Line != 3 {
		t.Errorf("%+v", ss)
	}
	if _, err := ParseSaturated(strings.NewReader("nothing\n"), "p.txt", 1); !errors.Is(err, ErrNoData) {
		t.Errorf("err %v", err)
	}
}

func FuzzParseSaturated(f *testing.F) {
	f.Add("2021-11-10 18:30:43,512 - WARNING - Counters on 0xc42a10300dd0c0e port 1 is maxed out on PortRcvErrors\n")
	f.Add("Counters on 0x port 999 is maxed out on \nCounters on ")
	f.Fuzz(func(t *testing.T, in string) {
		ss, err := ParseSaturated(strings.NewReader(in), "fuzz", 1)
		if err != nil && !strings.Contains(err.Error(), "fuzz") {
			t.Fatalf("error without its source: %v", err)
		}
		for _, s := range ss {
			if s.Port < 0 || s.Port > 255 || s.Counter == "" {
				t.Fatalf("%+v", s)
			}
		}
	})
}
