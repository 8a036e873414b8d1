package analyze

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// A paste rarely holds a tool's output as the tool printed it: a mail
// client quotes it ("> > > "), a launcher labels every line ("0: ",
// "[1,0]<stdout>:"), a log viewer numbers it ("[80746] "), a collector
// stamps it ("2025-02-18 12:54:01 "), a markdown list or code block
// indents it, a C comment or a unified diff wraps it. normalize takes
// such wrappers off whole lines before any output is recognised. A paste
// site or code viewer numbers every line ("  1. ", "12 | ", cat -n's
// "    12\t"), a markdown list turns every line into an item ("- "). It
// never adds or removes a line, so every line keeps its number in the
// file and evidence names the line people see.

// Rewrite says what normalize took off which lines.
type Rewrite struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	What  string `json:"what"`
}

// minPrefixRun is how many lines in a row must carry a prefix before it is
// taken as a wrapper: one line that happens to start with "> " or "[3] "
// is that line's text.
const minPrefixRun = 2

// prefixClass is one kind of wrapper put in front of every line.
type prefixClass struct {
	name string
	// min is the run length below which the prefix is kept (0:
	// minPrefixRun).
	min int
	// match returns the length of the prefix on l, -1 when l does not
	// carry it. A line that is the bare prefix ("> >", " *") carries it.
	match func(l string) int
}

var (
	reQuote  = regexp.MustCompile(`^ {0,3}>(?: ?>)* ?`)
	reMPITag = regexp.MustCompile(`^\s*\[?\[\d+,\d+\]<(?:stdout|stderr|stddiag)>:`) // (a stray "[" pasted before the first: horovod/horovod#969)
	// reRayTag: Ray's per-worker log prefix, "(pid=1234) ", "(pid=1234,
	// ip=10.0.0.2) ", "(MyActor pid=1234, ip=10.0.0.2) ", "(raylet) "
	// (ray/_private/worker.py print_worker_logs), and SkyPilot's
	// "(head, rank=0, pid=3388) ", "(worker1, rank=1, pid=2291, ip=…) ".
	reRayTag   = regexp.MustCompile(`^\s*\((?:(?:[A-Za-z_][\w.:-]*(?:, rank=\d{1,6},| rank=\d{1,6},|,)? )?(?:rank=\d{1,6}, )?pid=\d{1,9}(?:, ip=[0-9A-Fa-f.:]{3,45})?|raylet(?:, ip=[0-9A-Fa-f.:]{3,45})?)\)(?: |$)`)
	reSrun     = regexp.MustCompile(`^ {0,4}\d{1,5}: `)
	reBracket  = regexp.MustCompile(`^\s*\[(?:\d{1,9}|rank\s?\d{1,7})\](?:: ?| |$)`)
	reComment  = regexp.MustCompile(`^[ \t]+\*(?: |\t|$)`)
	reStamp    = regexp.MustCompile(`^\s*\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\]?(?: \|)?(?: |\t|$)`)
	reSyslogTo = regexp.MustCompile(`^[\w.-]+ (?:kernel|[\w./-]+\[\d+\]): `)
	reBullet   = regexp.MustCompile(`^[-*+] (?:$|[^-*+ ])`)
	// reLineNo: a number, then ". ", ":", " | ", a tab or the end; or glued
	// to a kernel log stamp, with at most one space ("1700[   22.316553]",
	// "1701 [   22.325345]": an editor's line numbers on a dmesg grep), the
	// "[" (group 2 ends before it) left to the line.
	reLineNo = regexp.MustCompile(`^[ \t]{0,8}(\d{1,7})(?:\.(?:[ \t]|$)|:[ \t]?|[ \t]*\|[ \t]?|\t|$|( ?)\[[ \t]*\d+\.\d+\])`)
)

var prefixClasses = []prefixClass{
	{name: "mail or markdown quoting", match: func(l string) int {
		m := reQuote.FindString(l)
		if m == "" {
			return -1
		}
		// ">>> " is also Python's prompt: three markers quote only a
		// kernel log line; four or more are a mail quoted that deep.
		if strings.HasPrefix(l, ">>>") && l != ">>>" && !strings.HasPrefix(l, ">>>>") && !kmsg.DetectLine(l[len(m):]) {
			return -1
		}
		return len(m)
	}},
	{name: "mpirun --tag-output labels", match: func(l string) int {
		return len(reMPITag.FindString(l)) - boolInt(!reMPITag.MatchString(l))
	}},
	{name: "Ray or SkyPilot worker labels", match: func(l string) int {
		return len(reRayTag.FindString(l)) - boolInt(!reRayTag.MatchString(l))
	}},
	{name: "srun --label rank labels", min: 3, match: func(l string) int {
		return len(reSrun.FindString(l)) - boolInt(!reSrun.MatchString(l))
	}},
	{name: "rank or line-number labels", match: func(l string) int {
		m := reBracket.FindString(l)
		if m == "" {
			return -1
		}
		// ibnetdiscover's port lines start `[1]	"S-…"[3]`: the
		// port number is data.
		if r := strings.TrimLeft(l[len(m):], " \t"); strings.HasPrefix(r, `"`) || strings.HasPrefix(r, "(") {
			return -1
		}
		return len(m)
	}},
	{name: "markdown list bullets", min: 3, match: func(l string) int {
		// "- " or "* " then text: a list item. "-E- " (ibdiagnet),
		// "* * *" rules and "- - -" stay.
		if !reBullet.MatchString(l) {
			if l == "-" || l == "*" || l == "+" {
				return 1
			}
			return -1
		}
		return 2
	}},
	{name: "C comment markers", min: 3, match: func(l string) int {
		return len(reComment.FindString(l)) - boolInt(!reComment.MatchString(l))
	}},
	{name: "shell comment markers before kernel log lines", match: func(l string) int {
		// A dmesg pasted into a mail as "# [  134.041117] …", the way
		// a shell session's output is set apart: only before a kernel
		// log stamp, so "# " of a comment or a root prompt stays.
		if !strings.HasPrefix(l, "# [") || !kmsg.DetectLine(l[2:]) {
			return -1
		}
		return 2
	}},
	{name: "log collector timestamps", match: func(l string) int {
		m := reStamp.FindString(l)
		if m == "" {
			return -1
		}
		// A journal or syslog line ("… host kernel: msg") and dmesg
		// --time-format iso stamp the record themselves: the stamp is
		// the record's time.
		rest := l[len(m):]
		if reSyslogTo.MatchString(rest) || kmsg.DetectLine(l) && !strings.HasPrefix(rest, "[") {
			return -1
		}
		return len(m)
	}},
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// normalize returns ls with the wrappers of whole lines taken off and a
// note per run of lines it rewrote. ls is not changed.
func normalize(ls []string) ([]string, []Rewrite) {
	out := make([]string, len(ls))
	copy(out, ls)
	var rw []Rewrite
	rw = append(rw, unArchiveHTML(out)...)
	rw = append(rw, unDiff(out)...)
	rw = append(rw, unCellEnds(out)...)
	// Wrappers nest (a quoted mail of a tagged mpirun output): peel
	// until nothing changes. A lazy markdown quote, and a quoted-printable
	// body quoted again by a reply or tagged by a launcher, show only once
	// the wrappers around them are off.
	for round := 0; round < 4; round++ {
		changed := false
		if r := unQuotedPrintable(out); len(r) > 0 {
			changed = true
			rw = append(rw, r...)
		}
		if r := unLazyQuote(out); len(r) > 0 {
			changed = true
			rw = append(rw, r...)
		}
		if r := unPaneBorders(out); len(r) > 0 {
			changed = true
			rw = append(rw, r...)
		}
		for _, c := range prefixClasses {
			r := stripRuns(out, c)
			changed = changed || len(r) > 0
			rw = append(rw, r...)
		}
		if r := unNumber(out); len(r) > 0 {
			changed = true
			rw = append(rw, r...)
		}
		if r := unIndent(out); len(r) > 0 {
			changed = true
			rw = append(rw, r...)
		}
		if !changed {
			break
		}
	}
	// Backticks last: a fence is only seen once its quoting is off.
	rw = append(rw, unBacktick(out)...)
	return out, rw
}

// stripRuns takes c's prefix off every run of lines most of which carry
// it, at least c.min of them: blank lines inside a run neither break nor
// count, and a line without the prefix (a "..." where the poster cut,
// a line the mail client wrapped) is kept as it is without ending the
// run; two such lines in a row do.
func stripRuns(ls []string, c prefixClass) []Rewrite {
	minRun := c.min
	if minRun == 0 {
		minRun = minPrefixRun
	}
	var rw []Rewrite
	start, last, carried, other, gap := -1, -1, 0, 0, 0
	flush := func() {
		if start >= 0 && carried >= minRun && carried > other {
			for i := start; i <= last; i++ {
				if n := c.match(ls[i]); n >= 0 {
					ls[i] = ls[i][n:]
				}
			}
			rw = append(rw, Rewrite{Start: start + 1, End: last + 1, What: c.name})
		}
		start, last, carried, other, gap = -1, -1, 0, 0, 0
	}
	// A paste every line of which carries the prefix is wrapped whole,
	// however short (but "1: first" is a list, " * x" a bullet: the
	// classes with a higher minimum keep it).
	all, nonBlank := 0, 0
	for _, l := range ls {
		if strings.TrimSpace(l) != "" {
			nonBlank++
			if c.match(l) >= 0 {
				all++
			}
		}
	}
	if all > 0 && all == nonBlank && c.min == 0 {
		minRun = 1
	}
	for i, l := range ls {
		switch {
		case strings.TrimSpace(l) == "":
			// A blank line neither breaks a run nor counts.
		case c.match(l) >= 0:
			if start < 0 {
				start = i
			}
			last = i
			carried++
			other += gap
			gap = 0
		case start >= 0:
			gap++
			if gap == 2 {
				flush()
			}
		}
	}
	flush()
	return rw
}

// minNumberedRun is how many consecutively numbered lines make a paste
// site's or code viewer's line numbers: a numbered list of two steps is
// prose.
const minNumberedRun = 3

// unNumber takes off the line numbers a paste site, a code viewer or
// `cat -n`/`grep -n` put in front of every line: runs of at least
// minNumberedRun lines numbered N, N+1, N+2… (a blank line numbered too,
// "19. "). One unnumbered line inside a run (the viewer wrapped a long
// line) stays as it is without ending it. Counting up by one is what
// tells the numbers from data: srun labels repeat, nccl-tests sizes
// double, perftest rows jump.
func unNumber(ls []string) []Rewrite {
	var rw []Rewrite
	num := func(l string) (int, int) {
		if l == "" || (l[0] > '9' && l[0] != ' ' && l[0] != '\t') {
			return -1, 0 // cannot start with a number: no regexp
		}
		m := reLineNo.FindStringSubmatchIndex(l)
		if m == nil {
			return -1, 0
		}
		n := 0
		for _, c := range l[m[2]:m[3]] {
			n = n*10 + int(c-'0')
		}
		if m[5] >= 0 {
			return n, m[5] // glued to a stamp: the stamp stays
		}
		return n, m[1]
	}
	i := 0
	for i < len(ls) {
		n, _ := num(ls[i])
		if n < 0 {
			i++
			continue
		}
		// Extend the run from i while the numbers count up by one.
		next, last, count, gap := n+1, i, 1, 0
		for j := i + 1; j < len(ls) && gap < 2; j++ {
			m, _ := num(ls[j])
			switch {
			case m == next:
				next, last, gap = next+1, j, 0
				count++
			case m < 0 && strings.TrimSpace(ls[j]) != "" || m >= 0:
				gap++
			default:
				gap++ // an unnumbered blank line
			}
		}
		if count < minNumberedRun {
			i++
			continue
		}
		want := n
		for j := i; j <= last; j++ {
			if m, end := num(ls[j]); m == want {
				ls[j] = ls[j][end:]
				want++
			}
		}
		rw = append(rw, Rewrite{Start: i + 1, End: last + 1, What: "line numbers"})
		i = last + 1
	}
	return rw
}

// reCellEnds is the end a documentation index gives every line of a page
// it stores as a two-column table: " | |" (the line's cell and an empty
// one), which a tool's own output never ends with.
var reCellEnds = regexp.MustCompile(`[ \t]+\|[ \t]+\|[ \t]*$`)

// unCellEnds takes the table cell ends (" | |") off the lines that carry
// them, where at least minPrefixRun lines do: a row of nccl-tests or
// perftest read with two more columns fits no layout.
func unCellEnds(ls []string) []Rewrite {
	n := 0
	for _, l := range ls {
		if reCellEnds.MatchString(l) {
			n++
		}
	}
	if n < minPrefixRun {
		return nil
	}
	var rw []Rewrite
	for i, l := range ls {
		loc := reCellEnds.FindStringIndex(l)
		if loc == nil {
			continue
		}
		ls[i] = l[:loc[0]]
		if k := len(rw) - 1; k >= 0 && rw[k].End == i {
			rw[k].End = i + 1
			continue
		}
		rw = append(rw, Rewrite{Start: i + 1, End: i + 1, What: "table cell ends"})
	}
	return rw
}

// unDiff takes the markers off a unified diff ("--- a", "+++ b", "@@"
// headers, then " ", "+" and "-" in front of every line): both sides are
// read, as lines of the one output.
func unDiff(ls []string) []Rewrite {
	var rw []Rewrite
	for i := 0; i+1 < len(ls); i++ {
		if !(strings.HasPrefix(ls[i], "--- ") && strings.HasPrefix(ls[i+1], "+++ ")) {
			continue
		}
		start := i
		ls[i], ls[i+1] = "", ""
		j := i + 2
		for ; j < len(ls); j++ {
			l := ls[j]
			switch {
			case l == "":
			case strings.HasPrefix(l, "@@ ") || strings.HasPrefix(l, `\ No newline`):
				ls[j] = ""
			case l[0] == ' ' || l[0] == '+' || l[0] == '-':
				if strings.HasPrefix(l, "--- ") && j+1 < len(ls) && strings.HasPrefix(ls[j+1], "+++ ") {
					goto done // the next file's diff
				}
				ls[j] = l[1:]
			default:
				goto done
			}
		}
	done:
		rw = append(rw, Rewrite{Start: start + 1, End: j, What: "unified diff markers"})
		i = j - 1
	}
	return rw
}

// unBacktick drops the stray markdown backticks of inline code around a
// line ("`NCCL WARN …`"); fences ("```") stay, they end outputs.
func unBacktick(ls []string) []Rewrite {
	var rw []Rewrite
	for i, l := range ls {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") || !strings.ContainsRune(t, '`') {
			continue
		}
		n := l
		if strings.HasPrefix(t, "`") {
			n = strings.Replace(n, "`", "", 1)
		}
		if strings.HasSuffix(t, "`") && strings.Count(n, "`")%2 == 1 {
			k := strings.LastIndexByte(n, '`')
			n = n[:k] + n[k+1:]
		}
		if n != l {
			ls[i] = n
			rw = append(rw, Rewrite{Start: i + 1, End: i + 1, What: "stray backticks"})
		}
	}
	return rw
}

// unIndent takes off the indentation every line of a region shares (a
// markdown code block's 4 spaces, a list item's 3, a reStructuredText
// block's): a region is a run of indented lines, blank lines included,
// that starts the file or follows a blank line; indented lines right
// under a line that is not (a kernel message's continuation, ibstat's
// port block) are that line's structure and stay, except dmesg-stamped
// records under a line that is not one. Indentation within the region
// stays.
func unIndent(ls []string) []Rewrite {
	var rw []Rewrite
	start, common, n := -1, "", 0
	flush := func(end int) {
		if start >= 0 && common != "" && n >= minPrefixRun {
			for i := start; i < end; i++ {
				if strings.HasPrefix(ls[i], common) {
					ls[i] = ls[i][len(common):]
				}
			}
			last := end - 1
			for last > start && strings.TrimSpace(ls[last]) == "" {
				last--
			}
			rw = append(rw, Rewrite{Start: start + 1, End: last + 1, What: fmt.Sprintf("a uniform indentation of %d characters", len(common))})
		}
		start, common, n = -1, "", 0
	}
	blankAbove := true
	prev := "" // the line above, when it is not blank
	for i, l := range ls {
		if strings.TrimSpace(l) == "" || isFence(l) {
			blankAbove = true
			prev = ""
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		above, over := blankAbove, prev
		blankAbove, prev = false, l
		if ind == "" {
			flush(i)
			continue
		}
		if start < 0 {
			// A kernel record with its stamp is no continuation of the
			// line above unless that is a stamped record too: tab-indented
			// dmesg lines under the command that printed them
			// ("dmesg | more | grep 04:00", realworld-fresh27).
			if !above && !(dmesgStamped(l[len(ind):]) && !dmesgStamped(over)) {
				continue
			}
			start, common = i, ind
		}
		k := 0
		for k < len(common) && k < len(ind) && common[k] == ind[k] {
			k++
		}
		common = common[:k]
		n++
	}
	flush(len(ls))
	return rw
}

// unLazyQuote takes the markdown list and quote markers (and an opening
// "_" or "*" of emphasis) off a kernel line that carries them alone,
// where the kernel line right under it carries none: markdown's lazy
// continuation, a quoted log whose first line only was marked
// ("    - > _Mar 21 20:18:56 pc kernel: [   65.315783] NVRM: Xid …" then
// "  Mar 21 20:18:56 pc kernel: [   65.315792] NVRM: GPU …"). The line
// takes the next line's indentation, so both read as one log.
func unLazyQuote(ls []string) []Rewrite {
	var rw []Rewrite
	for i := 0; i+1 < len(ls); i++ {
		t := strings.TrimLeft(ls[i], " \t")
		if t == "" || !isMarkdownMarker(t[0]) {
			continue
		}
		for t != "" && isMarkdownMarker(t[0]) {
			t = strings.TrimLeft(t[1:], " ")
		}
		t = strings.TrimLeft(t, "_*")
		next := ls[i+1]
		nt := strings.TrimLeft(next, " \t")
		if nt == "" || isMarkdownMarker(nt[0]) || !kmsg.DetectLine(t) || !kmsg.DetectLine(nt) {
			continue
		}
		ls[i] = next[:len(next)-len(nt)] + t
		rw = append(rw, Rewrite{Start: i + 1, End: i + 1, What: "markdown list and quote markers on a quoted log's first line"})
	}
	return rw
}

func isMarkdownMarker(c byte) bool { return c == '-' || c == '*' || c == '+' || c == '>' }

// qpLineLen is the longest encoded line of a quoted-printable body (RFC
// 2045 section 6.7 rule 5): an encoder breaks longer lines with a soft
// line break, "=" at the end, so the broken lines are exactly this long.
const qpLineLen = 76

// unQuotedPrintable undoes a quoted-printable mail body (RFC 2045 section
// 6.7) that was pasted as it was sent: a line ending in a soft break "="
// joins the next ("…mlx5_core 0000:42:00.2: wait_func_handle_exec_ti=" /
// "meout:1051:…"), and "=3D", "=20" and the other "=XX" escapes become
// their bytes. Only a paste with at least two soft-broken lines of the
// encoder's full length is taken as encoded: an "export X=" line is not.
// The joined text goes on the first line, the lines it took are left
// blank, so every line keeps its number.
func unQuotedPrintable(ls []string) []Rewrite {
	full := 0
	for _, l := range ls {
		if len(l) == qpLineLen && qpSoftBreak(l) {
			full++
		}
	}
	if full < minPrefixRun {
		return nil
	}
	var rw []Rewrite
	for i := 0; i < len(ls); i++ {
		j := i
		var b strings.Builder
		for ; j < len(ls); j++ {
			l := strings.TrimRight(ls[j], "\r")
			if !qpSoftBreak(l) || j+1 == len(ls) {
				b.WriteString(qpUnescape(l))
				break
			}
			b.WriteString(qpUnescape(l[:len(l)-1]))
		}
		if j == len(ls) {
			j--
		}
		if j == i && !strings.Contains(ls[i], "=") {
			continue
		}
		if d := b.String(); d != ls[i] || j > i {
			ls[i] = d
			for k := i + 1; k <= j; k++ {
				ls[k] = ""
			}
			rw = append(rw, Rewrite{Start: i + 1, End: j + 1, What: "quoted-printable mail encoding"})
		}
		i = j
	}
	return rw
}

// qpSoftBreak reports whether l ends in a soft line break: one "=", not
// a "==" rule or a base64 pad.
func qpSoftBreak(l string) bool {
	return strings.HasSuffix(l, "=") && !strings.HasSuffix(l, "==")
}

// qpUnescape turns the "=XX" escapes of l (upper-case hex, as RFC 2045
// writes them) into their bytes; anything else stays.
func qpUnescape(l string) string {
	if !strings.Contains(l, "=") {
		return l
	}
	var b strings.Builder
	for i := 0; i < len(l); i++ {
		if l[i] == '=' && i+2 < len(l) && upperHex(l[i+1]) && upperHex(l[i+2]) {
			b.WriteByte(hexVal(l[i+1])<<4 | hexVal(l[i+2]))
			i += 2
			continue
		}
		b.WriteByte(l[i])
	}
	return b.String()
}

func upperHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

func hexVal(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'A' + 10
}

// paneBorders are the vertical lines a terminal multiplexer draws between
// panes: tmux's pane-border-lines "single" (│, U+2502), "heavy" (┃,
// U+2503) and "double" (║, U+2551) (tmux(1), pane-border-lines), and
// screen's split line (│ with a UTF-8 locale).
var paneBorders = []string{"│", "┃", "║"}

// paneBorder is the length of the pane border l starts with, 0 when none
// (a cheap byte test first: all three start with 0xe2).
func paneBorder(l string) int {
	if l == "" || l[0] != 0xe2 {
		return 0
	}
	for _, b := range paneBorders {
		if strings.HasPrefix(l, b) {
			return len(b)
		}
	}
	return 0
}

// paneClass is the pane border at the start of lines, as stripRuns
// takes it off: a terminal's copy of a pane to the right of a split
// carries the border column in front of every line, padded with blanks
// to the pane's width.
var paneClass = prefixClass{name: "terminal pane borders", min: 3, match: func(l string) int {
	if n := paneBorder(l); n > 0 {
		return n
	}
	return -1
}}

// unPaneBorders takes a tmux or screen pane border off the lines it runs
// down (at least three, as stripRuns counts them), and the border at the
// end of those lines where the pane has one on its right too, with the
// blanks that pad the line to it.
func unPaneBorders(ls []string) []Rewrite {
	var carried map[int]string
	for i, l := range ls {
		if n := paneBorder(l); n > 0 {
			if carried == nil {
				carried = map[int]string{}
			}
			carried[i] = l[:n]
		}
	}
	if len(carried) < paneClass.min {
		return nil
	}
	rw := stripRuns(ls, paneClass)
	for _, r := range rw {
		for i := r.Start - 1; i < r.End; i++ {
			b, ok := carried[i]
			if !ok {
				continue
			}
			if t := strings.TrimRight(ls[i], " "); strings.HasSuffix(t, b) {
				ls[i] = strings.TrimRight(strings.TrimSuffix(t, b), " ")
			}
		}
	}
	return rw
}
