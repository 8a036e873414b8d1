package systemctl

import (
	"errors"
	"strings"
	"testing"
)

// The head and field lines of real systemctl status outputs: systemd 252
// (Bottlerocket's fabric manager), systemd 219 (CentOS 7, opensm failed),
// older releases without the bullet, and a unit restarting after failures.
const running = `bash-5.1# systemctl status nvidia-fabricmanager
● nvidia-fabricmanager.service - NVIDIA fabric manager service
     Loaded: loaded (/usr/lib/systemd/system/nvidia-fabricmanager.service; enabled; preset: enabled)
     Active: active (running) since Fri 2025-05-16 15:10:10 UTC; 13min ago
   Main PID: 29850 (nv-fabricmanage)
     CGroup: /system.slice/nvidia-fabricmanager.service
             └─29850 /usr/bin/nv-fabricmanager -c /etc/nvidia/fabricmanager.cfg

May 16 15:10:22 ip-192-168-38-187 nv-fabricmanager[29850]: [INFO] GPU probe request received
`

const failed = `● opensm.service - OpenSM
   Loaded: loaded (/usr/lib/systemd/system/opensm.service; enabled; vendor preset: disabled)
   Active: failed (Result: exit-code) since Tue 2019-03-05 10:11:12 CET; 5s ago
  Process: 1234 ExecStart=/usr/libexec/opensm-launch (code=exited, status=1/FAILURE)
 Main PID: 1234 (code=exited, status=1/FAILURE)

Mar 05 10:11:12 node1 systemd[1]: opensm.service: main process exited, code=exited, status=1/FAILURE
Mar 05 10:11:12 node1 systemd[1]: Unit opensm.service entered failed state.
opensm.service - LSB: Start opensm
   Loaded: loaded (/etc/rc.d/init.d/opensmd)
   Active: inactive (dead)
× nvidia-fabricmanager.service - NVIDIA fabric manager service
     Loaded: loaded (/lib/systemd/system/nvidia-fabricmanager.service; enabled; vendor preset: enabled)
     Active: activating (auto-restart) (Result: exit-code) since Mon 2024-01-08 09:00:01 UTC; 2s ago
`

func TestParse(t *testing.T) {
	us, err := Parse(strings.NewReader(running), "r.txt")
	if err != nil || len(us) != 1 {
		t.Fatalf("units %+v, err %v", us, err)
	}
	u := us[0]
	if u.Name != "nvidia-fabricmanager.service" || u.State != "active" || u.Sub != "running" || !u.Healthy() || u.Active.N != 4 || len(u.Journal) != 1 || u.Journal[0].N != 9 {
		t.Errorf("unit %+v", u)
	}
	us, err = Parse(strings.NewReader(failed), "f.txt")
	if err != nil || len(us) != 3 {
		t.Fatalf("units %+v, err %v", us, err)
	}
	for i, want := range []struct {
		name, state, sub, result string
		failed                   bool
		journal                  int
	}{
		{"opensm.service", "failed", "", "exit-code", true, 2},
		{"opensm.service", "inactive", "dead", "", false, 0},
		{"nvidia-fabricmanager.service", "activating", "auto-restart", "exit-code", true, 0},
	} {
		u := us[i]
		if u.Name != want.name || u.State != want.state || u.Sub != want.sub || u.Result != want.result || u.Failed() != want.failed || len(u.Journal) != want.journal {
			t.Errorf("unit %d: %+v, want %+v", i, u, want)
		}
	}
	if us[0].Exit != "1234 (code=exited, status=1/FAILURE)" {
		t.Errorf("exit %q", us[0].Exit)
	}
}

func TestHeadLine(t *testing.T) {
	for _, c := range []struct {
		l    string
		ok   bool
		name string
	}{
		{"● rdma-ndd.service - RDMA Node Description Daemon", true, "rdma-ndd.service"},
		{"○ ibacm.service - InfiniBand Address Cache Manager Daemon", true, "ibacm.service"},
		{"openibd.service - openibd - configure Mellanox devices", true, "openibd.service"},
		{"Mar 05 10:11:12 node1 systemd[1]: Starting OpenSM - the subnet manager", false, ""},
		{"CA 'mlx5_0' - x", false, ""},
	} {
		name, _, ok := HeadLine(c.l)
		if ok != c.ok || name != c.name {
			t.Errorf("HeadLine(%q) = %q %v", c.l, name, ok)
		}
	}
}

func TestParseNoUnit(t *testing.T) {
	_, err := Parse(strings.NewReader("Active: failed\n"), "x.txt")
	if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "x.txt") {
		t.Errorf("err %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(running)
	f.Add(failed)
	f.Add("● a.service - b\n Loaded:\n Active: (\n")
	f.Fuzz(func(t *testing.T, s string) {
		us, err := Parse(strings.NewReader(s), "fuzz")
		if err == nil && len(us) == 0 {
			t.Fatal("no unit and no error")
		}
	})
}
