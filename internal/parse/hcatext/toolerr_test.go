package hcatext

import (
	"strings"
	"testing"
)

func TestToolErrorLine(t *testing.T) {
	tests := []struct {
		name, line string
		want       ToolErr
		ok         bool
	}{
		// WukLab/LITE issue 5: ibv_devinfo where ib_uverbs is absent.
		{"nhc port not active", "ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port hfi1_0:1 is ACTIVE (LinkUp 100 Gb/sec).", ToolErr{Kind: ToolErrNHCPortNotActive, Device: "hfi1_0", Port: 1, Errno: "LinkUp 100 Gb/sec"}, true},
		{"nhc no port active", "ERROR:  nhc:  Health check failed:  check_hw_ib:  No IB port is ACTIVE (LinkUp).", ToolErr{Kind: ToolErrNHCPortNotActive, Errno: "LinkUp"}, true},
		{"nhc no device", "ERROR:  nhc:  Health check failed:  check_hw_ib:  No Infiniband device was found.", ToolErr{Kind: ToolErrNoVerbsDevice}, true},
		{"nhc umad abi not read", "ERROR:  nhc:  Health check failed:  check_hw_ib:  Version mismatch between kernel OFED drivers and userspace OFED libraries.", ToolErr{}, false},
		{"nhc quoted in prose", "we saw nhc:  Health check failed:  check_hw_ib:  No IB port is ACTIVE (LinkUp).", ToolErr{}, false},
		{"devinfo ENOSYS", "Failed to get IB devices list: Function not implemented", ToolErr{Kind: ToolErrVerbsList, Errno: "Function not implemented"}, true},
		// The same perror, pasted with its space lost.
		{"devinfo no space", "Failed to get IB devices list:Function not implemented", ToolErr{Kind: ToolErrVerbsList, Errno: "Function not implemented"}, true},
		// perftest src/dm_memory.c prints it without perror.
		{"perftest bare", "Failed to get IB devices list", ToolErr{Kind: ToolErrVerbsList}, true},
		{"prose", "I keep seeing Failed to get IB devices list: Function not implemented", ToolErr{}, false},
		{"not an errno", "Failed to get IB devices list: see 'dmesg': it says mlx5", ToolErr{}, false},
		// Azure/azhpc-images issue 213.
		{"ibstat stat", "ibpanic: [769778] main: stat of IB device 'mlx5_an0' failed: No such file or directory", ToolErr{Kind: ToolErrCAStat, Device: "mlx5_an0", Errno: "No such file or directory"}, true},
		// linux-rdma/rdma-core pull 239.
		{"ibstat stat EINVAL", "ibpanic: [7851] main: stat of IB device 'mlx5_1' failed: Invalid argument", ToolErr{Kind: ToolErrCAStat, Device: "mlx5_1", Errno: "Invalid argument"}, true},
		// rdma-core pull 1501: a warning, no errno.
		{"ibstat stat warn", "ibwarn: [4242] main: stat of IB device 'mlx5_8' failed", ToolErr{Kind: ToolErrCAStat, Device: "mlx5_8"}, true},
		// infiniband-diags/ibstat.c main with a device argument.
		{"ibstat not found", "ibpanic: [99] main: 'mlx5_9' IB device can't be found: No such file or directory", ToolErr{Kind: ToolErrCANotFound, Device: "mlx5_9", Errno: "No such file or directory"}, true},
		// siderolabs/docs pull 581: a tagged libibumad line.
		{"umad abi tagged", "10.0.0.101: nvlsm: ibwarn: [15] umad_init: can't read ABI version from /sys/class/infiniband_mad/abi_version (No such file or directory): is ib_umad module loaded?", ToolErr{Kind: ToolErrUmad, Errno: "No such file or directory"}, true},
		{"umad abi", "ibwarn: [3219] get_abi_version: can't read ABI version from /sys/class/infiniband_mad/abi_version (No such file or directory): is ib_umad module loaded?", ToolErr{Kind: ToolErrUmad, Errno: "No such file or directory"}, true},
		{"umad init", "ibpanic: [3219] main: can't init UMAD library: No such file or directory", ToolErr{Kind: ToolErrUmad, Errno: "No such file or directory"}, true},
		// libibmad/rpc.c mad_rpc_open_port.
		{"umad port", "ibwarn: [3219] mad_rpc_open_port: can't open UMAD port (mlx5_0:1)", ToolErr{Kind: ToolErrUmad, Device: "mlx5_0", Port: 1}, true},
		{"umad port null", "ibwarn: [3219] mad_rpc_open_port: can't open UMAD port ((null):0)", ToolErr{Kind: ToolErrUmad}, true},
		// infiniband-diags ibdiag_common.c ibexit.
		{"iberror null", "ibnetdiscover: iberror: failed: Failed to open '(null)' port '0'", ToolErr{Kind: ToolErrUmad}, true},
		{"iberror debug", "perfquery: iberror: [pid 77] main: failed: Failed to open 'mlx5_2' port '1'", ToolErr{Kind: ToolErrUmad, Device: "mlx5_2", Port: 1}, true},
		{"iberror other", "ibnetdiscover: iberror: failed: discover failed", ToolErr{}, false},
		{"sentence before ibwarn", "then it said ibwarn: [15] umad_init: can't read ABI version from /x (No such file or directory): is ib_umad module loaded?", ToolErr{}, false},
		{"mad error is not ours", "ibwarn: [1685604] sa_get_handle: No SM/SA found on port :1", ToolErr{}, false},
		// perftest src/perftest_resources.c ctx_find_dev, trimmed.
		{"perftest no device", "Did not detect devices", ToolErr{Kind: ToolErrNoVerbsDevice}, true},
		{"perftest no device in prose", "Did not detect devices on node 3 either", ToolErr{}, false},
		// OSLL/ntb-cxl issue 90, under "# ibv_devinfo".
		{"devinfo open", "Failed to open device", ToolErr{Kind: ToolErrOpenDevice}, true},
		{"empty", "", ToolErr{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ToolErrorLine(tt.line)
			if ok != tt.ok || got != tt.want {
				t.Errorf("ToolErrorLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseToolErrors(t *testing.T) {
	in := "$ ibstat\nibpanic: [1] main: stat of IB device 'mlx5_0' failed: No such file or directory\n"
	es, err := ParseToolErrors(strings.NewReader(in), "p.txt", 10)
	if err != nil || len(es) != 1 || es[0].Line != 11 || es[0].Device != "mlx5_0" || !strings.HasPrefix(es[0].Text, "ibpanic:") {
		t.Fatalf("got %+v, %v", es, err)
	}
	if _, err := ParseToolErrors(strings.NewReader("$ ibstat\nnothing\n"), "p.txt", 1); err == nil || !strings.Contains(err.Error(), "p.txt") {
		t.Errorf("no error line: err %v, want ErrNoData naming the file", err)
	}
}

func FuzzToolErrorLine(f *testing.F) {
	for _, s := range []string{"Failed to get IB devices list: Function not implemented", "ibpanic: [1] main: stat of IB device 'x' failed: y", "a: ibwarn: [1] f: can't open UMAD port (", "t: iberror: failed: Failed to open '"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if e, ok := ToolErrorLine(s); ok && e.Kind == "" {
			t.Errorf("%q read without a kind", s)
		}
	})
}

// TestDPDKNoVerbs: the DPDK mlx4/mlx5 PMD lines that say no Verbs device
// backs the NIC (DPDK drivers/common/mlx5/linux/mlx5_common_os.c,
// drivers/net/mlx4/mlx4.c; lines from analyze testdata/realworld-fresh77).
func TestDPDKNoVerbs(t *testing.T) {
	for _, tt := range []struct{ line, dev string }{
		{"mlx5_common: No Verbs device matches PCI device 0000:c3:00.2, are kernel drivers loaded?", "0000:c3:00.2"},
		{"net_mlx5: No Verbs device matches PCI device 0000:3b:00.0, are kernel drivers loaded?", "0000:3b:00.0"},
		{"net_mlx4: cannot list devices, is ib_uverbs loaded?", ""},
		{"PMD: net_mlx4: cannot access device, is mlx4_ib loaded?", ""},
	} {
		e, ok := ToolErrorLine(tt.line)
		if !ok || e.Kind != ToolErrDPDKNoVerbs || e.Device != tt.dev {
			t.Errorf("%q: %+v %v", tt.line, e, ok)
		}
	}
	for _, l := range []string{"mlx5_common: Failed to initialize device context.", "app: No Verbs device matches PCI device 0000:c3:00.2", "net_mlx5: probe of PCI device 0000:3b:00.0 aborted"} {
		if e, ok := ToolErrorLine(l); ok {
			t.Errorf("%q read as %+v", l, e)
		}
	}
}
