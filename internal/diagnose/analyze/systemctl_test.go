package analyze

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestSystemctlStatus: systemctl status of a running fabric manager
// (realworld-fresh52's Bottlerocket paste) is judged healthy, not "not
// judged"; a failed one is critical, and the kernel lines of the journal
// under a unit go to the kernel log reader.
func TestSystemctlStatus(t *testing.T) {
	b, err := os.ReadFile("testdata/realworld-fresh52/systemctl-bottlerocketkk142-nvl5-fabricmanager-active-gpu-probe-healthy.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := Run([]Input{{Name: "s.txt", Text: string(b)}}, Options{})
	if r.Verdict != "healthy" || r.ExitCode == 3 || len(r.Files[0].Segments) != 1 || r.Files[0].Segments[0].Kind != KindSystemctl {
		t.Fatalf("verdict %s (exit %d), segments %+v", r.Verdict, r.ExitCode, r.Files[0].Segments)
	}
	failed := `$ systemctl status nvidia-fabricmanager openibd
× nvidia-fabricmanager.service - NVIDIA fabric manager service
     Loaded: loaded (/lib/systemd/system/nvidia-fabricmanager.service; enabled; vendor preset: enabled)
     Active: failed (Result: exit-code) since Mon 2024-01-08 09:00:01 UTC; 2min ago
    Process: 4242 ExecStart=/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg (code=exited, status=1/FAILURE)

Jan 08 09:00:01 hgx01 nv-fabricmanager[4242]: fabric manager NVLink link training failed. Error:NV_ERR_GENERIC
Jan 08 09:00:01 hgx01 systemd[1]: nvidia-fabricmanager.service: Failed with result 'exit-code'.
Jan 08 09:00:01 hgx01 kernel: mlx5_core 0000:0c:00.0: mlx5_cmd_out_err:838:(pid 4242): QUERY_VPORT_COUNTER(0x770) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x5f3d3b), err(-22)
openibd.service - openibd - configure Mellanox devices
   Loaded: loaded (/usr/lib/systemd/system/openibd.service; enabled; vendor preset: disabled)
   Active: active (exited) since Mon 2024-01-08 08:59:01 UTC; 3min ago
$ ibstat -l
mlx5_0
`
	r = Run([]Input{{Name: "f.txt", Text: failed}}, Options{})
	segs := r.Files[0].Segments
	if len(segs) < 1 || segs[0].Kind != KindSystemctl || segs[0].End != 14 {
		t.Fatalf("segments %+v", segs)
	}
	var got []string
	for _, f := range segs[0].Findings {
		got = append(got, f.ID+"/"+string(f.Severity))
	}
	if !slices.Contains(got, "host.service_failed/critical") || r.Verdict != "critical" {
		t.Errorf("findings %v, verdict %s", got, r.Verdict)
	}
	if !strings.Contains(segs[0].Summary, "openibd.service active (exited)") {
		t.Errorf("summary %q", segs[0].Summary)
	}
	if !slices.Contains(got, "kmsg.mlx5_cmd_failed/warning") {
		t.Errorf("the journal's kernel line not judged: %v", got)
	}
	// The fabric manager exits with NV_WARN_NOTHING_TO_DO where there is
	// no NVSwitch: a note of severity info, not critical.
	r = Run([]Input{{Name: "n.txt", Text: strings.Replace(failed, "fabric manager NVLink link training failed. Error:NV_ERR_GENERIC", "request to query NVSwitch device information from NVSwitch driver failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]", 1)}}, Options{})
	fs := r.Files[0].Segments[0].Findings
	i := slices.IndexFunc(fs, func(f finding.Finding) bool { return f.ID == "host.service_failed" })
	if i < 0 || fs[i].Severity != finding.Info || !strings.Contains(fs[i].Summary, "no NVSwitch") {
		t.Errorf("nothing to do: %+v", fs)
	}
}
