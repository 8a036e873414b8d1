package mpi

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/ompihelp"
)

func ids(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID+"/"+string(f.Severity))
	}
	return out
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../parse/ompihelp/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheck: the real pastes of the ompihelp corpus and messages as the
// help files word them (open-mpi/ompi), each with its verdict and the
// words the summary must carry.
func TestCheck(t *testing.T) {
	stock := read(t, "ompi10693-ib-port-not-selected.txt")
	initErr := stock[strings.Index(stock, "WARNING: There was an error"):strings.Index(stock, "[lxbk1039")]
	for _, tc := range []struct {
		name, in string
		want     []string
		has      []string
	}{
		{"no active ports (open-mpi/ompi#7796)", read(t, "ompi7796-no-active-ports.txt"),
			[]string{"mpi.rdma_not_used/warning"}, []string{"no ACTIVE port", "gpu7", "ibstat on gpu7"}},
		{"Open MPI 4 stock notices (open-mpi/ompi#10693)", stock,
			[]string{"mpi.rdma_not_used/info"}, []string{"leaves the InfiniBand ports of mlx5_0 port 1 on lxbk1039 to UCX", "12 processes", "is the same notice"}},
		{"device init error alone", initErr,
			[]string{"mpi.rdma_not_used/warning"}, []string{"could not initialise mlx5_0 on lxbk1039"}},
		{"only the aggregate line of the stock notice", "[login:1088026] 39 more processes have sent help message help-mpi-btl-openib.txt / ib port not selected\n",
			[]string{"mpi.rdma_not_used/info"}, []string{"39 processes"}},
		{"unreachable", "At least one pair of MPI processes are unable to reach each other for\nMPI communications.\n\n  Process 1 is on host: node01\n  Process 2 is on host: node02\n  BTLs attempted:       self sm\n\nYour MPI job is now going to abort; sorry.\n",
			[]string{"mpi.unreachable/critical"}, []string{"node01 and node02", "self sm"}},
		{"retry exceeded", "The InfiniBand retry count between two MPI processes has been\nexceeded.\n\n  Local host:   c1n01\n  Local device: mlx4_0\n  Peer host:    c1n07\n",
			[]string{"mpi.transport_error/critical"}, []string{"between c1n01 (mlx4_0) and c1n07"}},
		{"error event", "The OpenFabrics stack has reported a network error event.  Open MPI\nwill try to continue, but your job may end up failing.\n\n  Local host:        n1\n  MPI process PID:   4242\n  Error number:      10 (IBV_EVENT_PORT_ERR)\n",
			[]string{"mpi.transport_error/warning"}, []string{"IBV_EVENT_PORT_ERR"}},
		// openib's handle_wc line (open-mpi/ompi#4529) and poll_device
		// line (open-mpi/ompi#166); help-mpi-btl-openib.txt init-fail-create-q.
		{"completion error", "[[27217,0],12][btl_openib_component.c:3556:handle_wc] from nvb27 to: nvb28 error polling LP CQ with status REMOTE ACCESS ERROR status number 10 for wr_id 19059c8 opcode 4  vendor error 136 qp_idx 3\n",
			[]string{"mpi.transport_error/critical"}, []string{"between nvb27 and nvb28", "REMOTE ACCESS ERROR (status 10, vendor error 136)"}},
		{"flushed only", "[[1,0],1][btl_openib_component.c:3556:handle_wc] from a to: b error polling LP CQ with status WORK REQUEST FLUSHED ERROR status number 5 for wr_id 1 opcode 0  vendor error 244 qp_idx 0\n",
			[]string{"mpi.transport_error/warning"}, []string{"flushed"}},
		{"retry exceeded line with its help message", "[[1,0],1][btl_openib_component.c:3238:handle_wc] from host84 to: host85 error polling LP CQ with status RETRY EXCEEDED ERROR status number 12 for wr_id 1 opcode 2  vendor error 0 qp_idx 3\nThe InfiniBand retry count between two MPI processes has been\nexceeded.\n\n  Local host:   host84\n",
			[]string{"mpi.transport_error/critical"}, []string{"retry count"}},
		{"poll device", "[rc000][[5397,1],72][btl_openib_component.c:3547:poll_device] error polling HP CQ with -2 errno says Device or resource busy\n",
			[]string{"mpi.transport_error/critical"}, []string{"rc000", "Device or resource busy"}},
		{"create queue", "The OpenFabrics (openib) BTL failed to initialize while trying to\ncreate an internal queue.\n\n  Local host:  m1\n  OMPI source: btl_openib.c:250\n  Function:    ibv_create_srq()\n  Error:       Invalid argument (errno=22)\n  Device:      mthca0\n",
			[]string{"mpi.rdma_not_used/warning"}, []string{"mthca0 on m1 (ibv_create_srq(): Invalid argument (errno=22), at btl_openib.c:250)"}},
		{"locked memory", "The OpenFabrics (openib) BTL failed to initialize while trying to\nallocate some locked memory.\n\n  Local host:    node3\n  Device:        mlx4_0\n  Memlock limit: 65536\n",
			[]string{"host.memlock_limited/warning"}, []string{"memlock limit 65536"}},
		// open-mpi/ompi#12779 (analyze testdata/realworld-fresh39): Open MPI 4 on
		// Omni-Path, the stock notice, then the TCP transport's errors.
		{"stock notice on hfi1 then TCP errors (open-mpi/ompi#12779)", read(t, "ompi12779-hfi1-notice-tcp-unexpected-identifier.txt"),
			[]string{"mpi.unreachable/critical", "mpi.rdma_not_used/warning"},
			[]string{"failed to connect to a peer process", "wrong process on cu25 ([[13139,1],1] got [[13139,1],4]; [[13139,1],3] got [[13139,1],13]), 2 times",
				"btl_tcp_if_include", "does not use the RDMA device", "hfi1_0 is an Omni-Path adapter", "--mca pml cm --mca mtl psm2"}},
		{"stock notice on mlx5 then a TCP connect failure", stock + "WARNING: Open MPI failed to TCP connect to a peer MPI process via\nTCP.  This should not happen.\n\n  Local host: lxbk1039\n  PID:        4242\n  Error:      No route to host (113)\n",
			[]string{"mpi.unreachable/critical", "mpi.rdma_not_used/warning"},
			[]string{"on lxbk1039 (1 process, error: No route to host (113))", "ompi_info | grep -i ucx must list the ucx pml"}},
		{"only the unexpected process identifier", "[cu25][[13139,1],1][btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected process identifier [[13139,1],4]\n",
			[]string{"mpi.unreachable/warning"}, []string{"wrong process on cu25 ([[13139,1],1] got [[13139,1],4])", "btl_tcp_if_exclude lo,docker0,virbr0"}},
		{"no cpcs", "No OpenFabrics connection schemes reported that they were able to be\nused on a specific port.\n\n  Local host:           node01\n  Local device:         mlx5_0\n  Local port:           1\n  CPCs attempted:       rdmacm, udcm\n",
			[]string{"mpi.rdma_not_used/warning"}, []string{"mlx5_0 port 1 on node01", "rdmacm, udcm"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := ompihelp.Parse(strings.NewReader(tc.in), "p")
			if err != nil {
				t.Fatal(err)
			}
			fs := Check(lg)
			if diff := cmp.Diff(tc.want, ids(fs)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\n%+v", diff, fs)
			}
			var all []string
			for _, f := range fs {
				all = append(all, f.Summary)
				if len(f.Evidence) == 0 {
					t.Errorf("%s: no evidence", f.ID)
				}
			}
			for _, h := range tc.has {
				if !strings.Contains(strings.Join(all, "\n"), h) {
					t.Errorf("no summary says %q:\n%s", h, strings.Join(all, "\n"))
				}
			}
		})
	}
}

// FuzzCheck: the rules take whatever the parser accepts without panicking,
// and every finding quotes a line.
func FuzzCheck(f *testing.F) {
	for _, name := range []string{"ompi7796-no-active-ports.txt", "ompi10693-ib-port-not-selected.txt"} {
		b, err := os.ReadFile("../../parse/ompihelp/testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("The OpenFabrics (openib) BTL failed to initialize while trying to\nallocate some locked memory.\n")
	f.Fuzz(func(t *testing.T, in string) {
		lg, err := ompihelp.Parse(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		for _, fd := range Check(lg) {
			if len(fd.Evidence) == 0 {
				t.Fatalf("%s without evidence", fd.ID)
			}
		}
	})
}
