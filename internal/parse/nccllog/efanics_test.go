package nccllog

import (
	"strings"
	"testing"
)

// TestOFIPlatformAndNICs: aws-ofi-nccl's "Running on %s platform, …"
// (src/platform-aws.cpp, its three endings and the 2020 "P4d") and the
// NIC count of "Selected provider is %s, fabric is %s (found %d nics)"
// (src/nccl_ofi_net.cpp; 2023 "Selected Provider is %s (found %d
// nics)"). The first two lines are from a Korean EFA setup guide
// (realworld-fresh50), the p5 one from realworld-fresh20.
func TestOFIPlatformAndNICs(t *testing.T) {
	tests := []struct {
		line     string
		platform string
		prov     string
		nics     int
	}{
		{"ip-172-31-47-132:11752:11839 [6] NCCL INFO NET/OFI Running on p4d.24xlarge platform, Setting NCCL_TOPO_FILE environment variable to /opt/amazon/ofi-nccl/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml", "p4d.24xlarge", "", 0},
		{"ip-172-31-47-132:11749:11843 [3] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 1 nics)", "", "efa", 1},
		{"h:1:2 [0] NCCL INFO NET/OFI Selected Provider is efa (found 32 nics)", "", "efa", 32},
		{"h:1:2 [0] NCCL INFO NET/OFI Selected Provider is efa", "", "efa", 0},
		{"h:1:2 [0] NCCL INFO NET/OFI Running on p5.48xlarge platform, topology file /opt/amazon/ofi-nccl/share/aws-ofi-nccl/xml/p5.48xl-topo.xml", "p5.48xlarge", "", 0},
		{"h:1:2 [0] NCCL INFO NET/OFI Running on p5en.48xlarge platform, NCCL_TOPO_FILE environment variable is already set to /x.xml", "p5en.48xlarge", "", 0},
		{"h:1:2 [0] NCCL INFO NET/OFI Running on P4d platform, Setting NCCL_TOPO_FILE environment variable to /opt/aws-ofi-nccl/install/share/aws-ofi-nccl/xml/p4d-24xl-topo.xml", "P4d", "", 0},
		{"h:1:2 [0] NCCL INFO NET/OFI Running on", "", "", 0},
		{"h:1:2 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found x nics)", "", "efa", 0},
	}
	for _, tt := range tests {
		lg, err := Parse(strings.NewReader(tt.line+"\n"), "t.log")
		if err != nil {
			t.Fatalf("%q: %v", tt.line, err)
		}
		if len(lg.Procs) != 1 {
			t.Fatalf("%q: %d processes", tt.line, len(lg.Procs))
		}
		p := lg.Procs[0]
		if p.OFIPlatform != tt.platform || p.OFIProvider != tt.prov || p.OFINICs != tt.nics {
			t.Errorf("%q: platform %q provider %q nics %d, want %q %q %d", tt.line, p.OFIPlatform, p.OFIProvider, p.OFINICs, tt.platform, tt.prov, tt.nics)
		}
		if (p.OFIPlatform != "") != (p.OFIPlatformLine == 1) {
			t.Errorf("%q: platform line %d", tt.line, p.OFIPlatformLine)
		}
	}
}

// TestCaughtErrorReturn: RCCL 2.21.5's DMA-BUF probe (src/transport/
// net_ib.cc ncclIbDmaBufSupport, NCCLCHECKGOTO(rocmLibraryInit())) logs
// one trace line and the process goes on (an Azure MI300X log,
// realworld-fresh50); a failed call logs one line per level.
func TestCaughtErrorReturn(t *testing.T) {
	const pre = "pdfc-aig-00000H:2664391:2666940 [5] NCCL INFO "
	probe := pre + "Found /sys/kernel/mm/memory_peers/amdkfd/version\n" +
		pre + "/long_pathname_so_that_rpms_can_package_the_debug_info/src/rccl/build/hipify/src/transport/net_ib.cc:652 -> 2\n" +
		pre + "Using non-device net plugin version 0\n" +
		pre + "Using network IB\n"
	lg, err := Parse(strings.NewReader(probe), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	p := lg.Procs[0]
	if p.ErrReturn != 2 || p.ErrCode != 2 || p.ErrTraces != 1 || p.WentOn != 4 || p.WentOnText != "Using network IB" {
		t.Errorf("probe: ErrReturn %d code %d traces %d WentOn %d %q", p.ErrReturn, p.ErrCode, p.ErrTraces, p.WentOn, p.WentOnText)
	}
	chain := pre + "transport/net_ib.cc:652 -> 2\n" + pre + "transport/net.cc:515 -> 2\n" + pre + "init.cc:1534 -> 2\n"
	lg, err = Parse(strings.NewReader(chain), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	p = lg.Procs[0]
	if p.ErrReturn != 1 || p.ErrTraces != 3 || p.InitFailed != 3 || p.WentOn != 0 {
		t.Errorf("chain: ErrReturn %d traces %d InitFailed %d WentOn %d", p.ErrReturn, p.ErrTraces, p.InitFailed, p.WentOn)
	}
}
