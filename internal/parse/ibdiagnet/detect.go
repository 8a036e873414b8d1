package ibdiagnet

import "strings"

// Header says whether line t (blanks trimmed; prev is the line above it,
// trimmed) starts ibdiagnet output, and how many lines above t the output
// begins: the 1.x banner ("Loading IBDIAGNET from:"), the 2.x banner
// ("Running version: "IBDIAGNET …""), the discovery line, the stage tables
// ("-I- Stages Status Report:", "-I- Stage  Warnings  Errors" under
// "Summary"), a 1.x section heading under its "-I-----" line, a line naming an ibdiagnet file ("ibdiagnet2.log",
// "==> /var/tmp/ibdiagnet2/ibdiagnet2.db_csv <=="), a db_csv section start
// (START_NODES), a .lst link ("{ CA Ports:…") and a link check's
// "-E- Link: A<-->B - reason" message.
func Header(t, prev string) (bool, int) {
	switch {
	case strings.HasPrefix(t, "Loading IBDIAGNET from:"):
		return true, 0
	case strings.HasPrefix(t, "Running version:") && strings.Contains(t, "IBDIAGNET"):
		return true, 0
	case strings.HasPrefix(t, "-I- Discovering ...") && strings.Contains(t, "nodes"):
		return true, 0
	case strings.HasPrefix(t, "-I- ") && isSepV1(prev):
		// A 1.x section heading between "-I-----" lines.
		return true, 1
	case strings.HasPrefix(t, "-I- Stages Status Report"):
		if isDashes(prev) {
			return true, 1
		}
		return true, 0
	case strings.HasPrefix(t, "-I- Stage ") && strings.Contains(t, "Warnings") && strings.Contains(t, "Errors"):
		if prev == "Summary" {
			return true, 1
		}
		return true, 0
	case strings.HasPrefix(t, "START_") && csvMarker(t) != nil:
		return true, 0
	case (strings.HasPrefix(t, "{ CA Ports:") || strings.HasPrefix(t, "{ SW Ports:")) && strings.Contains(t, "PHY="):
		return true, 0
	case !strings.HasPrefix(t, "-") && namesFile(t) && len(strings.Fields(t)) <= 4:
		return true, 0
	case IsLinkMessage(t):
		// A link check's message quoted alone ("-E- Link: S…/P19<-->
		// switch-004/U1/P20 - Unexpected actual link speed 25"): no
		// other tool prints it.
		return true, 0
	}
	return false, 0
}

// IsLinkMessage says whether t (blanks trimmed) is a link check's
// "-E- Link: A<-->B - reason" (or -W-) message.
func IsLinkMessage(t string) bool {
	return (strings.HasPrefix(t, "-E- Link: ") || strings.HasPrefix(t, "-W- Link: ")) && strings.Contains(t, "<-->") && strings.Contains(t, " - ")
}

// MessagesAbove counts the lines above ls[i] that belong to the same
// excerpt of ibdiagnet output: "-I-"/"-W-"/"-E-" messages, "-----"
// frames and blank lines between them, up to 30 lines; leading blank
// lines are not counted. A quoted link message starts its output there.
func MessagesAbove(ls []string, i int) int {
	back := 0
	for j := i - 1; j >= 0 && i-j <= 30; j-- {
		t := strings.TrimSpace(ls[j])
		if t == "" {
			continue
		}
		if _, _, ok := splitMsg(t); !ok && !isDashes(t) {
			break
		}
		back = i - j
	}
	return back
}

// namesFile says whether a short line names one of ibdiagnet's output
// files (a file header of a paste, "cat …/ibdiagnet2.log").
func namesFile(t string) bool {
	for _, f := range []string{"ibdiagnet2.log", "ibdiagnet2.db_csv", "ibdiagnet2.lst", "ibdiagnet.lst", "ibdiagnet.log"} {
		if strings.Contains(t, f) {
			return true
		}
	}
	return false
}

// Detect says whether a text without any Header line is ibdiagnet output
// all the same: an excerpt of ibdiagnet2.log or of the console, at least
// three "-I-"/"-W-"/"-E-" lines making up half of its lines or more.
func Detect(text string) bool {
	prefixed, other := 0, 0
	prev := ""
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(Unquote(strings.TrimSuffix(l, "\r")))
		if t == "" {
			continue
		}
		if ok, _ := Header(t, prev); ok {
			return true
		}
		prev = t
		if _, _, ok := splitMsg(t); ok || isSepV1(t) {
			prefixed++
		} else {
			other++
		}
	}
	return prefixed >= 3 && prefixed >= other
}
