package analyze

import (
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
)

// TestKnownFailureLines: failure lines whose program is known get their
// own finding, not the generic paste.failure_lines: MLNX_EN's init script
// failing to load rdma_cm/rdma_ucm (realworld-fresh72), GPFS shutting its
// verbs RDMA down. A failed step of another module stays generic.
func TestKnownFailureLines(t *testing.T) {
	for _, tc := range []struct {
		name, text, id string
		sev            finding.Severity
	}{
		{"mlnx-en.d restart", "# /etc/init.d/mlnx-en.d restart\nUnloading HCA driver:                                      [  OK  ]\nLoading HCA driver and Access Layer:                       [  OK  ]\nModule rdma_cm belong to kernel which is not a part of MLNX[FAILED]kipping...\nLoading rdma_ucm                                           [FAILED]\n",
			"kmsg.module_load_failed", finding.Critical},
		{"openibd HCA driver", "Loading HCA driver and Access Layer:                       [FAILED]\n", "kmsg.module_load_failed", finding.Critical},
		{"GPFS verbs shutdown", "Mon Jan  8 09:00:01.123 2024: [E] VERBS RDMA Shutdown because pagepool could not be registered to Infiniband.\nVERBS RDMA Try increasing Infiniband device MTTs or reducing pagepool size.\n",
			"rdma.transport_unavailable", finding.Critical},
		{"another service", "Starting httpd:                                            [FAILED]\n", "paste.failure_lines", finding.Warning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Run([]Input{{Name: "k.txt", Text: tc.text}}, Options{})
			var got []string
			for _, s := range r.Files[0].Segments {
				for _, f := range s.Findings {
					got = append(got, f.ID)
					if f.ID == tc.id && f.Severity == tc.sev {
						return
					}
				}
			}
			t.Fatalf("findings %v (verdict %s), want %s at %s", got, r.Verdict, tc.id, tc.sev)
		})
	}
}

// TestIfconfigKind: ifconfig output is read; an IPoIB interface up and
// running is healthy, an Ethernet-only listing is not judged.
func TestIfconfigKind(t *testing.T) {
	ok := "ib0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 2044\n        inet 172.16.1.9  netmask 255.255.0.0  broadcast 172.16.255.255\n"
	r := Run([]Input{{Name: "i.txt", Text: ok}}, Options{})
	if r.Verdict != "healthy" || r.Files[0].Segments[0].Kind != KindIfconfig {
		t.Fatalf("verdict %s, segments %+v", r.Verdict, r.Files[0].Segments)
	}
	eth := "eth0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500\n        inet 10.0.0.4  netmask 255.255.255.0  broadcast 10.0.0.255\n"
	if r := Run([]Input{{Name: "e.txt", Text: eth}}, Options{}); r.ExitCode != 3 {
		t.Fatalf("Ethernet only: verdict %s (exit %d), want not judged", r.Verdict, r.ExitCode)
	}
}

// TestVerifyTopologyBadLink: Exadata's verify-topology "Bad link" with a
// 2.5 Gbps reason (realworld-fresh72) is a critical fabric.link_degraded.
func TestVerifyTopologyBadLink(t *testing.T) {
	in := "[ DB Machine Infiniband Cabling Topology Verification Tool ]\n\nBad link:Switch 0x21283a8371a0a0 Port 11A - Sun Port 11B\n        Reason : 2.5 Gbps Speed found. Could be 10 Gbps\n        Possible cause : Cable isn't fully seated in\n\nIs every external switch connected to every internal switch..........[SUCCESS]\n"
	r := Run([]Input{{Name: "v.txt", Text: in}}, Options{})
	for _, s := range r.Files[0].Segments {
		for _, f := range s.Findings {
			if f.ID == "fabric.link_degraded" && f.Severity == finding.Critical {
				return
			}
		}
	}
	t.Fatalf("verdict %s, segments %+v", r.Verdict, r.Files[0].Segments)
}
