package pcie

import (
	"encoding/json"
	"testing"
)

func TestLevel(t *testing.T) {
	tests := []struct {
		cell string
		want Level
		name string // String(), "" when the cell is refused
	}{
		{"PIX", PIX, "PIX"},
		{"PXB", PXB, "PXB"},
		{"PHB", PHB, "PHB"},
		{"NODE", NODE, "NODE"},
		{"SYS", SYS, "SYS"},
		{"SOC", SYS, "SYS"}, // old drivers' name for SYS
		{"NV18", LevelUnknown, ""},
		{"pix", LevelUnknown, ""},
	}
	for _, tt := range tests {
		got, err := ParseLevel(tt.cell)
		if (err != nil) != (tt.name == "") || got != tt.want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", tt.cell, got, err, tt.want)
		}
		if tt.name != "" && got.String() != tt.name {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.name)
		}
	}
	// JSON reports carry levels by name and read back; "?" is unknown.
	in := []Level{LevelUnknown, PIX, SYS}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `["?","PIX","SYS"]` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var back []Level
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 3 || back[0] != LevelUnknown || back[1] != PIX || back[2] != SYS {
		t.Errorf("Unmarshal = %v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`["FOO"]`), &back); err == nil {
		t.Error("Unmarshal of an unknown level succeeded")
	}
}
