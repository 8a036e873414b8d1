// Package ethlink reads `ethtool <netdev>` (no option): the "Settings for
// eth0:" block with its link modes, Speed, Duplex and "Link detected"
// (ethtool.c, dump_link_usettings and the link-detected line). Several
// interfaces pasted one after another are read as one block each.
//
// It reads two other forms of the same facts too: the lines of
// `ethtool eth0 | grep Speed` under the command line that names the
// interface (no "Settings for" header then), and `ethtool --show-fec
// eth0`: "FEC parameters for eth0:", "Configured FEC encodings: …"
// ("Supported/Configured FEC encodings: …" since ethtool 6.0, netlink/fec.c)
// and "Active FEC encoding: …".
package ethlink

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

// ErrNoSettings says the text holds no "Settings for X:" block.
var ErrNoSettings = errors.New("no \"Settings for <netdev>:\" or \"FEC parameters for <netdev>:\" block, and no Speed, Duplex or Link detected line under an \"ethtool <netdev>\" command line")

// Field is one "Name: value" line (continuation lines of a list joined).
type Field struct {
	Key, Value string
	Line       int
}

// Settings is one interface's block.
type Settings struct {
	NetDev string
	Line   int
	Fields []Field
	// FEC: the block is `ethtool --show-fec`'s.
	FEC bool
	// Command: the block has no header, only the command line that
	// named the interface (`ethtool eth0 | grep Speed`).
	Command bool
}

// Get returns the field named key.
func (s *Settings) Get(key string) (Field, bool) {
	for _, f := range s.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// Result is every block of a paste.
type Result struct {
	Settings []*Settings
	Skipped  []int
}

// Header returns the netdev of a "Settings for eth0:" line.
func Header(t string) (string, bool) { return titled(t, "Settings for ") }

// FECHeader returns the netdev of ethtool --show-fec's "FEC parameters
// for eth0:" line.
func FECHeader(t string) (string, bool) { return titled(t, "FEC parameters for ") }

// titled returns the netdev of a "<prefix>eth0:" title line.
func titled(t, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(t), prefix)
	if !ok || !strings.HasSuffix(rest, ":") {
		return "", false
	}
	dev := strings.TrimSuffix(rest, ":")
	if dev == "" || strings.ContainsAny(dev, " \t") {
		return "", false
	}
	return dev, true
}

// CommandNetDev returns the interface of a command line that runs
// ethtool with no option ("$ sudo ethtool eth0 | grep Speed", "ethtool
// eth0"): the first word after "ethtool", when it is not an option.
func CommandNetDev(l string) (string, bool) {
	f := strings.Fields(l)
	for i := 0; i+1 < len(f); i++ {
		if f[i] != "ethtool" && !strings.HasSuffix(f[i], "/ethtool") {
			continue
		}
		dev := f[i+1]
		if strings.HasPrefix(dev, "-") || strings.ContainsAny(dev, "|;&<>'\"$`") {
			return "", false
		}
		if i+2 < len(f) && f[i+2] != "|" && !strings.HasPrefix(f[i+2], "|") {
			return "", false // more words: not ethtool's plain form
		}
		return dev, true
	}
	return "", false
}

// fecKey maps the FEC lines' names to one spelling: ethtool 6.0 renamed
// "Configured FEC encodings" to "Supported/Configured FEC encodings".
func fecKey(k string) (string, bool) {
	switch k {
	case "Configured FEC encodings", "Supported/Configured FEC encodings":
		return "Configured FEC encodings", true
	case "Active FEC encoding":
		return k, true
	}
	return "", false
}

// Parse reads the blocks of a paste; lines outside a block are skipped.
// A block whose lines lost their indentation (a paste site's list
// rendering "- Speed: 10Mb/s", or indentation stripped) is flat: its
// "Key: value" lines are its fields, and a line of link modes alone
// ("- 100baseT/Half 100baseT/Full") continues the list above it.
func Parse(r io.Reader, source string) (*Result, error) {
	res := &Result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	var cur *Settings
	flat := false // the block's lines are not indented
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Text()
		t := strings.TrimSpace(raw)
		if m, ok := strings.CutPrefix(t, "- "); ok {
			// pastebin's list rendering puts "- " before every line.
			t = strings.TrimSpace(m)
			raw = t
		}
		if t == "" {
			continue
		}
		dev, ok := Header(t)
		fec := false
		if !ok {
			dev, ok = FECHeader(t)
			fec = ok
		}
		if ok {
			if cur != nil && cur.Command && len(cur.Fields) == 0 {
				// The command line above this header: its block is this one.
				res.Settings = res.Settings[:len(res.Settings)-1]
			}
			cur = &Settings{NetDev: dev, Line: n, FEC: fec}
			res.Settings = append(res.Settings, cur)
			flat = false
			continue
		}
		if dev, ok := CommandNetDev(t); ok && !isIndented(raw) {
			if cur != nil && cur.Command && len(cur.Fields) == 0 {
				res.Settings = res.Settings[:len(res.Settings)-1]
			}
			cur = &Settings{NetDev: dev, Line: n, Command: true}
			res.Settings = append(res.Settings, cur)
			flat = false
			continue
		}
		if cur == nil {
			res.Skipped = append(res.Skipped, n)
			continue
		}
		if len(cur.Fields) == 0 && !isIndented(raw) {
			flat = true
		}
		k, v, ok := strings.Cut(t, ":")
		if cur.FEC {
			if name, isFEC := fecKey(strings.TrimSpace(k)); ok && isFEC {
				cur.Fields = append(cur.Fields, Field{Key: name, Value: strings.TrimSpace(v), Line: n})
				continue
			}
		}
		if ok && k != "" && !strings.ContainsAny(k, "/") && (isIndented(raw) || flat && isKey(k)) {
			cur.Fields = append(cur.Fields, Field{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v), Line: n})
			continue
		}
		// A continuation of a list ("  100000baseCR4/Full", "drv probe link").
		if len(cur.Fields) > 0 && (isIndented(raw) || flat && len(Modes(t)) == len(strings.Fields(t))) {
			last := &cur.Fields[len(cur.Fields)-1]
			last.Value = strings.TrimSpace(last.Value + " " + t)
			continue
		}
		res.Skipped = append(res.Skipped, n)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: n + 1, Err: err}
	}
	if cur != nil && cur.Command && len(cur.Fields) == 0 {
		res.Settings = res.Settings[:len(res.Settings)-1] // a command line with no output under it
	}
	if len(res.Settings) == 0 {
		return nil, &ParseError{Source: source, Err: ErrNoSettings}
	}
	return res, nil
}

// isKey says whether k reads as an ethtool field name ("Speed",
// "Supported link modes", "Link partner advertised FEC modes"): letters,
// digits, spaces and hyphens.
func isKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ' || c == '-') {
			return false
		}
	}
	return k[0] >= 'A' && k[0] <= 'Z'
}

func isIndented(raw string) bool {
	return strings.HasPrefix(raw, " ") || strings.HasPrefix(raw, "\t")
}

// SpeedMbps reads "100000Mb/s"; ok false for "Unknown!".
func SpeedMbps(v string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), "Mb/s"))
	return n, err == nil && n > 0
}

// ModeMbps reads the speed of a link mode ("100000baseCR4/Full",
// "25000baseSR/Full", "1000baseT/Full", "2500baseX").
func ModeMbps(m string) (int, bool) {
	i := strings.Index(m, "base")
	if i <= 0 {
		return 0, false
	}
	n, err := strconv.Atoi(m[:i])
	return n, err == nil && n > 0
}

// Modes lists the speeds of a link mode list, "Not reported" giving none.
func Modes(v string) []int {
	var out []int
	for _, w := range strings.Fields(v) {
		if s, ok := ModeMbps(w); ok {
			out = append(out, s)
		}
	}
	return out
}
