package host

import (
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/systemctl"
)

func TestCheckServices(t *testing.T) {
	text := `● nvidia-fabricmanager.service - NVIDIA fabric manager service
     Loaded: loaded (/lib/systemd/system/nvidia-fabricmanager.service; enabled; vendor preset: enabled)
     Active: failed (Result: exit-code) since Mon 2024-01-08 09:00:01 UTC; 2min ago
   Main PID: 4242 (code=exited, status=1/FAILURE)
● opensm.service - OpenSM
   Loaded: loaded (/usr/lib/systemd/system/opensm.service; enabled; vendor preset: disabled)
   Active: activating (auto-restart) (Result: exit-code) since Tue 2019-03-05 10:11:12 CET; 5s ago
● nvidia-persistenced.service - NVIDIA Persistence Daemon
   Loaded: loaded (/lib/systemd/system/nvidia-persistenced.service; enabled; vendor preset: enabled)
   Active: active (running) since Tue 2019-03-05 10:11:12 CET; 5s ago
● sshd.service - OpenSSH server daemon
   Loaded: loaded (/usr/lib/systemd/system/sshd.service; enabled; vendor preset: enabled)
   Active: failed (Result: exit-code) since Tue 2019-03-05 10:11:12 CET; 5s ago
○ nvidia-dcgm.service - NVIDIA DCGM service
     Loaded: loaded (/usr/lib/systemd/system/nvidia-dcgm.service; disabled; vendor preset: enabled)
     Active: inactive (dead)
`
	us, err := systemctl.Parse(strings.NewReader(text), "s.txt")
	if err != nil {
		t.Fatal(err)
	}
	fs, notes := CheckServices(us, "s.txt")
	var got []string
	for _, f := range fs {
		got = append(got, f.ID+"/"+string(f.Severity)+" "+f.Evidence[0].Source)
	}
	want := []string{"host.service_failed/critical s.txt:3", "host.service_failed/warning s.txt:7", "host.service_failed/warning s.txt:16"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("findings %v, want %v", got, want)
	}
	if !strings.Contains(fs[0].Summary, "cannot run CUDA jobs") || !strings.Contains(fs[0].Summary, "status=1/FAILURE") {
		t.Errorf("summary %q", fs[0].Summary)
	}
	if !strings.Contains(fs[1].Summary, "keeps failing and restarting") {
		t.Errorf("summary %q", fs[1].Summary)
	}
	if fs[2].Severity != finding.Warning || !strings.Contains(fs[2].Summary, "is stopped") {
		t.Errorf("stopped DCGM: %+v", fs[2])
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "sshd.service is failed: not a unit of the RDMA or GPU stack") {
		t.Errorf("notes %q", notes)
	}
}
