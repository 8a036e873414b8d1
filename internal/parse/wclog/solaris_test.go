package wclog

import (
	"fmt"
	"strings"
	"testing"
)

// The Solaris hermon (mcxnex) driver's error completions
// (hermon_cq.c hermon_cq_errcqe_consume). The first three lines are
// from NVIDIA forum thread 207715 (analyze testdata/realworld-fresh37
// dmesg-nvforum207715-solaris-mcxnex-cqe-remote-access.txt, its README
// row; the forum turned the quotes around 'srpt' curly); the others are
// the same lines with another syndrome, as the driver prints them.
func TestHermonLines(t *testing.T) {
	const pre = "Mar 30 21:04:53 zfstgt-1 genunix: "
	client := pre + "[ID 937861 kern.info] mcxnex0: CQE ERR: IB Client \u2018srpt\u2019\n"
	cqe := pre + "[ID 204426 kern.warning] WARNING: mcxnex0: CQE ERR: cqe ffffa100fbff5fa0 QPN 0x40064 indx 0x1d81 status 0x13 vendor syndrome 0x88\n"
	words := pre + "[ID 158346 kern.info] mcxnex0: CQE remote access error\n"
	for _, tt := range []struct {
		name, text string
		want       []string // line status what syndrome vendor qpn host dev client
	}{
		// The syndrome 0x13 is the CQE's (HERMON_CQE_REM_ACC_ERR), the
		// ibv_wc_status 10, not the number 19 (fatal error).
		{"client, CQE and words: one error, status from the syndrome", client + cqe + words,
			[]string{"2 10 remote access error 0x13 0x88 0x40064 zfstgt-1 mcxnex0 srpt"}},
		{"the CQE line alone", cqe, []string{"1 10 remote access error 0x13 0x88 0x40064 zfstgt-1 mcxnex0 "}},
		{"a retry exhaustion (0x15) on hermon1, ASCII quotes", strings.ReplaceAll(client, "\u2018srpt\u2019", "'iser'") +
			strings.NewReplacer("status 0x13", "status 0x15", "mcxnex0", "hermon1").Replace(cqe),
			[]string{"2 12 transport retry counter exceeded 0x15 0x88 0x40064 zfstgt-1 hermon1 "}},
		// The words alone (the lines before cut from the paste).
		{"the words line alone", words, []string{"1 10 remote access error 0x0 0x0 0x0 zfstgt-1 mcxnex0 "}},
		{"words alone without syslog", "mcxnex2: CQE transport retry counter exceeded\n", []string{"1 12 transport retry counter exceeded 0x0 0x0 0x0  mcxnex2 "}},
		// A syndrome no table knows: the words name it.
		{"unknown syndrome, words after it", strings.Replace(cqe, "status 0x13", "status 0x99", 1) + words,
			[]string{"1 10 remote access error 0x99 0x88 0x40064 zfstgt-1 mcxnex0 "}},
		{"the words of another device do not join", cqe + strings.Replace(words, "mcxnex0", "mcxnex1", 1),
			[]string{"1 10 remote access error 0x13 0x88 0x40064 zfstgt-1 mcxnex0 ", "2 10 remote access error 0x0 0x0 0x0 zfstgt-1 mcxnex1 "}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lg, err := Parse(strings.NewReader(tt.text), "paste")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range lg.Errors {
				if e.Source != SourceHermon {
					t.Errorf("source %s", e.Source)
				}
				got = append(got, fmt.Sprintf("%d %d %s %#x %#x %#x %s %s %s", e.Line, int(e.Status), e.What, e.Syndrome, e.Vendor, e.QPN, e.Host, e.LocalNIC, e.Client))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestNotHermonLines: lines that only look like the driver's.
func TestNotHermonLines(t *testing.T) {
	for _, l := range []string{
		"foo0: CQE ERR: cqe ffffa100fbff5fa0 QPN 0x40064 indx 0x1d81 status 0x13 vendor syndrome 0x88",
		"mcxnex: CQE remote access error",
		"mcxnex0: CQE something else",
		"we saw mcxnex0: CQE remote access error yesterday",
		"mcxnex0: CQE ERR: cqe ffffa100fbff5fa0 QPN 0x40064",
	} {
		if HermonLine(l) {
			t.Errorf("HermonLine(%q)", l)
		}
	}
}
