package kmsg

import (
	"fmt"
	"strings"
	"testing"
)

// TestSolarisSyslog: Solaris syslog keeps the kernel's lines under the
// module that logged them with a message id and facility tag ("genunix:
// [ID 204426 kern.warning] …"); they are kernel records (priority from
// the level, the tag cut), other facilities' lines are not. The lines are
// from NVIDIA forum thread 207715 (analyze testdata/realworld-fresh37
// dmesg-nvforum207715-solaris-mcxnex-cqe-remote-access.txt, its README row).
func TestSolarisSyslog(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       []string // priority text
	}{
		{"kernel lines of the mcxnex driver", "Mar 30 21:04:53 zfstgt-1 genunix: [ID 937861 kern.info] mcxnex0: CQE ERR: IB Client 'srpt'\n" +
			"Mar 30 21:04:53 zfstgt-1 genunix: [ID 204426 kern.warning] WARNING: mcxnex0: CQE ERR: cqe ffffa100fbff5fa0 QPN 0x40064 indx 0x1d81 status 0x13 vendor syndrome 0x88\n",
			[]string{"6 mcxnex0: CQE ERR: IB Client 'srpt'", "4 WARNING: mcxnex0: CQE ERR: cqe ffffa100fbff5fa0 QPN 0x40064 indx 0x1d81 status 0x13 vendor syndrome 0x88"}},
		{"another facility: not the kernel's", "Mar 30 21:05:00 zfstgt-1 sshd[123]: [ID 800047 auth.info] Accepted publickey for root\n" +
			"Mar 30 21:05:01 zfstgt-1 genunix: [ID 1 kern.bogus] x\nMar 30 21:05:02 zfstgt-1 unix: [ID 836849 kern.notice] NOTICE: mcxnex0: link up\n",
			[]string{"5 NOTICE: mcxnex0: link up"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseText(strings.NewReader(tt.text), "messages", TextOptions{Year: 2016})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range l.Records {
				got = append(got, fmt.Sprintf("%d %s", r.Priority, r.Text))
				if r.Time.IsZero() {
					t.Errorf("no time: %q", r.Text)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
