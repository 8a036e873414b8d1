package nccllog

import (
	"strings"
	"testing"
)

// TestUnableToOpenDevice: ncclIbInit (src/transport/net_ib.cc) warns
// "NET/IB : Unable to open device D" after wrap_ibv_open_device failed
// (misc/ibvwrap.cc "Call to ibv_open_device failed"). Lines from
// zai-org/ImageReward#65 (realworld-fresh27) and NVIDIA/nccl#451.
func TestUnableToOpenDevice(t *testing.T) {
	tests := []struct {
		line, call, hca string
		kind            EventKind
	}{
		{"65826-86bd789679-2dxbs:80746:80746 [3] transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_59", "ibv_open_device", "mlx5_59", EventResource},
		{"transport/net_ib.cc:148 NCCL WARN NET/IB : Unable to open device mlx5_bond_0", "ibv_open_device", "mlx5_bond_0", EventResource},
		{"65826-86bd789679-2dxbs:80744:80744 [1] misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed", "ibv_open_device", "", EventResource},
		// Not one device name: an ordinary warning.
		{"h:1:1 [0] NCCL WARN NET/IB : Unable to open device mlx5_0 because of reasons", "", "", EventWarn},
		{"h:1:1 [0] NCCL WARN NET/IB : Unable to open device ", "", "", EventWarn},
	}
	for _, tt := range tests {
		lg, err := Parse(strings.NewReader(tt.line+"\n"), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		if len(lg.Events) != 1 {
			t.Fatalf("%q: %d events", tt.line, len(lg.Events))
		}
		e := lg.Events[0]
		if e.Kind != tt.kind || e.Call != tt.call || e.HCA != tt.hca {
			t.Errorf("%q: kind %q call %q hca %q, want %q %q %q", tt.line, e.Kind, e.Call, e.HCA, tt.kind, tt.call, tt.hca)
		}
	}
}

// TestViaIBDevs: "via NET/IB/N" names device N of the "NET/IB : Using"
// list (odissei-benchmarks/nccl-tests all_reduce_mpi.log,
// realworld-fresh20).
func TestViaIBDevs(t *testing.T) {
	in := "gcn154:1794001:1794038 [3] NCCL INFO Channel 00/0 : 7[3] -> 0[0] [send] via NET/IB/4/GDRDMA\n" +
		"gcn154:1794001:1794038 [3] NCCL INFO Channel 01/0 : 3[3] -> 7[3] [receive] via NET/IB/1(5)/GDRDMA\n" +
		"gcn154:1794001:1794038 [3] NCCL INFO Channel 02/0 : 3[3] -> 7[3] [receive] via NET/Socket/0\n"
	lg, err := Parse(strings.NewReader(in), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Procs) != 1 || lg.Procs[0].ViaIBDevs != 1<<4|1<<1 {
		t.Fatalf("procs %+v", lg.Procs)
	}
}

// TestResultCode: the Azure NHC line (AlizeeChen11/azurehpc-health-checks
// customTests/debugging-test-failure.md, realworld-fresh28).
func TestResultCode(t *testing.T) {
	tests := []struct {
		line string
		code int
		ok   bool
	}{
		{"ERROR:  nhc:  Health check failed:  collect_nccl_allreduce_data: nccl_allreduce returned error code 3. FaultCode: NHCNA", 3, true},
		{"ncclCommInitRank returned error code 2", 2, true},
		{"ib_write_bw returned error code 3", 0, false},
		{"nccl_allreduce returned error code 0", 0, false},
		{"nccl_allreduce returned error code x", 0, false},
	}
	for _, tt := range tests {
		code, ok := ResultCode(tt.line)
		if code != tt.code || ok != tt.ok {
			t.Errorf("%q: %d %v, want %d %v", tt.line, code, ok, tt.code, tt.ok)
		}
	}
}

func FuzzResultCode(f *testing.F) {
	f.Add("nccl_allreduce returned error code 3.")
	f.Add(" returned error code ")
	f.Fuzz(func(t *testing.T, s string) {
		if code, ok := ResultCode(s); ok && code <= 0 {
			t.Fatalf("code %d", code)
		}
	})
}
