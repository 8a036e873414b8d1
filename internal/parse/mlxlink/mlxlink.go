// Package mlxlink reads the text that MFT's and mstflint's mlxlink (also
// installed as mstlink) prints for a port: the "Operational Info",
// "Supported Info", "Troubleshooting Info" and "Tool Information" pages,
// and with -m the "Module Info", with -c the "Physical Counters and BER
// Info". Every page is a title, a line of dashes and "Key<padding>: value"
// lines (mstflint mlxlink/modules/mlxlink_commander.cpp, setPrintTitle and
// setPrintVal). Several runs pasted one after another (a loop over the
// devices, or a grep of the counter lines) are read as one port each.
package mlxlink

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse"
)

// ParseError is the shared parse error type.
type ParseError = parse.Error

// ErrNoField says the text holds no mlxlink field.
var ErrNoField = errors.New("no mlxlink page or field (\"State  : Active\", \"Effective Physical BER : 15E-255\")")

// Field is one "Key : value" line.
type Field struct {
	// Section is the page title above it ("Operational Info"), "" when
	// the page title was not pasted.
	Section string
	Key     string
	// Value is the text after the colon, ANSI colour codes removed.
	Value string
	Line  int
}

// Port is one mlxlink run: one port's pages.
type Port struct {
	// Device is what the paste names the port by: the -d argument of the
	// mlxlink command line above it, or the first word of a "===== X ====="
	// banner a loop printed; "" when neither was pasted.
	Device string
	// PortNum is the -p argument, 0 when not given.
	PortNum int
	// Line is the first line of the run.
	Line   int
	Fields []Field
	// Messages are the tool's own "-E-"/"-W-" lines.
	Messages []Field
}

// Get returns the first field named key (case-insensitive).
func (p *Port) Get(key string) (Field, bool) {
	for _, f := range p.Fields {
		if strings.EqualFold(f.Key, key) {
			return f, true
		}
	}
	return Field{}, false
}

// Skip is a line that was passed over, and why.
type Skip struct {
	Line   int
	Reason string
}

// Result is every port of a paste.
type Result struct {
	Ports   []*Port
	Skipped []Skip
}

// Titles are the page titles mlxlink prints.
var Titles = []string{
	"Operational Info", "Supported Info", "Troubleshooting Info", "Tool Information", "Module Info",
	"Physical Counters and BER Info", "Test Mode Info", "FEC Capability Info", "EYE Opening Info",
	"Eye Opening Info", "Serdes Tx Info", "Device Info", "BER Monitor Info", "External PHY Info",
	"PLR Info", "KR Info", "Link Down Info", "Port Info", "Cable Info", "Histogram Info",
}

// IsTitle says whether t is one of mlxlink's page titles.
func IsTitle(t string) bool {
	for _, ti := range Titles {
		if t == ti {
			return true
		}
	}
	return false
}

// Header says whether line t, with next the line below it, starts an
// mlxlink output: a page title above its line of dashes, or above its
// first "Key : value" line (a web page that made the title a heading,
// "Operational Info #").
func Header(t, next string) bool {
	if k, open, ok := jsonKey(t); ok && open == "{" && IsTitle(k) {
		return true // mlxlink --json: "Operational Info" : {
	}
	n := strings.TrimSpace(stripANSI(next))
	if !IsTitle(title(t)) {
		return false
	}
	if len(n) >= 8 && strings.Trim(n, "-") == "" {
		return true
	}
	_, _, ok := field(n)
	return ok
}

// title drops a heading anchor a web page added to a page title.
func title(t string) string {
	return strings.TrimSpace(strings.TrimSuffix(t, " #"))
}

// Parse reads mlxlink text; source names it in errors. Lines that are not
// mlxlink's (prompts, prose, loop banners) are listed in Skipped.
func Parse(r io.Reader, source string) (*Result, error) {
	res := &Result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	var cur *Port
	section := ""
	pendingDev, pendingPort := "", 0
	// mlxlink --json: a key whose value is an object or a list
	// ("Enabled Link Speed" : { "mask" : …, "values" : [ "EDR", … ] }).
	composite, compositeLine, inValues := "", 0, false
	var values []string
	n := 0
	start := func() {
		cur = &Port{Device: pendingDev, PortNum: pendingPort, Line: n}
		res.Ports = append(res.Ports, cur)
		pendingDev, pendingPort = "", 0
	}
	for sc.Scan() {
		n++
		raw := stripANSI(sc.Text())
		t := strings.TrimSpace(raw)
		switch {
		case t == "" || strings.Trim(t, "-") == "":
			continue
		case IsTitle(title(t)):
			t = title(t)
			// A run starts at its first page; a page seen again in the
			// same run is the next run's.
			if cur == nil || pendingDev != "" || t == "Operational Info" && len(cur.Fields) > 0 || cur.hasSection(t) {
				start()
			}
			section = t
			continue
		case strings.HasPrefix(t, "-E-") || strings.HasPrefix(t, "-W-") || strings.HasPrefix(t, "-I-"):
			if cur == nil {
				start()
			}
			cur.Messages = append(cur.Messages, Field{Section: section, Key: t[:3], Value: strings.TrimSpace(t[3:]), Line: n})
			continue
		}
		if k, rest, ok := jsonKey(t); ok {
			switch {
			case rest == "{" && IsTitle(k):
				if cur == nil || pendingDev != "" || k == "Operational Info" && len(cur.Fields) > 0 || cur.hasSection(k) {
					start()
				}
				section, composite = k, ""
			case rest == "{" || rest == "[":
				composite, compositeLine, values = k, n, nil
			case composite != "" && k == "values":
				values = append(values, jsonStrings(rest)...)
				inValues = !strings.Contains(rest, "]")
			case composite != "" && k == "mask":
			default:
				if cur == nil || pendingDev != "" || cur.hasKey(section, k) {
					start()
				}
				cur.Fields = append(cur.Fields, Field{Section: section, Key: k, Value: strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(rest), ","), "\""), Line: n})
				cur.Fields[len(cur.Fields)-1].Value = strings.TrimPrefix(cur.Fields[len(cur.Fields)-1].Value, "\"")
			}
			continue
		}
		if inValues {
			values = append(values, jsonStrings(t)...)
			inValues = !strings.Contains(t, "]")
			continue
		}
		if strings.Trim(t, "{}[], ") == "" {
			if strings.HasPrefix(t, "}") && composite != "" {
				if cur == nil {
					start()
				}
				cur.Fields = append(cur.Fields, Field{Section: section, Key: composite, Value: "(" + strings.Join(values, ",") + ")", Line: compositeLine})
				composite = ""
			}
			continue
		}
		if dev, port, ok := commandLine(t); ok {
			if dev != "" && !strings.Contains(dev, "$") {
				pendingDev, pendingPort = dev, port
			}
			res.Skipped = append(res.Skipped, Skip{n, "command line"})
			continue
		}
		if b, ok := banner(t); ok {
			pendingDev = b
			res.Skipped = append(res.Skipped, Skip{n, "banner"})
			continue
		}
		key, val, ok := field(t)
		if !ok {
			res.Skipped = append(res.Skipped, Skip{n, "not an mlxlink line"})
			continue
		}
		if cur == nil || pendingDev != "" || cur.hasKey(section, key) {
			// A key seen again, or a banner above, starts the next run;
			// the page title above is not this run's until one is seen.
			start()
			section = ""
		}
		cur.Fields = append(cur.Fields, Field{Section: section, Key: key, Value: val, Line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	// Runs that hold only tool messages or titles are not ports.
	ports := res.Ports[:0]
	for _, p := range res.Ports {
		if len(p.Fields) > 0 {
			ports = append(ports, p)
		} else if len(ports) > 0 && len(p.Messages) > 0 {
			last := ports[len(ports)-1]
			last.Messages = append(last.Messages, p.Messages...)
		}
	}
	res.Ports = ports
	if len(res.Ports) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoField}
	}
	return res, nil
}

func (p *Port) hasSection(s string) bool {
	for _, f := range p.Fields {
		if f.Section == s {
			return true
		}
	}
	return false
}

func (p *Port) hasKey(section, key string) bool {
	for _, f := range p.Fields {
		if f.Key == key && f.Section == section {
			return true
		}
	}
	return false
}

// field splits "Key<spaces>: value". Keys are words, digits, brackets and
// the punctuation of mlxlink's labels ("Attenuation (5g,7g,12g)[dB]").
func field(t string) (string, string, bool) {
	i := strings.IndexByte(t, ':')
	if i <= 0 {
		return "", "", false
	}
	key := strings.TrimSpace(t[:i])
	if key == "" || len(key) > 60 || !isLetter(key[0]) {
		return "", "", false
	}
	for _, c := range key {
		if !(isLetter(byte(c)) || c >= '0' && c <= '9' || strings.ContainsRune(" ()[]/.,_+-#", c)) {
			return "", "", false
		}
	}
	// mlxlink pads the key: "State<spaces>: Active". A key directly
	// followed by the colon ("State: Active") is ibstat's, not mlxlink's.
	if i == 0 || t[i-1] != ' ' && t[i-1] != '\t' {
		return "", "", false
	}
	return key, strings.TrimSpace(t[i+1:]), true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// commandLine recognises an mlxlink (or mstlink) command line, with or
// without its prompt, and returns its -d and -p arguments.
func commandLine(t string) (string, int, bool) {
	f := strings.Fields(t)
	at := -1
	for i, w := range f {
		w = strings.TrimLeft(w, "#$>") // "#mlxlink -d …": a root prompt without its space
		if w == "mlxlink" || w == "mstlink" || strings.HasSuffix(w, "/mlxlink") || strings.HasSuffix(w, "/mstlink") {
			at = i
			break
		}
	}
	if at < 0 {
		return "", 0, false
	}
	dev, port := "", 0
	for i := at + 1; i < len(f); i++ {
		switch {
		case (f[i] == "-d" || f[i] == "--device") && i+1 < len(f):
			dev = f[i+1]
			i++
		case strings.HasPrefix(f[i], "--device="):
			dev = strings.TrimPrefix(f[i], "--device=")
		case (f[i] == "-p" || f[i] == "--port") && i+1 < len(f):
			if v, err := strconv.ParseInt(f[i+1], 0, 32); err == nil {
				port = int(v) // switch ports are often given in hex: -p 0x2
			}
			i++
		case f[i] == "|" || f[i] == ";" || f[i] == "&&":
			i = len(f)
		}
	}
	return dev, port, true
}

// banner reads "========== mlx5_0 ==========" (a loop's echo): its first
// word names the device.
func banner(t string) (string, bool) {
	if !strings.HasPrefix(t, "===") || !strings.HasSuffix(t, "===") {
		return "", false
	}
	f := strings.Fields(strings.Trim(t, "= "))
	if len(f) == 0 {
		return "", false
	}
	return f[0], true
}

// stripANSI removes the colour codes mlxlink writes on a terminal.
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j < len(s) {
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// jsonKey splits a line of mlxlink --json, `"State" : "Active",`, into its
// key and the rest after the colon.
func jsonKey(t string) (string, string, bool) {
	if !strings.HasPrefix(t, "\"") {
		return "", "", false
	}
	end := strings.IndexByte(t[1:], '"')
	if end < 0 {
		return "", "", false
	}
	k := t[1 : 1+end]
	rest := strings.TrimSpace(t[2+end:])
	r, ok := strings.CutPrefix(rest, ":")
	if !ok || k == "" {
		return "", "", false
	}
	return k, strings.TrimSpace(r), true
}

// jsonStrings returns the quoted strings of a line: `[ "EDR", "FDR",`.
func jsonStrings(t string) []string {
	var out []string
	for {
		i := strings.IndexByte(t, '"')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(t[i+1:], '"')
		if j < 0 {
			return out
		}
		out = append(out, t[i+1:i+1+j])
		t = t[i+2+j:]
	}
}
