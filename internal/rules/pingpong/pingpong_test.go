package pingpong

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/pingpong"
)

func TestCheck(t *testing.T) {
	real := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "parse", "pingpong", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	addr := "  local address:  LID 0x0004, QPN 0x00004e, PSN 0x2b5d1c, GID ::\n  remote address: LID 0x0003, QPN 0x00004c, PSN 0x0c5c60, GID ::\n"
	for _, tc := range []struct {
		name, in string
		want     []string
		ok       int
	}{
		{"real: three RoCE runs with the wrong GID index", real("rc-roce-gid-retry-exceeded.txt"), []string{"verbs.completion_error/critical", "perf.test_invalid/warning", "perf.test_invalid/warning"}, 0},
		{"real: GID index 3 works", real("rc-roce-gid3-ok.txt"), nil, 1},
		{"IB run ok", addr + "8192000 bytes in 0.01 seconds = 7530.18 Mbit/sec\n1000 iters in 0.01 seconds = 8.70 usec/iter\n", nil, 1},
		// github.com/linux-rdma/opensm issue: NDR fabric, IB (GID ::).
		{"transport retry exceeded is a completion error", "  local address:  LID 0x0013, QPN 0x000063, PSN 0x566748, GID ::\n  remote address: LID 0x0001, QPN 0x000048, PSN 0xdf4fa4, GID ::\nFailed status transport retry counter exceeded (12) for wr_id 2\nparse WC failed 1\n", []string{"verbs.completion_error/critical"}, 0},
		{"RNR retry exceeded", addr + "Failed status RNR retry counter exceeded (13) for wr_id 2\nparse WC failed 1\n", []string{"verbs.completion_error/critical"}, 0},
		{"local protection error is the test's setup", addr + "Failed status local protection error (4) for wr_id 1\n", []string{"perf.test_invalid/warning"}, 0},
		// realworld-fresh19, github.com/SoftRoCE/rxe-dev/issues/47: rxe0
		// in two VMs, -g 0, then "**--Hang--**".
		{"hang after link-local RoCE addresses", "[root@test]# ibv_rc_pingpong -d rxe0 -g 0 <Peer IP>\n  local address:  LID 0x0000, QPN 0x000011, PSN 0x017d96, GID fe80::5054:ff:fe6c:16f1\n  remote address: LID 0x0000, QPN 0x000011, PSN 0xd7af63, GID fe80::5054:ff:fead:b03\n**--Hang--**\n",
			[]string{"perf.test_invalid/warning"}, 0},
		{"hang on IB, addresses only", addr, []string{"perf.test_invalid/warning"}, 0},
		{"only the local address: the server still waits", "  local address:  LID 0x0004, QPN 0x00004e, PSN 0x2b5d1c, GID ::\n", nil, 0},
		{"an old perftest's address lines carry no GID", "  local address:  LID 0x02, QPN 0x70004b, PSN 0xc14da8\n  remote address: LID 0x0b, QPN 0x28004c, PSN 0xfaa100\n", nil, 0},
		{"QP not brought up", "  local address:  LID 0x0004, QPN 0x00004e, PSN 0x2b5d1c, GID ::\nFailed to modify QP to RTR\nCouldn't connect to remote QP\n", []string{"verbs.qp_setup_failed/critical"}, 0},
		// realworld-fresh60: siw (iWARP), whose QPs only rdma_cm connects.
		{"QP not moved to RTS", "ibv_rc_pingpong -d iwp____\n  local address:  LID 0x0000, QPN 0x000001, PSN 0x5bc4d1, GID 0a1e:0ad3::\n  remote address: LID 0x0000, QPN 0x000001, PSN 0x2d8c03, GID 0a1e:0ad2::\nFailed to modify QP to RTS\nCouldn't connect to remote QP\n", []string{"verbs.qp_setup_failed/critical"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := pingpong.Parse(strings.NewReader(tc.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			r := Check(res, "p.txt")
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.ID+"/"+string(f.Severity))
			}
			if !slices.Equal(got, tc.want) || r.OK != tc.ok {
				t.Errorf("findings %v ok %d, want %v %d", got, r.OK, tc.want, tc.ok)
			}
			if strings.Contains(tc.name, "link-local") {
				s := r.Findings[0].Summary
				if !strings.Contains(s, "did not complete") || !strings.Contains(s, "link-local") || !strings.Contains(s, "::ffff:") {
					t.Errorf("summary: %s", s)
				}
			} else if strings.HasPrefix(tc.name, "hang") && strings.Contains(r.Findings[0].Summary, "link-local") {
				t.Errorf("IB GIDs called link-local RoCE: %s", r.Findings[0].Summary)
			}
		})
	}
}

// A run that printed "Failed to modify QP to RTR" gets the causes
// ibv_modify_qp to RTR rejects (GID index, port, MTU) and -g/-m steps, not
// a completion error's; the link-local GID it used is named. From
// linux-rdma "Re: rdma_rxe usage problem" (2022-01-19, analyze
// testdata/realworld-fresh22): rxe0 on a Wi-Fi netdev, -g 0.
func TestModifyQPToRTR(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"GID wrapped by the mail", ">> ibv_rc_pingpong -d rxe0 -g 0\n   local address:  LID 0x0000, QPN 0x000015, PSN 0x015dd8, GID\n fe80::4a51:c5ff:fef6:e159\n Failed to modify QP to RTR\n Couldn't connect to remote QP\n", "failed before any traffic; nothing"},
		{"link-local GID on the line", "ibv_rc_pingpong -d rxe0 -g 0\n  local address:  LID 0x0000, QPN 0x000015, PSN 0x015dd8, GID fe80::4a51:c5ff:fef6:e159\nFailed to modify QP to RTR\nCouldn't connect to remote QP\n", "link-local GID fe80::4a51:c5ff:fef6:e159"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := pingpong.Parse(strings.NewReader(tc.in), "p.txt")
			if err != nil {
				t.Fatal(err)
			}
			fs := Check(res, "p.txt").Findings
			if len(fs) != 1 || fs[0].ID != "verbs.qp_setup_failed" || fs[0].Severity != finding.Critical {
				t.Fatalf("findings %+v", fs)
			}
			f := fs[0]
			if !strings.Contains(f.Summary, "RTR (Ready To Receive)") || !strings.Contains(f.Summary, tc.want) {
				t.Errorf("summary %q, want %q", f.Summary, tc.want)
			}
			c, r := strings.Join(f.Causes, " | "), strings.Join(f.Remedy, " | ")
			if !strings.Contains(c, "GID index (-g)") || !strings.Contains(c, "MTU") || strings.Contains(c, "completion error") {
				t.Errorf("causes %q", c)
			}
			if !strings.Contains(r, "show_gids") || !strings.Contains(r, "-g ") || strings.Contains(r, "ib_write") {
				t.Errorf("remedy %q", r)
			}
		})
	}
}
