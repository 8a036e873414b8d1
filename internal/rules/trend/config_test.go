package trend

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	"github.com/ibdoctor/ibdoctor/internal/rules/limits"
)

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name, in string
		check    func(Thresholds) bool
		wantErr  string
	}{
		{"empty keeps defaults", "", func(th Thresholds) bool { return th == Defaults() }, ""},
		{"override two", "window: 2m\nsymbol_ber_max: 1e-10\n", func(th Thresholds) bool {
			return th.Window == Duration(2*time.Minute) && th.SymbolBERMax == 1e-10 && th.GrowthFactor == 10
		}, ""},
		{"unknown key names the line", "window: 2m\nsymbol_ber: 1e-10\n", nil, "agent.yaml: yaml: unmarshal errors:\n  line 2: field symbol_ber not found"},
		{"bad duration names the line", "flap_window: soon\n", nil, "agent.yaml: line 1: time: invalid duration"},
		{"negative duration", "window: -1m\n", nil, "line 1: duration \"-1m\" must be positive"},
		{"share above one", "congestion_fraction: 2\n", nil, "shares of one"},
		{"flap order", "flap_warning: 5\nflap_critical: 2\n", nil, "flap_warning <= flap_critical"},
		{"not a mapping", "- 1\n", nil, "agent.yaml: yaml: unmarshal errors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := LoadConfig("agent.yaml", strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(th) {
				t.Errorf("thresholds %+v", th)
			}
		})
	}
}

func TestDocsCoverEveryKey(t *testing.T) {
	keys := map[string]bool{}
	for _, d := range Docs() {
		keys[d.Key] = true
	}
	// Every yaml key of Thresholds has a row.
	for _, k := range []string{"window", "growth_factor", "growth_min_events", "symbol_ber_max", "symbol_errors_per_min", "link_recovery_per_min",
		"rcv_errors_per_min", "xmit_discards_per_min", "out_of_buffer_per_min", "retransmits_per_min", "cnp_ignored_per_min", "flap_window",
		"flap_warning", "flap_critical", "congestion_fraction", "xmit_wait_tick", "rate_shortfall", "pause_ratio", "pause_time_share", "pause_min_frames"} {
		if !keys[k] {
			t.Errorf("no doc row for %s", k)
		}
		delete(keys, k)
	}
	for k := range keys {
		t.Errorf("doc row %s is not a config key", k)
	}
	if err := Defaults().Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
}

func TestConfigFiles(t *testing.T) {
	for _, tt := range []struct {
		file    string
		check   func(Thresholds) bool
		wantErr string
	}{
		{"testdata/defaults.yaml", func(th Thresholds) bool { return th == Defaults() }, ""},
		{"../../../deploy/agent-config.example.yaml", func(th Thresholds) bool { return th == Defaults() }, ""},
		{"testdata/partial.yaml", func(th Thresholds) bool {
			return th.Window == Duration(2*time.Minute) && th.FlapCritical == 5 && th.FlapWarning == 1
		}, ""},
		{"testdata/unknown-key.yaml", nil, "testdata/unknown-key.yaml: yaml: unmarshal errors:\n  line 2: field windw not found"},
	} {
		f, err := os.Open(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		th, err := LoadConfig(tt.file, f)
		f.Close()
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want %q", tt.file, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !tt.check(th) {
			t.Errorf("%s: %+v, %v", tt.file, th, err)
		}
	}
}

func FuzzLoadConfig(f *testing.F) {
	for _, name := range []string{"testdata/defaults.yaml", "testdata/partial.yaml", "testdata/unknown-key.yaml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("window: 2m\nsymbol_ber_max: 1e-10\n")
	f.Add("flap_warning: 2\nflap_critical: 4\nxmit_wait_tick: 8ns\n")
	f.Add("- 1\n")
	f.Fuzz(func(t *testing.T, in string) {
		th, err := LoadConfig("fuzz.yaml", strings.NewReader(in))
		if err == nil {
			if verr := th.Validate(); verr != nil {
				t.Fatalf("accepted invalid thresholds: %v", verr)
			}
		}
	})
}

// isTotal says whether a threshold name is a counter total of the IBTA
// counter table ("symbol_error_total").
func isTotal(name string) bool {
	for _, c := range limits.Counters {
		if name == c.Sysfs+"_total" {
			return true
		}
	}
	return false
}

// TestCatalogThresholdsMatchDocs keeps `ibdoctor rules` (the catalogue's
// thresholds) and the config table in step for the rules over time.
func TestCatalogThresholdsMatchDocs(t *testing.T) {
	docs := map[string]Doc{}
	for _, d := range Docs() {
		docs[d.Key] = d
	}
	for _, id := range []string{"port.symbol_errors", "port.link_recovery", "port.link_flapping", "port.rcv_errors", "port.xmit_discards",
		"port.congestion", "rdma.out_of_buffer", "rdma.retransmits", "rdma.cnp_ignored"} {
		m, ok := catalog.Default.Lookup(id)
		if !ok {
			t.Fatalf("%s not catalogued", id)
		}
		if len(m.Thresholds) == 0 {
			t.Errorf("%s: no thresholds in the catalogue", id)
		}
		for _, th := range m.Thresholds {
			if isTotal(th.Name) {
				continue // the node rules' total, not an agent key (limits_test.go)
			}
			d, ok := docs[th.Name]
			if !ok {
				t.Errorf("%s: threshold %s is not a config key", id, th.Name)
				continue
			}
			if d.Default != th.Default {
				t.Errorf("%s: threshold %s defaults to %s in the catalogue but %s in the config", id, th.Name, th.Default, d.Default)
			}
		}
	}
}

// Every default the threshold table documents (and so `ibdoctor rules`,
// through TestCatalogThresholdsMatchDocs) is the value Defaults() puts in
// force: a config that sets each key to its documented default changes
// nothing.
func TestDocsDefaultsInForce(t *testing.T) {
	for _, d := range Docs() {
		th, err := LoadConfig("docs", strings.NewReader(d.Key+": "+d.Default+"\n"))
		if err != nil {
			t.Errorf("%s: documented default %q does not load: %v", d.Key, d.Default, err)
			continue
		}
		if th != Defaults() {
			t.Errorf("%s: documented default %q is not the value in force", d.Key, d.Default)
		}
	}
}
