package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// Runbook steps (SEED-DIGEST "Fixed triage order"), used to rank doctor
// output after severity.
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

// Default is the catalogue of every finding ID ibdoctor can report.
var Default = finding.NewCatalog(nodeMetas, rdmaMetas, triageMetas, ncclMetas, fabricMetas, routingMetas, perfMetas)

// New is Default.New.
func New(id string, subj finding.Subject, summary string, ev ...finding.Evidence) finding.Finding {
	return Default.New(id, subj, summary, ev...)
}

// Fill recomputes a finding's remedies with values its subject does not
// hold, as placeholder/value pairs ("prio", "3").
func Fill(f *finding.Finding, kv ...string) { Default.Fill(f, kv...) }

// Sort orders findings by severity, then runbook step, then ID and subject.
func Sort(fs []finding.Finding) { finding.Sort(fs, Default.Step) }
