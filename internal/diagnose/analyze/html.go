package analyze

import (
	"regexp"
	"strconv"
	"strings"
)

// Mailing-list archives (MHonArc, hypermail: the Open MPI users and
// devel lists, mail-archive.com) serve a message as HTML, and people
// paste its source: every line of the mail is followed by a "<br>" (alone
// on the next line, or closing a quote level's "</span><br>"), quoted
// lines sit in `<span class="quotelev1">`, paragraphs open with "<p>",
// and the text is escaped ("&gt; " for the quote marker, "&lt;", "&amp;",
// "&quot;", "&#160;" and "&nbsp;" for the non-breaking spaces). An archive
// that keeps the mail in a <pre> block escapes it without any <br>: a
// run of lines that start with "&gt;" is a quoted mail escaped for HTML.
// unArchiveHTML turns such a stretch into the text the reader saw: tags
// dropped (a line that held only tags becomes blank, so every line keeps
// its number), entities decoded; the "> " quoting is left to the mail
// quoting class that runs after it. A paste is taken as HTML only when
// the markup repeats (minHTMLBreaks break lines or quote spans, or
// minHTMLBreaks lines that open with "&gt;"): one "<br>" in prose, or
// an output that holds an "&", is left as it is.

// minHTMLBreaks is how many lines must carry the archive's markup before a
// paste is taken as HTML.
const minHTMLBreaks = 3

var (
	// reHTMLBreak: a line the archive ends with a line break, or a
	// quote-level span.
	reHTMLBreak = regexp.MustCompile(`(?i)(?:<br\s*/?>\s*$|^\s*<span class="?quotelev\d)`)
	// reHTMLTag: one tag or comment, of the names archives use, so
	// "a<b" or mpirun's "<stdout>" is not markup.
	reHTMLTag    = regexp.MustCompile(`(?i)<!--.*?-->|</?(?:br|p|span|pre|div|a|b|i|em|strong|tt|code|font|blockquote|hr|ul|ol|li|html|body|head)(?:\s[^<>]*)?/?>`)
	reHTMLEntity = regexp.MustCompile(`&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});`)
)

func htmlEscapedQuote(l string) bool {
	return strings.HasPrefix(strings.TrimLeft(reHTMLTag.ReplaceAllString(l, ""), " "), "&gt;")
}

func unArchiveHTML(ls []string) []Rewrite {
	first, last, breaks, escaped, raw := -1, -1, 0, 0, 0
	for i, l := range ls {
		br := reHTMLBreak.MatchString(l)
		esc := htmlEscapedQuote(l)
		if br {
			breaks++
		}
		if esc {
			escaped++
		}
		if strings.HasPrefix(strings.TrimLeft(l, " "), ">") {
			raw++
		}
		// A line of tags alone ("<p>", `<!-- body="start" -->`) is
		// markup too, but does not make a paste HTML by itself.
		onlyTags := strings.TrimSpace(l) != "" && strings.TrimSpace(reHTMLTag.ReplaceAllString(l, "")) == ""
		if br || esc || onlyTags {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if breaks < minHTMLBreaks && (escaped < minHTMLBreaks || raw >= escaped) {
		return nil
	}
	if breaks >= minHTMLBreaks && first > 0 && !reHTMLTag.MatchString(ls[first]) {
		// The archive puts the "<br>" after the line it ends.
		first--
	}
	var rw []Rewrite
	start := -1
	for i := first; i <= last; i++ {
		d := htmlText(ls[i])
		if d != ls[i] {
			ls[i] = d
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		rw = append(rw, Rewrite{Start: start + 1, End: last + 1, What: "mail-archive HTML"})
	}
	return rw
}

// htmlText is l with its tags dropped and its entities decoded; a
// non-breaking space becomes a plain one, as the reader sees it.
func htmlText(l string) string {
	if !strings.ContainsAny(l, "<&") {
		return l
	}
	l = reHTMLTag.ReplaceAllString(l, "")
	return reHTMLEntity.ReplaceAllStringFunc(l, func(e string) string {
		name := e[1 : len(e)-1]
		switch name {
		case "gt":
			return ">"
		case "lt":
			return "<"
		case "amp":
			return "&"
		case "quot":
			return `"`
		case "apos":
			return "'"
		case "nbsp":
			return " "
		}
		if strings.HasPrefix(name, "#") {
			var n uint64
			var err error
			if name[1] == 'x' || name[1] == 'X' {
				n, err = strconv.ParseUint(name[2:], 16, 32)
			} else {
				n, err = strconv.ParseUint(name[1:], 10, 32)
			}
			if err != nil || n == 0 || n > 0x10FFFF {
				return e
			}
			if n == 160 {
				return " "
			}
			return string(rune(n))
		}
		return e
	})
}
