package analyze

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// parseTestdata reads a sample of a parser package's corpus of real
// outputs (internal/parse/PKG/testdata).
func parseTestdata(t *testing.T, pkg, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../parse/" + pkg + "/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// kindsAndIDs lists the kinds of a file's segments and the IDs of their
// findings, in order.
func kindsAndIDs(fr File) (kinds []Kind, ids []string) {
	for _, s := range fr.Segments {
		kinds = append(kinds, s.Kind)
		for _, f := range s.Findings {
			ids = append(ids, f.ID)
		}
	}
	return kinds, ids
}

func TestMlxlinkPastes(t *testing.T) {
	real := func(name string) string { return parseTestdata(t, "mlxlink", name) }
	polling := "root@gpu3:~# mlxlink -d mlx5_4 -p 1\n\nOperational Info\n----------------\n" +
		"State                           : Polling\nPhysical state                  : N/A\nSpeed                           : N/A\n" +
		"\nTroubleshooting Info\n--------------------\nStatus Opcode                   : 1024\nGroup Opcode                    : N/A\n" +
		"Recommendation                  : Cable is unplugged\n"
	ibstat := "CA 'mlx5_4'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Down\n\t\tPhysical state: Polling\n\t\tRate: 10\n\t\tLink layer: InfiniBand\n"
	for _, tc := range []struct {
		name   string
		text   string
		kinds  []Kind
		ids    []string
		device string
	}{
		{"BlueField-3 mst status and mlxlink -m -c", real("bf3-100g-dac-healthy.txt"), []Kind{KindMst, KindMlxlink}, nil, ""},
		{"loop over eight HDR100 ports", real("cx6-hdr-2x-ber-loop.txt"), []Kind{KindUnknown, KindMlxlink}, nil, ""},
		{"web article with headings and prose", real("cx6-200g-eth-web-article-partial.txt"), []Kind{KindUnknown, KindMlxlink}, nil, ""},
		{"polling, the device from the prompt", polling, []Kind{KindMlxlink}, []string{"port.polling"}, "mlx5_4"},
		{"ibstat then mlxlink of the same port", ibstat + "\n" + polling, []Kind{KindIBStat, KindMlxlink}, []string{"port.polling", "port.polling"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tc.text, Options{})
			var kinds []Kind
			var ids []string
			dev := ""
			for _, s := range fr.Segments {
				kinds = append(kinds, s.Kind)
				for _, f := range s.Findings {
					ids = append(ids, f.ID)
					if s.Kind == KindMlxlink {
						dev = f.Subject.Device
					}
				}
			}
			if !slices.Equal(kinds, tc.kinds) || !slices.Equal(ids, tc.ids) {
				t.Errorf("kinds %v findings %v, want %v %v", kinds, ids, tc.kinds, tc.ids)
			}
			if tc.device != "" && dev != tc.device {
				t.Errorf("device %q, want %q", dev, tc.device)
			}
		})
	}
	if k, ok := ParseKind("mlxlink"); !ok || k != KindMlxlink {
		t.Error("--kind mlxlink not accepted")
	}
	// Without its titles (a cut paste), the lines still resemble mlxlink.
	if g := Closest("Effective Physical Errors       : 0\nEffective Physical BER          : 15E-255\nRaw Physical BER                : 1E-8\nLink Down Counter               : 2\n"); g.Kind != KindMlxlink {
		t.Errorf("closest %+v", g)
	}
}

func TestPortInfoPastes(t *testing.T) {
	real := func(name string) string { return parseTestdata(t, "portinfo", name) }
	polling := "$ smpquery portinfo 12 1\n# Port info: Lid 12 port 1\nLinkState:.......................Down\nPhysLinkState:...................Polling\nLinkWidthActive:.................4X\n"
	perf := "# Port counters: Lid 1 port 1 (CapMask: 0x1400)\nPortSelect:......................1\nSymbolErrorCounter:..............0\n"
	for _, tc := range []struct {
		name  string
		text  string
		kinds []Kind
		ids   []string
	}{
		{"ibportstate query, FDR", real("ibportstate-fdr-query-heioy.txt"), []Kind{KindUnknown, KindPortInfo}, nil},
		{"ibportstate before and after, FDR10 on an EDR port", real("ibportstate-qdr-on-edr-port-width-heioy.txt"), []Kind{KindUnknown, KindPortInfo}, []string{"port.speed_degraded"}},
		{"smpquery portinfo polling", polling, []Kind{KindPortInfo}, []string{"port.polling"}},
		{"perfquery stays perfquery", perf + "\n" + polling, []Kind{KindPerfQuery, KindPortInfo}, []string{"port.polling"}},
		{"nodeinfo alone is read, not judged", "# Node info: Lid 3\nBaseVers:........................1\nNodeType:........................Channel Adapter\nNumPorts:........................1\n", []Kind{KindPortInfo}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tc.text, Options{})
			kinds, ids := kindsAndIDs(fr)
			if !slices.Equal(kinds, tc.kinds) || !slices.Equal(ids, tc.ids) {
				t.Errorf("kinds %v findings %v, want %v %v", kinds, ids, tc.kinds, tc.ids)
			}
			if strings.HasPrefix(tc.name, "nodeinfo") && fr.Segments[0].Empty == "" {
				t.Error("a NodeInfo dump alone was judged")
			}
		})
	}
	if g := Closest("SMLid:...........................1\nLinkWidthActive:.................4X\nLinkState:.......................Active\nPhysLinkState:...................LinkUp\n"); g.Kind != KindPortInfo {
		t.Errorf("closest %+v", g)
	}
}

func TestEthtoolLinkPastes(t *testing.T) {
	real := func(name string) string { return parseTestdata(t, "ethlink", name) }
	down := "$ ethtool ens1f0np0\nSettings for ens1f0np0:\n\tSupported link modes:   100000baseCR4/Full\n\tSpeed: Unknown!\n\tLink detected: no\n"
	for _, tc := range []struct {
		name  string
		text  string
		kinds []Kind
		ids   []string
	}{
		{"mail-quoted 100G up", real("hbl-100g-mail-quoted.txt"), []Kind{KindUnknown, KindEthtoolLink}, nil},
		{"10G fibre without link", real("em1-10g-fibre-no-link.txt"), []Kind{KindEthtoolLink}, []string{"port.down"}},
		{"100G down, then ethtool -S", down + "$ ethtool -S ens1f0np0\nNIC statistics:\n     rx_packets: 10\n", []Kind{KindEthtoolLink, KindEthtool}, []string{"port.down"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tc.text, Options{})
			kinds, ids := kindsAndIDs(fr)
			if !slices.Equal(kinds, tc.kinds) || !slices.Equal(ids, tc.ids) {
				t.Errorf("kinds %v findings %v, want %v %v", kinds, ids, tc.kinds, tc.ids)
			}
		})
	}
}

func TestMstPastes(t *testing.T) {
	real := func(name string) string { return parseTestdata(t, "mst", name) }
	for _, tc := range []struct {
		name, text string
		kinds      []Kind
		empty      bool
	}{
		{"one ConnectX-4", real("cx4-one-device-aorus.txt"), []Kind{KindMst}, false},
		{"pciconf and pci_cr", real("cx3pro-hp544-pciconf-and-cr.txt"), []Kind{KindMst}, false},
		{"-v table", real("bf3-status-v.txt"), []Kind{KindMst}, false},
		{"modules not loaded, no device", "# mst status\nMST modules:\n------------\n    MST PCI module is not loaded\n    MST PCI configuration module is not loaded\n", []Kind{KindMst}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tc.text, Options{})
			var kinds []Kind
			empty := false
			for _, s := range fr.Segments {
				kinds = append(kinds, s.Kind)
				empty = empty || s.Empty != ""
				if len(s.Findings) > 0 {
					t.Errorf("findings on mst status: %+v", s.Findings)
				}
			}
			if !slices.Equal(kinds, tc.kinds) || empty != tc.empty {
				t.Errorf("kinds %v empty %v, want %v %v", kinds, empty, tc.kinds, tc.empty)
			}
		})
	}
	r := Run([]Input{{Name: "a.txt", Text: "MST modules:\n------------\n    MST PCI module is not loaded\n    MST PCI configuration module is not loaded\n"}}, Options{})
	if r.ExitCode != 3 {
		t.Errorf("mst status without devices: exit %d, want 3 (not judged)", r.ExitCode)
	}
}

func TestPingpongPastes(t *testing.T) {
	real := func(name string) string { return parseTestdata(t, "pingpong", name) }
	perftest := "---------------------------------------------------------------------------------------\n                    RDMA_Write BW Test\n" +
		" local address: LID 0x0b QPN 0x0d0e PSN 0x4a4e0e RKey 0x1fcfcd VAddr 0x007f5e5e010000\n"
	for _, tc := range []struct {
		name, text string
		kinds      []Kind
		ids        []string
		summary    string
	}{
		{"three failed RoCE runs", real("rc-roce-gid-retry-exceeded.txt"), []Kind{KindPingpong}, []string{"verbs.completion_error", "perf.test_invalid", "perf.test_invalid"}, "./rc_pingpong 10.22.116.221 -d rocep61s0f1 -g 0 -p 7777 failed on a work completion with status 12"},
		{"a run that completes", real("rc-roce-gid3-ok.txt"), []Kind{KindPingpong}, nil, ""},
		{"perftest's local address is perftest's", perftest, []Kind{KindPerftest}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tc.text, Options{})
			var kinds []Kind
			var ids []string
			sums := ""
			for _, s := range fr.Segments {
				kinds = append(kinds, s.Kind)
				for _, f := range s.Findings {
					ids = append(ids, f.ID)
					sums += f.Summary + "\n"
				}
			}
			if !slices.Equal(kinds, tc.kinds) || !slices.Equal(ids, tc.ids) || !strings.Contains(sums, tc.summary) {
				t.Errorf("kinds %v findings %v (%s), want %v %v", kinds, ids, sums, tc.kinds, tc.ids)
			}
		})
	}
}

func TestShowGIDsPastes(t *testing.T) {
	b, err := os.ReadFile("testdata/realworld/show_gids-spectrumscale4-cx6-roce.txt")
	if err != nil {
		t.Fatal(err)
	}
	v1only := "$ show_gids mlx5_1\nDEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n---     ----    -----   ---                                     ------------    ---     ---\n" +
		"mlx5_1  1       0       fe80:0000:0000:0000:0e42:a1ff:fe5d:4db9                 v1      ens1f1\nn_gids_found=1\n"
	for _, tc := range []struct {
		name, text string
		kinds      []Kind
		ids        []string
	}{
		{"v1 and v2 GIDs", string(b), []Kind{KindShowGIDs}, nil},
		{"v1 only", v1only, []Kind{KindShowGIDs}, []string{"roce.gid_missing_v2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := AnalyzeText("p.txt", tc.text, Options{})
			kinds, ids := kindsAndIDs(fr)
			if !slices.Equal(kinds, tc.kinds) || !slices.Equal(ids, tc.ids) {
				t.Errorf("kinds %v findings %v, want %v %v", kinds, ids, tc.kinds, tc.ids)
			}
		})
	}
}
