package finding

// Runbook steps: the fixed order in which a node is triaged, used to rank
// findings after severity (Meta.Step) and to name the parts of the doctor's
// report. The node's own sources are read in steps 1–6; the fabric and the
// performance tests come after.
const (
	StepPort      = 1 // end-to-end port state and counters
	StepPCIe      = 2 // PCIe and GPU topology
	StepKernelLog = 3 // driver and kernel logs
	StepHost      = 4 // memory and registration limits
	StepNCCL      = 5 // NCCL configuration
	StepContainer = 6 // container device access
	StepFabric    = 7 // subnet-wide
	StepPerf      = 8 // performance tests
)
