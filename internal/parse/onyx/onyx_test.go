package onyx

import (
	"errors"
	"strings"
	"testing"
)

// The show roce example of the NVIDIA Onyx User Manual 3.10 (RoCE
// Commands).
const manual = "switch (config) # show roce\n\n" +
	"RoCE mode : lossless\nLLDP : disabled\nPort trust mode: L3\n\n" +
	"Application TLV:\nSelector: udp\nProtocol: 4791\nPriority: 3\n\n" +
	"Port congestion-control:\nMode: ecn, absolute\nMin : 150\nMax : 1500\n\n" +
	"PFC : enabled\nswitch-priority 3: enabled\n\n" +
	"RoCE used TCs:\n----------------------------------------------\nSwitch-Priority TC Application ETS\n" +
	"----------------------------------------------\n3 3 RoCE WRR 50%\n6 6 CNP Strict\n"

func TestParseRoCE(t *testing.T) {
	o, err := ParseRoCE(strings.NewReader(manual), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if o.Mode != "lossless" || o.ModeLine != 3 || o.Trust != "L3" || o.AppPriority != 3 || o.AppLine != 10 ||
		o.CC != "ecn, absolute" || o.CCLine != 13 || o.PFC != "enabled" || o.PFCLine != 17 || !o.PFCPrio[3] || o.PrioLine[3] != 18 || len(o.PFCPrio) != 1 {
		t.Fatalf("%+v", o)
	}
	o, err = ParseRoCE(strings.NewReader("RoCE mode: N/A\n"), "p.txt")
	if err != nil || o.Mode != "N/A" || o.AppPriority != -1 {
		t.Errorf("%+v %v", o, err)
	}
	if !ModeLine("RoCE mode      : lossless") || ModeLine("RoCE mode: fast") {
		t.Error("ModeLine")
	}
	if _, err := ParseRoCE(strings.NewReader("PFC : enabled\n"), "p.txt"); !errors.Is(err, ErrNoMode) || !strings.Contains(err.Error(), "p.txt") {
		t.Errorf("err %v", err)
	}
}

func FuzzParseRoCE(f *testing.F) {
	f.Add(manual)
	f.Add("RoCE mode : lossy\nPFC : disabled\nswitch-priority 9: enabled\nswitch-priority x:\nApplication TLV:\nPriority: -1\n")
	f.Fuzz(func(t *testing.T, in string) {
		o, err := ParseRoCE(strings.NewReader(in), "fuzz")
		if err != nil && !strings.Contains(err.Error(), "fuzz") {
			t.Fatalf("error without its source: %v", err)
		}
		if err == nil && (o.ModeLine == 0 || o.AppPriority > 7) {
			t.Fatalf("%+v", o)
		}
	})
}
