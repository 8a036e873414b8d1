package ompihelp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func parseFile(t *testing.T, name string) *Log {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lg, err := Parse(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return lg
}

// TestRealMessages: the messages of the corpus, their fields and mpirun's
// aggregate lines.
func TestRealMessages(t *testing.T) {
	lg := parseFile(t, "ompi7796-no-active-ports.txt")
	want := []Message{{Topic: NoActivePorts, Line: 2, Text: "WARNING: There is at least non-excluded one OpenFabrics device found,",
		Fields: map[string]string{"Local host": "gpu7"}, Keys: []string{"Local host"}, Host: "gpu7"}}
	if diff := cmp.Diff(want, lg.Messages); diff != "" {
		t.Errorf("ompi7796 (-want +got):\n%s", diff)
	}

	lg = parseFile(t, "ompi10693-ib-port-not-selected.txt")
	var got []string
	for _, m := range lg.Messages {
		got = append(got, strings.Join([]string{m.Topic.Name, m.Host, m.Device, string(rune('0' + m.Port))}, "|"))
	}
	if diff := cmp.Diff([]string{"ib port not selected|lxbk1039|mlx5_0|1", "error in device init|lxbk1039|mlx5_0|0"}, got); diff != "" {
		t.Errorf("ompi10693 (-want +got):\n%s", diff)
	}
	wantAgg := []Aggregate{{Line: 18, Host: "lxbk1039", More: 11, Topic: PortNotSelected,
		Text: "[lxbk1039:106838] 11 more processes have sent help message help-mpi-btl-openib.txt / ib port not selected"}}
	if diff := cmp.Diff(wantAgg, lg.Aggregates); diff != "" {
		t.Errorf("aggregates (-want +got):\n%s", diff)
	}
	if lg.Count(PortNotSelected) != 12 || lg.Count(DeviceInitError) != 1 || lg.Has(NoActivePorts) {
		t.Errorf("counts %d %d %v", lg.Count(PortNotSelected), lg.Count(DeviceInitError), lg.Has(NoActivePorts))
	}
}

// TestMessages: each message the package reads, as its help file words it
// (open-mpi/ompi help-mpi-btl-openib.txt, help-mpi-btl-openib-cpc-base.txt,
// help-mpi-btl-base.txt, help-mca-bml-r2.txt), with its fields.
func TestMessages(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		topic    Topic
		host     string
		device   string
		port     int
		field    [2]string // one more field that must be read
	}{
		{"no cpcs for port", "--------------------------------------------------------------------------\nNo OpenFabrics connection schemes reported that they were able to be\nused on a specific port.  As such, the openib BTL (OpenFabrics\nsupport) will be disabled for this port.\n\n  Local host:           node01\n  Local device:         mlx5_0\n  Local port:           1\n  CPCs attempted:       rdmacm, udcm\n--------------------------------------------------------------------------\n",
			NoCPCForPort, "node01", "mlx5_0", 1, [2]string{"CPCs attempted", "rdmacm, udcm"}},
		{"unreachable proc", "At least one pair of MPI processes are unable to reach each other for\nMPI communications.  This means that no Open MPI device has indicated\nthat it can be used to communicate between these processes.  This is\nan error; Open MPI requires that all MPI processes be able to reach\neach other.  This error can sometimes be the result of forgetting to\nspecify the \"self\" BTL.\n\n  Process 1 is on host: node01\n  Process 2 is on host: node02\n  BTLs attempted:       self sm\n\nYour MPI job is now going to abort; sorry.\n",
			UnreachableProc, "node01", "", 0, [2]string{"Process 2 is on host", "node02"}},
		{"retry exceeded", "The InfiniBand retry count between two MPI processes has been\nexceeded.  \"Retry count\" is defined in the InfiniBand spec 1.2\n(section 12.7.38):\n\n  Local host:   c1n01\n  Local device: mlx4_0\n  Peer host:    c1n07\n\nYou may need to consult with your system administrator to get this\nproblem fixed.\n",
			RetryExceeded, "c1n01", "mlx4_0", 0, [2]string{"Peer host", "c1n07"}},
		{"locked memory", "The OpenFabrics (openib) BTL failed to initialize while trying to\nallocate some locked memory.  This typically can indicate that the\nmemlock limits are set too low.\n\n  Local host:    node3\n  OMPI source:   btl_openib_component.c:1216\n  Function:      ompi_free_list_init_ex_new()\n  Device:        mlx4_0\n  Memlock limit: 65536\n",
			NoLockedMemory, "node3", "mlx4_0", 0, [2]string{"Memlock limit", "65536"}},
		// help-mpi-btl-openib.txt [init-fail-create-q] (analyze testdata/realworld-fresh48, open-mpi/ompi issue 166).
		{"create queue is not locked memory", "The OpenFabrics (openib) BTL failed to initialize while trying to\ncreate an internal queue.\n\n  Local host:  node3\n  Function:    ibv_create_cq()\n  Error:       Device or resource busy (errno=16)\n  Device:      mlx4_0\n",
			CreateQueue, "node3", "mlx4_0", 0, [2]string{"Function", "ibv_create_cq()"}},
		// A mail archive puts a blank line between every two lines.
		{"create queue, archive blank lines", "The OpenFabrics (openib) BTL failed to initialize while trying to\n\ncreate an internal queue.  This typically indicates a failed\n\n  Local host:  machine001.lan\n\n  Device:      mthca0\n",
			CreateQueue, "machine001.lan", "mthca0", 0, [2]string{"Device", "mthca0"}},
		{"create queue, Open MPI 1.2", "The OpenIB BTL failed to initialize while trying to create an internal\nqueue.  This typically indicates a failed OpenFabrics installation or\n\n    Host:        n1\n    Device:      mthca0\n",
			CreateQueue, "n1", "mthca0", 0, [2]string{"Host", "n1"}},
		// openib handle_wc (btl_openib_component.c), wrapped by a terminal mid-word (open-mpi/ompi issue 4529).
		{"handle_wc wrapped mid-word", "[[27217,0],12][btl_openib_component.c:3556:handle_wc] from nvb27 to: nvb27 error polling L\nP CQ with status REMOTE ACCESS ERROR status number 10 for wr_id 19059c8 opcode 4  vendor e\nrror 136 qp_idx 3\n",
			CompletionError, "nvb27", "", 0, [2]string{"Status", "REMOTE ACCESS ERROR"}},
		{"handle_wc wrapped before polling", "[[27833,0],2][btl_openib_component.c:3556:handle_wc] from nvb10 to: nvb10 error\npolling LP CQ with status REMOTE ACCESS ERROR status number 10 for wr_id 13efd68\n opcode 0  vendor error 136 qp_idx 3\n",
			CompletionError, "nvb10", "", 0, [2]string{"Vendor error", "136"}},
		{"handle_wc, blank lines between", "[[44095,1],45][btl_openib_component.c:3492:handle_wc] from \n\ncompute-6-13.local to: compute-3-11 error polling LP CQ with status \n\nLOCAL QP OPERATION ERROR status number 2 for wr_id 40c5e00 opcode 0 \n\nvendor error 111 qp_idx 0\n",
			CompletionError, "compute-6-13.local", "", 0, [2]string{"Peer host", "compute-3-11"}},
		{"handle_wc, vendor error on the next line", "[[44095,1],45][btl_openib_component.c:3492:handle_wc] from \n\ncompute-6-13.local to: compute-3-11 error polling LP CQ with status \n\nLOCAL QP OPERATION ERROR status number 2 for wr_id 40c5e00 opcode 0 \n\nvendor error 111 qp_idx 0\n",
			CompletionError, "compute-6-13.local", "", 0, [2]string{"Vendor error", "111"}},
		{"poll_device", "[rc000][[5397,1],72][btl_openib_component.c:3547:poll_device] error polling HP CQ with -2 errno says Device or resource busy\n",
			PollError, "rc000", "", 0, [2]string{"Errno says", "Device or resource busy"}},
		{"error polling in prose is not read", "the error polling loop never ends\n", Topic{}, "", "", 0, [2]string{}},
		{"no nics behind the module name", "[[4411,1],0]: A high-performance Open MPI point-to-point messaging module\nwas unable to find any relevant network interfaces:\n\nModule: OpenFabrics (openib)\n  Host: gpu1\n\nAnother transport will be used instead, although this may result in\nlower performance.\n",
			NoNICs, "gpu1", "", 0, [2]string{"Module", "OpenFabrics (openib)"}},
		// help-mpi-btl-tcp.txt [client connect fail], as Open MPI 4 prints it
		// (analyze testdata/realworld-fresh39, open-mpi/ompi issue 12779), and
		// the second wording of the same topic, with its fields.
		{"tcp client connect fail, cut after its first line", "--------------------------------------------------------------------------\nWARNING: Open MPI failed to TCP connect to a peer MPI process.  This\n",
			TCPConnectFail, "", "", 0, [2]string{}},
		{"tcp client connect fail via TCP", "WARNING: Open MPI failed to TCP connect to a peer MPI process via\nTCP.  This should not happen.\n\nYour Open MPI job may now fail.\n\n  Local host: node07\n  PID:        4242\n  Message:    connect() to 10.0.0.8:1024 failed\n  Error:      No route to host (113)\n",
			TCPConnectFail, "node07", "", 0, [2]string{"Error", "No route to host (113)"}},
		// The TCP BTL's error line (analyze testdata/realworld-fresh39, open-mpi/ompi issue 12779).
		{"tcp received unexpected process identifier", "[cu25][[13139,1],1][btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected process identifier [[13139,1],4]\n",
			TCPWrongPeer, "cu25", "", 0, [2]string{"Peer process", "[[13139,1],4]"}},
		// The runtime's own TCP channel words it otherwise (orte/mca/oob/tcp): not the BTL's line.
		{"the oob's unexpected identifier is not read", "[node1:01234] [[1234,0],1] tcp_peer_recv_connect_ack: received unexpected process identifier [[1234,0],2] from [[1234,0],3]\n",
			Topic{}, "", "", 0, [2]string{}},
		{"fields stop at the dashes", "WARNING: There was an error initializing an OpenFabrics device.\n\n  Local host:   a\n  Local device: mlx5_0\n----------------------------------------\nProcess 1: rank: 3\n",
			DeviceInitError, "a", "mlx5_0", 0, [2]string{"Local device", "mlx5_0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tc.in), "t")
			if tc.topic == (Topic{}) {
				if !errors.Is(err, ErrNoData) {
					t.Fatalf("err %v, messages %+v", err, lg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(lg.Messages) != 1 {
				t.Fatalf("messages %+v", lg.Messages)
			}
			m := lg.Messages[0]
			if m.Topic != tc.topic || m.Host != tc.host || m.Device != tc.device || m.Port != tc.port || m.Fields[tc.field[0]] != tc.field[1] {
				t.Errorf("message %+v", m)
			}
			if _, ok := m.Fields["Process 1"]; ok {
				t.Errorf("a line after the closing dashes was read: %+v", m.Fields)
			}
			if !Detect(tc.in) {
				t.Error("not detected")
			}
		})
	}
}

// TestAggregateLines: mpirun's folding lines, one process or many
// (aggregate lines quoted in public HPL and MPI tutorials).
func TestAggregateLines(t *testing.T) {
	for l, want := range map[string]Aggregate{
		"[guane11.uis.edu.co:09346] 1 more process has sent help message help-mpi-btl-openib.txt / error in device init": {Host: "guane11.uis.edu.co", More: 1, Topic: DeviceInitError},
		"[login:1088026] 39 more processes have sent help message help-mpi-btl-openib.txt / ib port not selected":        {Host: "login", More: 39, Topic: PortNotSelected},
		`[login:1088026] Set MCA parameter "orte_base_help_aggregate" to 0 to see all help / error messages`:             {},
		"Process 1 reporting for duty.": {},
	} {
		a, ok := aggregateLine(collapse(l))
		if ok != (want.More > 0) || ok && (a.Host != want.Host || a.More != want.More || a.Topic != want.Topic) {
			t.Errorf("aggregateLine(%q) = %+v %v", l, a, ok)
		}
		if StartLine(l) != ok {
			t.Errorf("StartLine(%q) != %v", l, ok)
		}
	}
	if _, err := Parse(strings.NewReader("We have 28 processes.\nProcess 1 reporting for duty.\n"), "x"); !errors.Is(err, ErrNoData) {
		t.Errorf("err %v", err)
	}
}

// TestHint: every first line and aggregate line passes the cheap look.
func TestHint(t *testing.T) {
	for _, s := range starts {
		if !Hint(s.first) && !Hint(s.second) {
			t.Errorf("Hint misses %q", s.first)
		}
	}
	if !Hint("[cu25][[13139,1],1][btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_recv_connect_ack] received unexpected process identifier [[13139,1],4]") {
		t.Error("Hint misses the TCP BTL's unexpected process identifier")
	}
	if !Hint("[login:1088026] 39 more processes have sent help message help-mpi-btl-openib.txt / ib port not selected") {
		t.Error("Hint misses the aggregate line")
	}
	if Hint("[   12.345678] mlx5_core 0000:17:00.0: Port module event: module 0, Cable unplugged") {
		t.Error("Hint takes a kernel line")
	}
}

// TestAggregateKnown: an aggregate line of a topic the package reads is
// known; mpirun folds others the same way. The unknown one is from an
// alltoall_perf run's output (analyze testdata/realworld-fresh46,
// nccl-tests-stored52913594292-rtx6000d-alltoall-16m-512m-collapse.txt).
func TestAggregateKnown(t *testing.T) {
	for l, want := range map[string]bool{
		"[R6KD-CX8aaS-GPU-11:02943] 15 more processes have sent help message help-mca-var.txt / mutually-exclusive-vars": false,
		"[login:1088026] 39 more processes have sent help message help-mpi-btl-openib.txt / ib port not selected":        true,
	} {
		a, ok := AggregateLine(l)
		if !ok || a.Topic.Known() != want {
			t.Errorf("%q: ok %v known %v, want %v", l, ok, a.Topic.Known(), want)
		}
	}
	if _, ok := AggregateLine("Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages"); ok {
		t.Error("the hint line is not an aggregate")
	}
}
