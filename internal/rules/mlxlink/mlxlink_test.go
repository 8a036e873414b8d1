package mlxlink

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/mlxlink"
)

// page lays out "Key : value" lines as mlxlink does (keys padded to 32).
func page(title string, kv ...string) string {
	var b strings.Builder
	b.WriteString("\n" + title + "\n" + strings.Repeat("-", len(title)) + "\n")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(kv[i] + strings.Repeat(" ", max(1, 32-len(kv[i]))) + ": " + kv[i+1] + "\n")
	}
	return b.String()
}

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+"/"+string(f.Severity))
	}
	return out
}

func TestCheck(t *testing.T) {
	op := func(state, phys, speed, width string) string {
		return page("Operational Info", "State", state, "Physical state", phys, "Speed", speed, "Width", width, "FEC", "Standard_RS-FEC - (544,514)", "Loopback Mode", "No Loopback", "Auto Negotiation", "ON")
	}
	hdrSup := page("Supported Info", "Enabled Link Speed", "0x00000075 (HDR,EDR,FDR,QDR,SDR)", "Supported Cable Speed", "0x0000007f (HDR,EDR,FDR,FDR10,QDR,DDR,SDR)")
	ok := page("Troubleshooting Info", "Status Opcode", "0", "Group Opcode", "N/A", "Recommendation", "No issue was observed")
	ber := func(eff, raw, down, rec string) string {
		return page("Physical Counters and BER Info", "Time Since Last Clear [Min]", "120.5", "Effective Physical Errors", "0", "Effective Physical BER", eff,
			"Raw Physical Errors Per Lane", "10,20,30,40", "Link Down Counter", down, "Link Error Recovery Counter", rec, "Raw Physical BER", raw)
	}
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"healthy HDR", op("Active", "LinkUp", "IB-HDR", "4x") + hdrSup + ok + ber("15E-255", "1E-8", "0", "0"), nil},
		{"polling with the firmware's reason", op("Polling", "N/A", "N/A", "N/A") + page("Troubleshooting Info", "Status Opcode", "1024", "Group Opcode", "N/A", "Recommendation", "Cable is unplugged"), []string{"port.polling/critical"}},
		{"disabled", op("Disable", "N/A", "N/A", "N/A"), []string{"port.disabled/critical"}},
		{"training is not up", op("Training", "N/A", "N/A", "N/A"), []string{"port.down/critical"}},
		{"EDR on an HDR port and cable", op("Active", "LinkUp", "IB-EDR", "4x") + hdrSup + ok, []string{"port.speed_degraded/critical"}},
		{"Ethernet 100G on a 200G port and cable", op("Active", "LinkUp", "100G", "4x") +
			page("Supported Info", "Enabled Link Speed (Ext.)", "0x000017f2 (200G,100G_2X,100G_4X,50G_1X,50G_2X,40G,25G,10G,1G)", "Supported Cable Speed (Ext.)", "0x000017d0 (200G,100G_2X,100G_4X,50G_1X,50G_2X,25G,10G)") + ok,
			[]string{"port.speed_degraded/critical"}},
		{"cable caps the speed: not degraded", op("Active", "LinkUp", "IB-EDR", "4x") +
			page("Supported Info", "Enabled Link Speed", "0x00000075 (HDR,EDR,FDR,QDR,SDR)", "Supported Cable Speed", "0x0000003f (EDR,FDR,FDR10,QDR,DDR,SDR)") + ok, nil},
		{"post-FEC errors", op("Active", "LinkUp", "IB-HDR", "4x") + ber("3E-11", "1E-8", "0", "0"), []string{"port.symbol_errors/warning"}},
		{"effective BER at the line is fine", op("Active", "LinkUp", "IB-HDR", "4x") + ber("1E-12", "1E-8", "0", "0"), nil},
		{"raw BER high", op("Active", "LinkUp", "IB-HDR", "4x") + ber("15E-255", "2E-5", "0", "0"), []string{"port.raw_ber_high/warning"}},
		{"link downs and recoveries", op("Active", "LinkUp", "IB-HDR", "4x") + ber("15E-255", "1E-8", "5", "2"), []string{"port.link_flapping/critical", "port.link_recovery/warning"}},
		{"one link down is a warning", op("Active", "LinkUp", "IB-HDR", "4x") + ber("15E-255", "1E-8", "1", "0"), []string{"port.link_flapping/warning"}},
		{"troubleshooting names a problem on an up link", op("Active", "LinkUp", "IB-HDR", "4x") +
			page("Troubleshooting Info", "Status Opcode", "49", "Group Opcode", "N/A", "Recommendation", "Negotiation failure"), []string{"port.link_troubleshooting/warning"}},
		{"module too hot, one lane dark", op("Active", "LinkUp", "IB-HDR", "4x") +
			page("Module Info", "Temperature [C]", "81 [-5..75]", "Voltage [mV]", "3280.0 [3135..3465]", "Rx Power Current [dBm]", "-1.2,-1.0,-25.3,-1.1 [-10..4]", "Tx Power Current [dBm]", "N/A"),
			[]string{"port.module_alarm/warning", "port.module_alarm/warning"}},
		{"--json, EDR on an HDR port and cable", `{
   "result" : {
      "output" : {
         "Operational Info" : {
            "Physical state" : "LinkUp",
            "Speed" : "IB-EDR",
            "State" : "Active",
            "Width" : "4x"
         },
         "Supported Info" : {
            "Enabled Link Speed" : {
               "mask" : "0x00000075",
               "values" : [ "HDR", "EDR",
                            "FDR", "QDR", "SDR" ]
            },
            "Supported Cable Speed" : {
               "mask" : "0x0000007f",
               "values" : [ "HDR", "EDR", "FDR", "FDR10", "QDR", "DDR", "SDR" ]
            }
         },
         "Physical Counters and BER Info" : {
            "Link Down Counter" : "2",
            "Raw Physical BER" : "1E-9"
         }
      }
   }
}
`, []string{"port.speed_degraded/critical", "port.link_flapping/warning"}},
		{"grep of the counters alone", "Effective Physical Errors       : 12\nEffective Physical BER          : 5E-10\n", []string{"port.symbol_errors/warning"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := mlxlink.Parse(strings.NewReader(tc.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			got := ids(Check(res, "p.txt").Findings)
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCheckRealSamples runs the rules on the real pastes of the parser's
// testdata.
func TestCheckRealSamples(t *testing.T) {
	for _, tc := range []struct {
		file   string
		want   []string
		active int
	}{
		{"bf3-100g-dac-healthy.txt", nil, 2},
		// HDR at 2x (HDR100) with FEC: raw BER 4E-9..1E-7, nothing after FEC.
		{"cx6-hdr-2x-ber-loop.txt", nil, 16},
		// 200G Ethernet with 200G enabled and on the cable.
		{"cx6-200g-eth-web-article-partial.txt", nil, 1},
	} {
		b, err := os.ReadFile(filepath.Join("..", "..", "parse", "mlxlink", "testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := mlxlink.Parse(strings.NewReader(string(b)), tc.file)
		if err != nil {
			t.Fatal(err)
		}
		r := Check(res, tc.file)
		if got := ids(r.Findings); !slices.Equal(got, tc.want) || r.Active != tc.active {
			t.Errorf("%s: findings %v (active %d), want %v (active %d)", tc.file, got, r.Active, tc.want, tc.active)
		}
	}
}

func TestEvidenceLine(t *testing.T) {
	in := op1 + "Link Down Counter               : 4\n"
	res, err := mlxlink.Parse(strings.NewReader(in), "p.txt")
	if err != nil {
		t.Fatal(err)
	}
	fs := Check(res, "p.txt").Findings
	if len(fs) != 1 || fs[0].Evidence[0].Source != "p.txt:4" || fs[0].Evidence[0].Value != "Link Down Counter : 4" || fs[0].Subject.Device != "mlx5_2" {
		t.Errorf("%+v", fs)
	}
}

const op1 = "$ mlxlink -d mlx5_2 -c\nOperational Info\n----------------\n"

func TestParseBERAndReading(t *testing.T) {
	for in, want := range map[string]float64{"15E-255": 0, "1E-8": 1e-8, "3E-11": 3e-11} {
		if v, ok := ParseBER(in); !ok || v != want {
			t.Errorf("ParseBER(%q) = %g %v", in, v, ok)
		}
	}
	if _, ok := ParseBER("N/A"); ok {
		t.Error("N/A read as a BER")
	}
	if v, lo, hi, ok := Reading("-1.2,-0.8 [-10..4]"); !ok || len(v) != 2 || lo != -10 || hi != 4 {
		t.Errorf("Reading: %v %g %g %v", v, lo, hi, ok)
	}
	if _, _, _, ok := Reading("N/A"); ok {
		t.Error("N/A read as a reading")
	}
}
