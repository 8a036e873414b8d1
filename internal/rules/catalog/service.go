package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// serviceMetas are the catalogue entries of the system services an RDMA or
// GPU node runs (`systemctl status` pasted).
var serviceMetas = []finding.Meta{
	{
		ID: "host.service_failed", Severity: finding.Warning, Area: "host", Step: finding.StepHost,
		Title:   "RDMA or GPU service not running",
		Meaning: "systemctl status shows a unit an RDMA or GPU node depends on failed (Active: failed), restarting after failures (activating (auto-restart)) or stopped (inactive (dead)). The fabric manager (nvidia-fabricmanager) sets up the NVSwitches of an HGX system: while it is down, CUDA initialisation fails on the GPUs (cudaErrorSystemNotReady), so no job runs (critical). A failed OpenSM leaves the subnet without a master when it was its only subnet manager; nvidia-persistenced, DCGM, openibd/rdma, ibacm, srp_daemon and the peer-memory module's service each take one function away (warning).",
		Causes: []string{
			"the daemon exited with an error at start (configuration, a version that does not match the driver, a device it needs missing)",
			"the unit was stopped or never enabled",
			"a dependency (kernel module, device) not present at boot",
		},
		Remedy: []string{
			"systemctl status <unit> for the exit status, then journalctl -u <unit> -b for the daemon's last messages",
			"for the fabric manager: check that its version matches the driver (the driver version nvidia-smi prints, the fabric manager package version) and read /var/log/fabricmanager.log",
			"fix the cause, then systemctl restart <unit> and systemctl enable <unit> if it should start at boot",
		},
	},
}
