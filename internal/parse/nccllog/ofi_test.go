package nccllog

import (
	"strings"
	"testing"
)

// TestOFIWarn: the WARN lines of the aws-ofi-nccl net plugin
// (NCCL_OFI_WARN, include/nccl_ofi_log.h: "NET/OFI " fmt). Lines from
// aws/aws-ofi-nccl#1020 (fi_getinfo, nccl_net_ofi_rdma_init), #156
// (ofi_process_cq) and #22 (create_nccl_ofi_component, in the test
// programs' "WARN: Function: F Line: N:" format), realworld-fresh35; the
// others are the format strings of src/nccl_ofi_rdma.cpp,
// src/nccl_ofi_ofiutils.cpp and Platform::log_cq_error
// (include/nccl_ofi_platform.h) filled in.
func TestOFIWarn(t *testing.T) {
	tests := []struct {
		line      string
		kind      EventKind
		net, call string
		errText   string
		rc        int
		req       string
	}{
		{"[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available",
			EventResource, "OFI", "fi_getinfo", "No data available", 0, ""},
		{"[1,13]<stdout>:nccl-tests-worker-1:35:89 [5] ofi_process_cq:1039 NCCL WARN NET/OFI Request 0x7fbb944701b8 completed with error. RC: 20. Error: unknown error. Completed length: 0, Request: { buffer_index: 255, dev: 1, size: 0, state: CREATED, direction: SEND }",
			EventCompletion, "OFI", "", "unknown error", 20, "SEND"},
		{"WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument",
			EventResource, "OFI", "fi_av_open", "Invalid argument", -22, ""},
		// aws-ofi-nccl 1.x find_ofi_provider: fi_getinfo returned
		// -FI_ENODATA (aws/aws-efa-nccl-baseami-pipeline#2,
		// realworld-fresh69).
		{"c1uslt-nccl01:1:2 [0] find_ofi_provider:543 NCCL WARN NET/OFI Couldn't find any optimal provider",
			EventResource, "OFI", "fi_getinfo", "No data available", 0, ""},
		{"h:1:2 [0] NCCL WARN NET/OFI Couldn't open a fabric access domain. RC: -12, ERROR: Cannot allocate memory",
			EventResource, "OFI", "fi_domain", "Cannot allocate memory", -12, ""},
		{"h:1:2 [0] NCCL WARN NET/OFI Couldn't bind EP-CQ. RC: -22, ERROR: Invalid argument",
			EventResource, "OFI", "fi_ep_bind", "Invalid argument", -22, ""},
		{"h:1:2 [0] NCCL WARN NET/OFI Request 0x55d0 (send) completed with error: err: 113, flags: 0, prov_errno: 4106, strerror: Unreachable remote, len: 0",
			EventCompletion, "OFI", "", "Unreachable remote", 113, ""},
		{"h:1:2 [0] NCCL WARN NET/OFI Remote write completed with error. RC: 5. Flags: 0. Error: 14 (Remote address error). Completed length: 0",
			EventCompletion, "OFI", "", "14 (Remote address error)", 5, ""},
		// Other plugin warnings stay unclassified.
		{"h:1:2 [0] NCCL WARN NET/OFI Couldn't allocate listen_comm for dev 0", EventWarn, "", "", "", 0, ""},
		{"h:1:2 [0] NCCL WARN NET/OFI Initializing plugin failed", EventWarn, "", "", "", 0, ""},
		{"h:1:2 [0] NCCL WARN NET/IB : Request 0x1 completed with error", EventWarn, "", "", "", 0, ""},
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
		if e.Kind != tt.kind || e.Net != tt.net || e.Call != tt.call || e.Error != tt.errText || e.RC != tt.rc || e.Req != tt.req {
			t.Errorf("%q:\n got %q net %q call %q error %q rc %d req %q\nwant %q net %q call %q error %q rc %d req %q",
				tt.line, e.Kind, e.Net, e.Call, e.Error, e.RC, e.Req, tt.kind, tt.net, tt.call, tt.errText, tt.rc, tt.req)
		}
	}
}

// TestOFITestLine: aws-ofi-nccl's test programs (tests/test-common.h of
// 2019-2020) print "LEVEL: Function: F Line: N: " before the message
// (aws/aws-ofi-nccl#22, realworld-fresh35).
func TestOFITestLine(t *testing.T) {
	tests := []struct {
		line, level, msg string
		ok               bool
	}{
		{"WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument", "WARN", "NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument", true},
		{"INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa", "INFO", "NET/OFI Selected Provider is efa", true},
		{"  INFO: Function: main Line: 53: NET/OFI Received 1 network devices", "INFO", "NET/OFI Received 1 network devices", true},
		// A pdsh-like runner's host label (aws/aws-ofi-nccl#67,
		// realworld-fresh69).
		{"10.3.35.83: WARN: Function: find_ofi_provider Line: 543: NET/OFI Couldn't find any optimal provider", "WARN", "NET/OFI Couldn't find any optimal provider", true},
		{"node-1: INFO: Function: ofi_init Line: 1102: NET/OFI Setting RDMAV_FORK_SAFE environment variable to 1.", "INFO", "NET/OFI Setting RDMAV_FORK_SAFE environment variable to 1.", true},
		{"a b: WARN: Function: f Line: 1: NET/OFI x", "", "", false},
		{"WARN: Function: f Line: 1: something else", "", "", false},
		{"WARN: disk almost full", "", "", false},
		{"INFO: Function: main", "", "", false},
	}
	for _, tt := range tests {
		lv, msg, ok := ofiTestLine(tt.line)
		if lv != tt.level || msg != tt.msg || ok != tt.ok {
			t.Errorf("%q: %q %q %v, want %q %q %v", tt.line, lv, msg, ok, tt.level, tt.msg, tt.ok)
		}
	}
	text := "INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa\nWARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument\n"
	if !Detect(text) {
		t.Error("Detect misses the test programs' WARN line")
	}
	if Detect("INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa\n") {
		t.Error("Detect takes an INFO line alone")
	}
}

// TestOFIProvider: the provider of aws-ofi-nccl's "Selected Provider is"
// line (aws/aws-ofi-nccl#229, realworld-fresh43; the later "Selected
// provider is %s, fabric is %s (found %d nics)"), and which providers run
// over the IP stack.
func TestOFIProvider(t *testing.T) {
	for _, tt := range []struct {
		line, prov string
		socket     bool
	}{
		{"ip-192-168-16-255:25604:25604 [0] NCCL INFO NET/OFI Selected Provider is tcp;ofi_rxm", "tcp;ofi_rxm", true},
		{"a:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)", "efa", false},
		{"a:1:1 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 4 nics)", "efa", false},
		{"a:1:1 [0] NCCL INFO NET/OFI Selected Provider is sockets", "sockets", true},
		{"a:1:1 [0] NCCL INFO NET/OFI Using Libfabric version 1.8", "", false},
	} {
		lg, err := Parse(strings.NewReader(tt.line+"\n"), "t")
		if err != nil {
			t.Fatal(err)
		}
		p := lg.Procs[0]
		if p.OFIProvider != tt.prov || (p.OFIProviderLine == 1) != (tt.prov != "") {
			t.Errorf("%q: provider %q at %d, want %q", tt.line, p.OFIProvider, p.OFIProviderLine, tt.prov)
		}
		if SocketProvider(p.OFIProvider) != tt.socket {
			t.Errorf("%q: SocketProvider %v", tt.line, !tt.socket)
		}
	}
}
