package analyze

import (
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestFailureLine: lines of unread outputs that say something failed, and
// lines that only name a failure (counters, settings, identifiers).
func TestFailureLine(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		// Failures, in the wordings of programs ibdoctor does not read.
		{"ERROR: connect to 10.0.0.2:18515 failed: Connection refused", true},
		{"[2024-05-01 10:00:01] worker 3: RuntimeError: something went wrong", true},
		{"torch.distributed.DistBackendError: NCCL communicator was aborted", true},
		{"registered errorHandler for rank 0", false},
		{"Segmentation fault (core dumped)", true},
		{"rdma_connect: Connection timed out", true},
		{"fatal: unable to allocate memory region", true},
		{"libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.", false},
		{"nvme connect: Failed to write to /dev/nvme-fabrics: Input/output error", true},
		{"transport retry count exceeded on mlx5_0:1/IB", true},
		{"ping: sendmsg: No route to host", true},
		{"ERROR: you must run this as root", true},
		{"t_avg 5.21 us, 2 errors after 1000 iterations", true},
		// A person's sentences about a failure (realworld-fresh27 perftest-perftest121-…).
		{"We saw Failed to get IB devices list: Function not implemented on two nodes.", false},
		{"I think reporting any instance of the word \"pause\" as a potential error would be safe.", false},
		{"When I run it, my job fails.", false},
		{"With latest perftest while running ib_write_bw the below errors are seen on client side", false},
		// Names of a failure without one.
		{"    errors: 0", false},
		{"RX errors 0  dropped 0  overruns 0  frame 0", false},
		{"0 errors, 0 warnings", false},
		{"no errors found", false},
		{"local_ack_timeout_err 0", false},
		{"port_rcv_errors: 12", false},
		{"Timeout: 14", false},
		{"timeout=30s", false},
		{"bond0: link failover to eth1", false},
		{"terror and errorlog are no failures", false},
		{"$ ib_write_bw --timeout 20 failed-host", false},
		{"```", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := failureLine(tt.line); got != tt.want {
			t.Errorf("failureLine(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestUnreadFailures: a file no reader knows is not judged, unless lines
// of it say something failed: then it is a warning (paste.failure_lines)
// that cites the first and the last such line; beside an output that is
// read, those lines give nothing. Read whole and streamed alike.
func TestUnreadFailures(t *testing.T) {
	const failing = "starting worker 3\nworker 3: connect to 10.0.0.2 failed: Connection refused\nretrying\nworker 3: giving up: Connection refused, unable to reach 10.0.0.2\n"
	r := Run([]Input{{Name: "app.log", Text: failing}}, Options{})
	if r.ExitCode != 1 || len(r.Findings) != 1 || r.Findings[0].ID != "paste.failure_lines" {
		t.Fatalf("exit %d, findings %+v; want one paste.failure_lines warning", r.ExitCode, r.Findings)
	}
	f := r.Findings[0]
	if len(f.Evidence) != 2 || f.Evidence[0].Source != "app.log:2" || f.Evidence[1].Source != "app.log:4" {
		t.Errorf("evidence %+v, want app.log:2 and app.log:4", f.Evidence)
	}
	if !strings.HasPrefix(f.Summary, "2 lines ibdoctor does not read say something failed") {
		t.Errorf("summary %q", f.Summary)
	}
	if got := Run([]Input{{Name: "app.log", R: strings.NewReader(failing), Size: -1}}, Options{}); got.ExitCode != 1 || len(got.Findings) != 1 {
		t.Errorf("streamed: exit %d, findings %+v", got.ExitCode, got.Findings)
	}
	if r := Run([]Input{{Name: "notes.txt", Text: "starting worker 3\nall done, 0 errors\n"}}, Options{}); r.ExitCode != 3 {
		t.Errorf("no failure line: exit %d, want 3 (not judged)", r.ExitCode)
	}
	// A perftest banner without a result row holds nothing to judge: the
	// failure printed above it is the verdict (realworld-fresh27
	// perftest-perftest121-iwarp-cxgb4-rdmacm-server-disconnect-reset.txt, cut).
	banner := "Failed to disconnect RDMA CM connection.\nERRNO: Connection reset by peer.\n\n" +
		"---------------------------------------------------------------------------------------\n" +
		"                    RDMA_Write BW Test\n" +
		" Dual-port       : OFF          Device         : cxgb4_0\n" +
		" Number of qps   : 1            Transport type : IW\n" +
		" Connection type : RC           Using SRQ      : OFF\n" +
		"---------------------------------------------------------------------------------------\n"
	r = Run([]Input{{Name: "pt.txt", Text: banner}}, Options{})
	if r.ExitCode != 1 || len(r.Findings) != 1 || r.Findings[0].ID != "paste.failure_lines" || r.Findings[0].Evidence[0].Source != "pt.txt:1" {
		t.Errorf("perftest banner after a failure: exit %d, findings %+v; want paste.failure_lines from pt.txt:1", r.ExitCode, r.Findings)
	}
	if r := Run([]Input{{Name: "pt.txt", Text: banner[strings.Index(banner, "\n\n")+2:]}}, Options{}); r.ExitCode != 3 {
		t.Errorf("the banner alone: exit %d, want 3 (not judged)", r.ExitCode)
	}
	// A failure that ended the program, the connection or the device is
	// critical, with the line that says so among the evidence (Slurm's
	// lines of realworld-fresh48 openmpi-log-ompi4529-…, between a worker's).
	job := "worker 3: connect to 10.0.0.2 failed: Connection refused\n" +
		"srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n" +
		"slurmstepd: *** STEP 1076409.0 ON nvb10 CANCELLED AT 2017-11-23T21:03:19 ***\n" +
		"worker 3: giving up: unable to reach 10.0.0.2\n"
	r = Run([]Input{{Name: "job.log", Text: job}}, Options{})
	if r.ExitCode != 2 || len(r.Findings) != 1 || r.Findings[0].ID != "paste.failure_lines" || r.Findings[0].Severity != finding.Critical {
		t.Fatalf("a failure that stopped the program: exit %d, findings %+v; want one critical paste.failure_lines", r.ExitCode, r.Findings)
	}
	if f := r.Findings[0]; len(f.Evidence) != 3 || f.Evidence[1].Source != "job.log:2" || !strings.Contains(f.Summary, "line 2 says the program, connection or device stopped") {
		t.Errorf("evidence %+v, summary %q: want the stop line 2 between the first and the last", f.Evidence, f.Summary)
	}
	// Beside an ibstat that is read, the prose is left alone.
	ibstat := "CA 'mlx5_0'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tFirmware version: 20.31.1014\n\tHardware version: 0\n\tNode GUID: 0x0c42a10300a1b2c3\n\tSystem image GUID: 0x0c42a10300a1b2c3\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 200\n\t\tBase lid: 5\n\t\tLMC: 0\n\t\tSM lid: 1\n\t\tCapability mask: 0x2651e848\n\t\tPort GUID: 0x0c42a10300a1b2c3\n\t\tLink layer: InfiniBand\n"
	if r := Run([]Input{{Name: "t.txt", Text: "the job failed yesterday, now:\n\n$ ibstat\n" + ibstat}}, Options{}); r.ExitCode != 0 {
		t.Errorf("ibstat beside prose: exit %d, findings %+v; want HEALTHY", r.ExitCode, r.Findings)
	}
	// Beside it, failure lines that ended nothing are left alone too, but a
	// job that died is not made healthy by a healthy port
	// (realworld-fresh55 ompi-users-stored43986416039-…, cut).
	refused := "worker 3: connect to 10.0.0.2 failed: Connection refused\n"
	if r := Run([]Input{{Name: "t.txt", Text: refused + "\n$ ibstat\n" + ibstat}}, Options{}); r.ExitCode != 0 {
		t.Errorf("ibstat beside a failure that ended nothing: exit %d, findings %+v; want HEALTHY", r.ExitCode, r.Findings)
	}
	died := refused + "mpirun noticed that process rank 0 with PID 29683 on node node15.cluster exited on signal 11 (Segmentation fault).\n"
	r = Run([]Input{{Name: "t.txt", Text: died + "\n$ ibstat\n" + ibstat}}, Options{})
	if r.ExitCode != 2 || len(r.Findings) != 1 || r.Findings[0].ID != "paste.failure_lines" || r.Findings[0].Severity != finding.Critical {
		t.Errorf("ibstat beside a job that died: exit %d, findings %+v; want one critical paste.failure_lines", r.ExitCode, r.Findings)
	}
	// Beside a critical finding of a judged output the lines add nothing:
	// that finding is the failure's cause or its consequence.
	down := strings.Replace(strings.Replace(ibstat, "State: Active", "State: Down", 1), "Physical state: LinkUp", "Physical state: Polling", 1)
	r = Run([]Input{{Name: "t.txt", Text: died + "\n$ ibstat\n" + down}}, Options{})
	if r.ExitCode != 2 || slices.ContainsFunc(r.Findings, func(f finding.Finding) bool { return f.ID == "paste.failure_lines" }) {
		t.Errorf("a down port beside a job that died: exit %d, findings %+v; want the port's critical finding alone", r.ExitCode, r.Findings)
	}
}

// TestStopLine: failure lines that say the failure ended the program, the
// connection or the device, and those that only report one.
func TestStopLine(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"Segmentation fault (core dumped)", true},
		{"srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", true},
		{"slurmstepd: *** STEP 1076409.0 ON nvb10 CANCELLED AT 2017-11-23T21:03:19 ***", true},
		{"terminate called after throwing an instance of 'std::runtime_error'", true},
		{"*ERROR*: CQ error, abort requests after transport retry counter exceeded", true},
		{"transport retry count exceeded on mlx5_0:1/IB", true},
		{"[nqn.2014-08.org.nvmexpress.discovery] in failed state.", true},
		{"mpirun noticed that process rank 3 exited on signal 6 (Aborted).", true},
		{"worker exited with exit code 1", true},
		{"worker exited with exit code -6", true},
		{"Fatal error in PMPI_Init: Other MPI error", true},
		{"OpenSM: bind failed, exiting", true},
		// Failures that were reported and survived, or a stop taken back.
		{"nvidia-nvswitch3: SXid (PCI:0000:07:00.0): 22013, Non-fatal, Link 55 Minion Link DLREQ interrupt", false},
		{"worker exited with exit code 0", false},
		{"connect to 10.0.0.2 failed: Connection refused", false},
		{"rdma_connect: Connection timed out", false},
		{"no abort was needed", false},
		{"abort_on_error=1", false},
		{"Failed to disconnect RDMA CM connection.", false},
	}
	for _, tt := range tests {
		if got := stopLine(tt.line); got != tt.want {
			t.Errorf("stopLine(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}
