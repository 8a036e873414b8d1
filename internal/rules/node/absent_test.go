package node

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestCheckAbsent: a pasted tool's own word that no RDMA device exists
// (clustervision/trinity#219's ibstatus) is port.missing, critical, with
// the tool's line as evidence; a named device is the subject.
func TestCheckAbsent(t *testing.T) {
	tests := []struct {
		name   string
		absent Absent
		dev    string
		says   string
	}{
		{"none at all", Absent{Line: 3, Text: "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)"}, "", "no RDMA device at all"},
		{"none through verbs", Absent{Line: 3, Text: "No IB devices found", Verbs: true}, "", "verbs provider"},
		{"named", Absent{Device: "mlx5_4", Line: 6, Text: "Fatal error:  device 'mlx5_4': sys files not found (/sys/class/infiniband/mlx5_4/ports)"}, "mlx5_4", "no RDMA device mlx5_4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckAbsent("p.txt", []Absent{tt.absent})
			if len(fs) != 1 {
				t.Fatalf("findings %+v", fs)
			}
			f := fs[0]
			if f.ID != "port.missing" || f.Severity != finding.Critical || f.Subject.Device != tt.dev || !strings.Contains(f.Summary, tt.says) {
				t.Errorf("finding %+v", f)
			}
			if len(f.Evidence) != 1 || f.Evidence[0].Value != tt.absent.Text || f.Evidence[0].Source != fmt.Sprintf("p.txt:%d", tt.absent.Line) {
				t.Errorf("evidence %+v", f.Evidence)
			}
		})
	}
	if fs := CheckAbsent("p.txt", nil); len(fs) != 0 {
		t.Errorf("no absent device: %+v", fs)
	}
}

// TestCheckVerbsProviders: uverbs devices libibverbs has no provider for
// (NVIDIA/caffe#590, a container with five of them and "0 HCAs found:")
// are host.verbs_provider_missing: critical when no device is listed, a
// warning when others are; a provider that did not load is only evidence.
func TestCheckVerbsProviders(t *testing.T) {
	noProv := func(n int, dev string) VerbsWarn {
		return VerbsWarn{Kind: "no provider", Name: dev, Line: n, Text: "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/" + dev}
	}
	load := VerbsWarn{Kind: "load failed", Name: "libmlx5-rdmav2.so", Line: 1, Text: "libibverbs: Warning: couldn't load driver 'libmlx5-rdmav2.so': libmlx5-rdmav2.so: cannot open shared object file: No such file or directory"}
	abi := VerbsWarn{Kind: "abi mismatch", Name: "bnxt_re2", Line: 12, Text: "libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2"}
	tests := []struct {
		name   string
		ws     []VerbsWarn
		listed int
		want   []string
		says   string
	}{
		{"five devices, none listed", []VerbsWarn{noProv(7, "uverbs4"), noProv(8, "uverbs3"), noProv(9, "uverbs2"), noProv(10, "uverbs1"), noProv(11, "uverbs0")}, 0,
			[]string{"host.verbs_provider_missing/critical"}, "uverbs0, uverbs1, uverbs2, uverbs3, uverbs4"},
		{"one device without, one listed", []VerbsWarn{noProv(1, "uverbs1")}, 1, []string{"host.verbs_provider_missing/warning"}, "1 other device(s) still listed"},
		{"a driver that did not load, with the device", []VerbsWarn{load, noProv(2, "uverbs0")}, 0, []string{"host.verbs_provider_missing/critical"}, "could not load"},
		{"a driver that did not load alone", []VerbsWarn{load}, 0, nil, ""},
		// k8snetworkplumbingwg/sriov-cni#348 (realworld-fresh16): in a pod,
		// the image's bnxt_re provider against the host driver's ABI 6, the
		// same line twice, then "No IB devices found".
		{"provider of another uverbs ABI, none listed", []VerbsWarn{abi, abi}, 0, []string{"host.verbs_provider_missing/critical"}, "rdma-core and provider (libbnxt_re"},
		{"provider of another uverbs ABI, one other listed", []VerbsWarn{abi}, 1, []string{"host.verbs_provider_missing/warning"}, "kernel driver's uverbs ABI for bnxt_re2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckVerbsProviders("p.txt", tt.ws, tt.listed)
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("findings %v, want %v", got, tt.want)
			}
			if len(fs) == 1 && len(fs[0].Evidence) != 1 && tt.ws[0].Kind == "abi mismatch" {
				t.Errorf("the same warning twice is one evidence: %+v", fs[0].Evidence)
			}
			if tt.says != "" && !strings.Contains(fs[0].Summary, tt.says) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.says)
			}
		})
	}
}

// CheckLogVerbsProviders on the lines of spdk/spdk#272 (realworld-fresh27,
// its README row): an SPDK nvmf_tgt log with libibverbs' "no userspace
// device-specific driver found" for uverbs1 and uverbs0, then
// "rdma_create_event_channel() failed, No such device": no device usable
// (critical); without such a line the log does not show whether another
// device served (a warning); a driver that did not load alone is nothing.
func TestCheckLogVerbsProviders(t *testing.T) {
	w := func(n int, dev string) VerbsWarn {
		return VerbsWarn{Kind: "no provider", Name: dev, Line: n, Text: "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/" + dev}
	}
	noDev := &VerbsWarn{Line: 9, Text: "rdma.c:1144:spdk_nvmf_rdma_create: *ERROR*: rdma_create_event_channel() failed, No such device"}
	load := VerbsWarn{Kind: "load failed", Name: "libmlx5-rdmav2.so", Line: 1, Text: "libibverbs: Warning: couldn't load driver 'libmlx5-rdmav2.so': libmlx5-rdmav2.so: cannot open shared object file: No such file or directory"}
	for _, tt := range []struct {
		name  string
		ws    []VerbsWarn
		noDev *VerbsWarn
		want  string
		says  string
		ev    int
	}{
		{"SPDK#272: no provider, then No such device", []VerbsWarn{w(7, "uverbs1"), w(8, "uverbs0")}, noDev,
			"host.verbs_provider_missing/critical", "for uverbs0, uverbs1: the kernel has these RDMA devices, but no process here can open them, and the program then found no RDMA device (line 9)", 3},
		{"no provider, nothing after", []VerbsWarn{w(7, "uverbs1")}, nil,
			"host.verbs_provider_missing/warning", "the log does not show whether the program found another device", 1},
		{"a driver that did not load alone", []VerbsWarn{load}, noDev, "", "", 0},
		{"no provider configuration directory (LUMI EAP note, realworld-fresh73)",
			[]VerbsWarn{{Kind: "no config dir", Name: "/etc/libibverbs.d", Line: 8, Text: "libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'."}}, nil,
			"host.verbs_provider_missing/warning", "could not open its provider configuration directory /etc/libibverbs.d", 1},
		{"no provider configuration directory, then no device",
			[]VerbsWarn{{Kind: "no config dir", Name: "/etc/libibverbs.d", Line: 8, Text: "libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'."}}, noDev,
			"host.verbs_provider_missing/critical", "the program then found no RDMA device (line 9)", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := CheckLogVerbsProviders("p.txt", tt.ws, tt.noDev)
			var got []string
			for _, f := range fs {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if strings.Join(got, ",") != tt.want {
				t.Fatalf("findings %v, want %v", got, tt.want)
			}
			if len(fs) == 0 {
				return
			}
			if !strings.Contains(fs[0].Summary, tt.says) {
				t.Errorf("summary %q lacks %q", fs[0].Summary, tt.says)
			}
			if len(fs[0].Evidence) != tt.ev {
				t.Errorf("%d evidence lines, want %d: %+v", len(fs[0].Evidence), tt.ev, fs[0].Evidence)
			}
		})
	}
}
