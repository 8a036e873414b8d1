package catalog

import "github.com/ibdoctor/ibdoctor/internal/model/finding"

// Default is the catalogue of every finding ID ibdoctor can report.
var Default = finding.NewCatalog(nodeMetas, rdmaMetas, triageMetas, ncclMetas, ucxMetas, verbsMetas, mpiMetas, fabricMetas, routingMetas, jobMetas, perfMetas, hubMetas, mlxlinkMetas, toolErrMetas, serviceMetas)

// New is Default.New.
func New(id string, subj finding.Subject, summary string, ev ...finding.Evidence) finding.Finding {
	return Default.New(id, subj, summary, ev...)
}

// Fill recomputes a finding's remedies with values its subject does not
// hold, as placeholder/value pairs ("prio", "3").
func Fill(f *finding.Finding, kv ...string) { Default.Fill(f, kv...) }

// Sort orders findings by severity, then runbook step, then ID and subject.
func Sort(fs []finding.Finding) { finding.Sort(fs, Default.Step) }
