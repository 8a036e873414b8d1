package ib

import "testing"

func TestParsePortState(t *testing.T) {
	tests := []struct {
		in      string
		want    PortState
		wantErr bool
	}{
		{"0: NOP\n", StateNOP, false},
		{"1: DOWN\n", StateDown, false},
		{"2: INIT\n", StateInit, false},
		{"3: ARMED\n", StateArmed, false},
		{"4: ACTIVE\n", StateActive, false},
		{"5: ACTIVE_DEFER\n", StateActiveDefer, false},
		{"4: UNKNOWN\n", StateActive, false}, // keyed on the number, not the name
		{"6: UNKNOWN", 0, true},
		{"ACTIVE", 0, true},
		{"4:", 0, true},
		{": ACTIVE", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got, err := ParsePortState(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParsePortState(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParsePhysState(t *testing.T) {
	tests := []struct {
		in      string
		want    PhysState
		name    string
		wantErr bool
	}{
		{"1: Sleep\n", PhysSleep, "Sleep", false},
		{"2: Polling\n", PhysPolling, "Polling", false},
		{"3: Disabled\n", PhysDisabled, "Disabled", false},
		{"4: PortConfigurationTraining\n", PhysTraining, "PortConfigurationTraining", false},
		{"5: LinkUp\n", PhysLinkUp, "LinkUp", false},
		{"6: LinkErrorRecovery\n", PhysLinkErrorRecovery, "LinkErrorRecovery", false},
		{"7: Phy Test\n", PhysPhyTest, "Phy Test", false},
		{"9: <unknown>\n", 9, "<unknown>(9)", false},
		{"LinkUp", 0, "", true},
		{"300: x", 0, "", true},
	}
	for _, tt := range tests {
		got, err := ParsePhysState(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParsePhysState(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		if err == nil && got.String() != tt.name {
			t.Errorf("String() = %q, want %q", got.String(), tt.name)
		}
	}
}

func TestStateNames(t *testing.T) {
	for _, in := range []string{"ACTIVE", "active", "4", "4: ACTIVE"} {
		if s, err := ParsePortStateName(in); err != nil || s != StateActive {
			t.Errorf("ParsePortStateName(%q) = %v, %v", in, s, err)
		}
	}
	for _, in := range []string{"LinkUp", "linkup", "5", "5: LinkUp"} {
		if s, err := ParsePhysStateName(in); err != nil || s != PhysLinkUp {
			t.Errorf("ParsePhysStateName(%q) = %v, %v", in, s, err)
		}
	}
	if _, err := ParsePortStateName("UP"); err == nil {
		t.Error("UP is not a port state")
	}
}

func TestParseLinkLayer(t *testing.T) {
	for in, want := range map[string]LinkLayer{"InfiniBand\n": LinkLayerInfiniBand, "Ethernet\n": LinkLayerEthernet, "Unknown": LinkLayerUnknown} {
		if got, err := ParseLinkLayer(in); err != nil || got != want {
			t.Errorf("ParseLinkLayer(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseLinkLayer("Token Ring"); err == nil {
		t.Error("want error")
	}
}

func FuzzParseState(f *testing.F) {
	for _, s := range []string{"4: ACTIVE\n", "5: LinkUp\n", "7: Phy Test", "1: DOWN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if st, err := ParsePortState(s); err == nil && st > StateActiveDefer {
			t.Fatalf("accepted out-of-range state %d from %q", st, s)
		}
		if ps, err := ParsePhysState(s); err == nil && ps == 0 && s != "" {
			// phys_state 0 is not defined, but the kernel may print it; it
			// must at least render.
			_ = ps.String()
		}
	})
}
