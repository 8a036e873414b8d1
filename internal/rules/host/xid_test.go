package host

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// TestXidSeverity pins the severity of the Xids seen most, as NVIDIA's
// Xid catalog (docs.nvidia.com/deploy/xid-errors) sets their immediate
// action: RESTART_APP after an application fault that stopped its process
// is a warning (a job died), a GPU reset or node drain is critical.
func TestXidSeverity(t *testing.T) {
	tests := []struct {
		code int
		want finding.Severity
	}{
		{13, finding.Warning},  // graphics engine exception: the process was stopped
		{31, finding.Warning},  // MMU fault: the process was killed
		{43, finding.Warning},  // GPU stopped processing: the process had to end
		{45, finding.Info},     // preemptive cleanup after a killed process
		{63, finding.Info},     // row remap recorded
		{92, finding.Info},     // single-bit ECC interrupts
		{32, finding.Warning},  // push buffer corrupted
		{48, finding.Critical}, // double-bit ECC
		{79, finding.Critical}, // fallen off the bus
		{119, finding.Critical},
		{149, finding.Warning}, // NVLink unit error, critical only when Fatal
		{999, finding.Warning}, // unknown code
	}
	for _, tt := range tests {
		if got := LookupXid(tt.code).Severity; got != tt.want {
			t.Errorf("Xid %d severity = %s, want %s", tt.code, got, tt.want)
		}
	}
}

// TestXidCatalogProseMatchesTable: the gpu.xid catalogue text names codes
// per severity; each must be the table's severity, so the table stays the
// one place severities are decided.
func TestXidCatalogProseMatchesTable(t *testing.T) {
	m, ok := catalog.Default.Lookup("gpu.xid")
	if !ok {
		t.Fatal("gpu.xid not in the catalogue")
	}
	num := regexp.MustCompile(`\b\d{2,3}\b`)
	checked := 0
	for _, clause := range strings.Split(m.Meaning, ";") {
		var want finding.Severity
		switch {
		case strings.Contains(clause, "critical"):
			want = finding.Critical
		case strings.Contains(clause, "warning"):
			want = finding.Warning
		case strings.Contains(clause, "info"):
			want = finding.Info
		default:
			continue
		}
		for _, n := range num.FindAllString(clause, -1) {
			code, _ := strconv.Atoi(n)
			checked++
			if got := LookupXid(code).Severity; got != want {
				t.Errorf("catalogue says Xid %d is %s (%q), table says %s", code, want, strings.TrimSpace(clause), got)
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d codes found in the gpu.xid text %q", checked, m.Meaning)
	}
}
