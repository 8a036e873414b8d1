package kmsg

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/ibdoctor/ibdoctor/internal/parse"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNoData is returned when an input holds no log record at all.
var ErrNoData = errors.New("no kernel log records")

// ErrMalformed is wrapped by every ParseError.
var ErrMalformed = errors.New("malformed kernel log line")

// ParseError names the source and line of a malformed input.
type ParseError = parse.Error

// Record is one kernel log message.
type Record struct {
	// Line is the 1-based line of the source where the record starts.
	Line int `json:"line"`
	// Priority is the syslog level (0 emerg … 7 debug), -1 when the source
	// does not carry it (plain dmesg text).
	Priority int `json:"priority"`
	// Seq is the /dev/kmsg sequence number (0 for text sources).
	Seq uint64 `json:"seq,omitempty"`
	// Mono is the time since boot, valid when HasMono ("[ 12.345678]" or
	// the /dev/kmsg timestamp).
	Mono    time.Duration `json:"mono,omitempty"`
	HasMono bool          `json:"has_mono,omitempty"`
	// Time is the wall-clock time where the source prints one (dmesg -T,
	// --time-format iso, journalctl); zero otherwise.
	Time time.Time `json:"time,omitzero"`
	// Rel is the time since the first record of a dmesg -H / --reltime
	// paste whose first minute stamp ("[Feb23 16:24]") was cut, valid
	// when HasRel: its "[  +0.000316]" stamps give only the time since
	// the message before, which still orders and spaces the records.
	Rel    time.Duration `json:"rel,omitempty"`
	HasRel bool          `json:"has_rel,omitempty"`
	// Text is the message with escapes undone; continuation lines of a
	// multi-line message are joined with "\n".
	Text string `json:"text"`
	// Device is the DEVICE= key of a /dev/kmsg record ("+pci:0000:3b:00.0").
	Device string `json:"device,omitempty"`
	// Cont marks a /dev/kmsg record with the '+' flag (older kernels): the
	// continuation of the previous record's line. ParseRecord sets it; the
	// log readers join such records to the one before and clear it.
	Cont bool `json:"-"`
}

// appendRecord adds a record to a log, joining a '+' continuation to the
// record before it.
func (l *Log) appendRecord(r Record) {
	if r.Cont && len(l.Records) > 0 {
		l.Records[len(l.Records)-1].Text += r.Text
		return
	}
	r.Cont = false
	l.Records = append(l.Records, r)
}

// Log is a parsed kernel log.
type Log struct {
	// Source names where the log came from ("cmd/dmesg.txt", "/dev/kmsg").
	Source  string   `json:"source"`
	Records []Record `json:"records"`
	// Errors are lines that could not be parsed; each skipped only itself.
	Errors []*ParseError `json:"-"`
}

// WallTime returns a record's wall-clock time: Time when the source printed
// one, else boot + Mono when boot is known; ok is false when neither.
func (r *Record) WallTime(boot time.Time) (time.Time, bool) {
	if !r.Time.IsZero() {
		return r.Time, true
	}
	if r.HasMono && !boot.IsZero() {
		return boot.Add(r.Mono), true
	}
	return time.Time{}, false
}

// Since returns the records at or after start (wall clock). Records whose
// time cannot be known (no timestamp, or monotonic time without a boot
// time) are kept: a triage tool should rather show an old error than hide
// a new one.
func (l *Log) Since(start, boot time.Time) []Record {
	if start.IsZero() {
		return l.Records
	}
	var out []Record
	for _, r := range l.Records {
		if t, ok := r.WallTime(boot); ok && t.Before(start) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// maxLine bounds one input line (a /dev/kmsg record is at most ~8 KiB).
const maxLine = 64 << 10

// ParseRecord parses one /dev/kmsg record: "PRI,SEQ,USEC,FLAG[,…];TEXT"
// followed by optional "\n KEY=VALUE" dictionary lines
// (Documentation/ABI/testing/dev-kmsg). Unknown comma fields (caller=…)
// are ignored; \xNN escapes in the text are undone. FLAG is '-', 'c' (a
// line fragment, LOG_CONT) or, on older kernels, '+' (continuation of the
// previous record), which the log readers join to the record before.
func ParseRecord(b []byte) (Record, error) {
	b = bytes.TrimRight(b, "\n")
	head, rest, ok := bytes.Cut(b, []byte{';'})
	if !ok {
		return Record{}, fmt.Errorf("%w: no ';' after the record header", ErrMalformed)
	}
	text, dict, _ := bytes.Cut(rest, []byte{'\n'})
	f := strings.Split(string(head), ",")
	if len(f) < 4 {
		return Record{}, fmt.Errorf("%w: header %q has fewer than 4 fields", ErrMalformed, head)
	}
	pri, err := strconv.ParseUint(f[0], 10, 32)
	if err != nil {
		return Record{}, fmt.Errorf("%w: priority %q", ErrMalformed, f[0])
	}
	seq, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return Record{}, fmt.Errorf("%w: sequence %q", ErrMalformed, f[1])
	}
	usec, err := strconv.ParseUint(f[2], 10, 63)
	if err != nil || usec > uint64(1<<63-1)/1000 {
		return Record{}, fmt.Errorf("%w: timestamp %q", ErrMalformed, f[2])
	}
	if f[3] == "" {
		return Record{}, fmt.Errorf("%w: empty flags field", ErrMalformed)
	}
	r := Record{
		Priority: int(pri & 7),
		Seq:      seq,
		Mono:     time.Duration(usec) * time.Microsecond,
		HasMono:  true,
		Text:     unescape(string(text)),
		Cont:     f[3] == "+",
	}
	for _, kv := range bytes.Split(dict, []byte{'\n'}) {
		if k, v, ok := bytes.Cut(bytes.TrimPrefix(kv, []byte{' '}), []byte{'='}); ok && string(k) == "DEVICE" {
			r.Device = unescape(string(v))
		}
	}
	return r, nil
}

// unescape undoes the \xNN escapes of /dev/kmsg.
func unescape(s string) string {
	if !strings.Contains(s, `\x`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) && s[i+1] == 'x' {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ParseKmsg parses a saved copy of /dev/kmsg (`cat /dev/kmsg`): one record
// per line, dictionary lines starting with a space. Bad records are listed
// in Log.Errors and skipped; ErrNoData when nothing parsed.
func ParseKmsg(r io.Reader, source string) (*Log, error) {
	l := &Log{Source: source}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if line[0] == ' ' {
			if len(l.Records) > 0 {
				if k, v, ok := bytes.Cut(line[1:], []byte{'='}); ok && string(k) == "DEVICE" {
					l.Records[len(l.Records)-1].Device = unescape(string(v))
				}
			}
			continue
		}
		rec, err := ParseRecord(line)
		if err != nil {
			l.Errors = append(l.Errors, &ParseError{Source: source, Line: n, Input: string(line), Err: err})
			continue
		}
		rec.Line = n
		l.appendRecord(rec)
	}
	if err := sc.Err(); err != nil {
		return l, fmt.Errorf("%s line %d: %w", source, n+1, err)
	}
	if len(l.Records) == 0 {
		return l, fmt.Errorf("%s: %w", source, ErrNoData)
	}
	return l, nil
}

// TextOptions tune ParseText.
type TextOptions struct {
	// Year is used for journalctl's default "Mar 05 10:11:12" stamps, which
	// carry no year; zero means the current year of Location.
	Year int
	// Location for stamps without a zone (dmesg -T, journalctl short);
	// nil means UTC.
	Location *time.Location
}

// ParseText parses the text of `dmesg` (plain, "[ 12.345678] msg",
// "-T" "[Tue Mar  5 10:11:12 2024] msg", "--time-format iso"
// "2024-03-05T10:11:12,123456+01:00 msg", raw "<4>[ 12.3] msg", -x
// "kern  :warn  : [ 12.3] msg") or of
// `journalctl -k` ("Mar 05 10:11:12 host kernel: msg", and the -o
// short-iso/short-iso-precise forms). Indented lines without their own
// timestamp continue the previous message. Lines from journal programs
// other than the kernel are skipped, but for the carrier lines of
// systemd-networkd and NetworkManager (carrierDaemons). A line with a broken timestamp is
// listed in Log.Errors and skipped; ErrNoData when nothing parsed.
func ParseText(r io.Reader, source string, opt TextOptions) (*Log, error) {
	l := &Log{Source: source}
	p := NewTextParser(source, opt, func(r Record) { l.Records = append(l.Records, r) })
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		p.Line(n, sc.Text())
	}
	p.Flush()
	l.Errors = p.Errors
	if err := sc.Err(); err != nil {
		return l, fmt.Errorf("%s line %d: %w", source, n+1, err)
	}
	if len(l.Records) == 0 {
		return l, fmt.Errorf("%s: %w", source, ErrNoData)
	}
	return l, nil
}

// TextParser reads the text forms ParseText reads one line at a time, for
// logs too big to hold: each record goes to emit once complete (its
// continuation lines read), so only the record being read is held.
type TextParser struct {
	source      string
	year        int
	loc         *time.Location
	emit        func(Record)
	cur         Record
	have        bool
	lastStamped bool
	lastTime    time.Time // of the previous message, for reltime stamps
	// relAt is the time since the first reltime-stamped record where no
	// minute stamp came before (Record.Rel); relSeen says one came.
	relAt   time.Duration
	relSeen bool
	// Errors are the lines whose timestamp could not be read, the first
	// MaxErrors of them when MaxErrors > 0; BadLines counts them all.
	Errors    []*ParseError
	MaxErrors int
	BadLines  int
	// Records counts the records emitted.
	Records int
}

// NewTextParser returns a parser that hands each record of source to emit.
func NewTextParser(source string, opt TextOptions, emit func(Record)) *TextParser {
	loc := opt.Location
	if loc == nil {
		loc = time.UTC
	}
	return &TextParser{source: source, year: opt.Year, loc: loc, emit: emit}
}

// Line reads line n (its "\r" may be left on). A line that holds several
// stamped records run together (a paste whose line breaks were lost:
// "May 6 00:38:27 alex kernel: … May 6 00:40:41 alex kernel: …") gives
// one record each, all on line n.
func (p *TextParser) Line(n int, line string) {
	line = strings.TrimRight(line, "\r")
	for {
		i := collapsedAt(line)
		if i < 0 {
			p.line(n, line)
			return
		}
		p.line(n, strings.TrimRight(line[:i], " "))
		line = line[i:]
	}
}

func (p *TextParser) line(n int, line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	rec, kind, rel, err := parseTextLineRel(line, p.year, p.loc)
	if rel.ok && !p.lastTime.IsZero() {
		rec.Time = p.lastTime.Add(rel.d)
	} else if rel.ok {
		if p.relSeen {
			p.relAt += rel.d
		}
		p.relSeen = true
		rec.Rel, rec.HasRel = p.relAt, true
	}
	if !rec.Time.IsZero() {
		p.lastTime = rec.Time
	}
	if err != nil {
		p.BadLines++
		if p.MaxErrors <= 0 || len(p.Errors) < p.MaxErrors {
			p.Errors = append(p.Errors, &ParseError{Source: p.source, Line: n, Input: line, Err: err})
		}
		return
	}
	switch kind {
	case lineForeign:
		return
	case lineBare:
		// dmesg indents the continuation lines of a multi-line
		// message under the text of its first line.
		if p.lastStamped && p.have && (line[0] == ' ' || line[0] == '\t') {
			p.cur.Text += "\n" + strings.TrimSpace(line)
			return
		}
		// A mail client that wraps long lines (format=flowed, RFC 3676)
		// leaves a space at the end of each line it broke: the bare line
		// after a stamped record that ends in one is that record's rest
		// ("[  257.1] mlx5_core 0000:56:00.0: " then "wait_func:1189:(pid
		// 72061): " then "ACCESS_REG(0x805) timeout. …").
		if p.lastStamped && p.have && strings.HasSuffix(p.cur.Text, " ") && strings.TrimSpace(p.cur.Text) != "" {
			p.cur.Text += strings.TrimLeft(line, " \t")
			return
		}
		if p.have && (aerWrapped(p.cur.Text, line) || cmdWrapped(p.cur.Text) || mlx5Wrapped(p.cur.Text)) {
			p.cur.Text += " " + strings.TrimSpace(line)
			return
		}
		p.lastStamped = false
	default:
		p.lastStamped = true
	}
	p.Flush()
	rec.Line = n
	p.cur, p.have = rec, true
}

// reBDFOnly is a line that holds only a PCI address.
var reBDFOnly = regexp.MustCompile(`^\s*` + bdf + `\s*$`)

// aerWrapped reports whether line is the rest of an AER line that a mail
// client wrapped: the source after "error received:" (aer.c
// aer_print_port_info) or the "type=…" after the severity of "PCIe Bus
// Error: severity=…," (aer_print_error).
func aerWrapped(prev, line string) bool {
	switch {
	case strings.HasSuffix(prev, " error received:"):
		return reBDFOnly.MatchString(line)
	case strings.HasSuffix(prev, ",") && strings.Contains(prev, "PCIe Bus Error: severity="):
		return strings.HasPrefix(strings.TrimSpace(line), "type=")
	}
	return false
}

// cmdWrapped reports whether the record so far is an mlx5 firmware
// command error a mail client wrapped before its end (cmd.c
// mlx5_cmd_out_err: "mlx5_cmd_out_err:803:(pid" / "1440):
// SET_ROCE_ADDRESS(0x761) op_mod(0x0) failed, status bad" /
// "parameter(0x3), syndrome (0x63c66), err(-22)"): the message ends with
// its "err(" code, so a bare line before it is its rest.
func cmdWrapped(prev string) bool {
	return len(prev) < 400 && (strings.Contains(prev, "mlx5_cmd_out_err:") || strings.Contains(prev, "mlx5_cmd_check:")) &&
		!strings.Contains(prev, "err(") && !strings.Contains(prev, "\n")
}

// mlx5Wrapped reports whether the record so far is an mlx5_core message a
// mail client wrapped with no trailing space: it ends at the device
// prefix ("mlx5_core 0000:d8:00.0:" / "wait_func_handle_exec_timeout:1062:
// (pid 1416): cmd[0]: CREATE_EQ(0x301)" / "recovered after timeout", cmd.c
// wait_func_handle_exec_timeout), at the "func:line:(pid n):" prefix
// that mlx5_core_warn/mlx5_core_err put before every message
// (drivers/net/ethernet/mellanox/mlx5/core/mlx5_core.h; "mlx5_core
// 0002:01:00.0: mlx5_pcie_event:326:(pid 3202):" / "Detected insufficient
// power on the PCIe slot (27W).", events.c mlx5_pcie_event), or at a
// command's opcode, which cmd.c never ends a message with.
func mlx5Wrapped(prev string) bool {
	if len(prev) > 300 || !strings.HasPrefix(prev, "mlx5_core ") || strings.Contains(prev, "\n") {
		return false
	}
	if strings.HasSuffix(prev, ":") {
		return reMlx5Prefix.MatchString(prev) || (strings.HasSuffix(prev, "):") && reMlx5FuncPrefix.MatchString(prev))
	}
	return strings.HasSuffix(prev, ")") && strings.Contains(prev, "cmd") && reOpcodeEnd.MatchString(prev)
}

var (
	// reMlx5Prefix is an mlx5_core message cut after its device.
	reMlx5Prefix = regexp.MustCompile(`^mlx5_core ` + bdf + `:$`)
	// reMlx5FuncPrefix is one cut after "func:line:(pid n):".
	reMlx5FuncPrefix = regexp.MustCompile(`^mlx5_core ` + bdf + `: [A-Za-z0-9_]+:\d+:\(pid \d+\):$`)
	// reOpcodeEnd is a message cut after "cmd[0]: CREATE_EQ(0x301)".
	reOpcodeEnd = regexp.MustCompile(`cmd\[?\d+\]?: [A-Z0-9_]+\(0x[0-9a-fA-F]+\)$`)
)

// Flush emits the record being read; call it at the end of the input.
func (p *TextParser) Flush() {
	if p.have {
		p.Records++
		p.emit(p.cur)
		p.have = false
	}
}

// collapsedAt returns where a second record starts inside line, -1 when
// none does: a journal stamp ("May 6 00:40:41 host prog: ", English month
// names) after a line that starts with one, or a dmesg stamp of six decimals ("[ 5044.302290] ")
// after a line that starts with one. Both are looked for only after a
// space, so a stamp quoted inside a message is not mistaken for a record
// unless it looks exactly like one.
func collapsedAt(line string) int {
	if len(line) < 40 {
		return -1
	}
	if line[0] == '[' {
		first := strings.IndexByte(line, ']')
		if first <= 0 {
			return -1
		}
		// '[' is rare in a message, and IndexByte finds it fast; a
		// space before it is checked after, the line's own stamp last.
		for off := first + 1; ; {
			j := strings.IndexByte(line[off:], '[')
			if j < 0 {
				return -1
			}
			k := off + j
			off = k + 1
			if line[k-1] != ' ' {
				continue
			}
			if end := strings.IndexByte(line[k:], ']'); end > 0 && sixDecimals(line[k+1:k+end]) {
				if sixDecimals(line[1:first]) {
					return k
				}
				return -1
			}
		}
	}
	// The clock "hh:mm:ss " of an English "Mon d" stamp, after the first
	// one; the line's own stamp is parsed only when one is found.
	if _, ok := months[line[:3]]; !ok {
		return -1
	}
	for off := 16; off < len(line)-9; {
		j := strings.IndexByte(line[off:], ':')
		if j < 0 {
			break
		}
		k := off + j - 2 // the clock's start
		off += j + 1
		if k < 7 || !clockAt(line, k) || line[k-1] != ' ' {
			continue
		}
		// Back over the day ("6", " 6", "06") to the month.
		day := k - 1
		for day > 0 && line[day-1] >= '0' && line[day-1] <= '9' && k-1-day < 2 {
			day--
		}
		sp := day
		for sp > 0 && line[sp-1] == ' ' && day-sp < 2 {
			sp--
		}
		m := sp - 3
		if day == k-1 || sp == day || m < 1 || line[m-1] != ' ' {
			continue
		}
		if _, ok := months[line[m:m+3]]; !ok {
			continue
		}
		if _, _, ok, err := journalPrefix(line[m:], 2000, time.UTC); !ok || err != nil {
			continue
		}
		if _, _, ok, err := journalPrefix(line, 2000, time.UTC); ok && err == nil {
			return m
		}
		return -1
	}
	return -1
}

// clockAt reports whether line holds "hh:mm:ss " at k.
func clockAt(line string, k int) bool {
	if k+9 > len(line) || line[k+2] != ':' || line[k+5] != ':' || line[k+8] != ' ' {
		return false
	}
	for _, i := range []int{0, 1, 3, 4, 6, 7} {
		if c := line[k+i]; c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sixDecimals reports whether stamp is dmesg's seconds since boot, padded
// and with microseconds: "   12.345678".
func sixDecimals(stamp string) bool {
	stamp = strings.TrimLeft(stamp, " ")
	secs, frac, ok := strings.Cut(stamp, ".")
	if !ok || secs == "" || len(frac) != 6 {
		return false
	}
	return allDigits(secs) && allDigits(frac)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

type lineKind int

const (
	lineBare    lineKind = iota // no timestamp
	lineStamped                 // a timestamp of any kind
	lineForeign                 // journal line of another program
)

// facilities and levels are the names `dmesg -x` prints
// (util-linux sys-utils/dmesg.c facility_names, level_names).
var (
	facilities = map[string]bool{"kern": true, "user": true, "mail": true, "daemon": true, "auth": true, "syslog": true,
		"lpr": true, "news": true, "uucp": true, "cron": true, "authpriv": true, "ftp": true,
		"local0": true, "local1": true, "local2": true, "local3": true, "local4": true, "local5": true, "local6": true, "local7": true}
	levels = map[string]int{"emerg": 0, "alert": 1, "crit": 2, "err": 3, "warn": 4, "notice": 5, "info": 6, "debug": 7}
)

var months = map[string]time.Month{
	"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
	"Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12,
}

// localMonths are the month abbreviations journalctl prints in other
// locales (strftime %b, glibc localedata LC_TIME abmon and ab_alt_mon),
// lower-cased, without a trailing period: de_DE, fr_FR, es_ES, it_IT,
// pt_BR/pt_PT, nl_NL, pl_PL, ru_RU, uk_UA, tr_TR, cs_CZ, sv_SE. Chinese,
// Japanese ("3月") and Korean ("3월") stamps are read by localMonth.
var localMonths = func() map[string]time.Month {
	byLocale := [][12]string{
		{"jan", "feb", "mär", "apr", "mai", "jun", "jul", "aug", "sep", "okt", "nov", "dez"},        // de_DE
		{"jän", "feb", "mär", "apr", "mai", "jun", "jul", "aug", "sep", "okt", "nov", "dez"},        // de_AT
		{"janv", "févr", "mars", "avr", "mai", "juin", "juil", "août", "sept", "oct", "nov", "déc"}, // fr_FR
		{"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic"},        // es_ES
		{"gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"},        // it_IT
		{"jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"},        // pt_BR, pt_PT
		{"jan", "feb", "mrt", "apr", "mei", "jun", "jul", "aug", "sep", "okt", "nov", "dec"},        // nl_NL
		{"sty", "lut", "mar", "kwi", "maj", "cze", "lip", "sie", "wrz", "paź", "lis", "gru"},        // pl_PL
		{"янв", "фев", "мар", "апр", "мая", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"},        // ru_RU abmon
		{"янв", "фев", "мар", "апр", "май", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"},        // ru_RU ab_alt_mon
		{"січ", "лют", "бер", "кві", "тра", "чер", "лип", "сер", "вер", "жов", "лис", "гру"},        // uk_UA
		{"oca", "şub", "mar", "nis", "may", "haz", "tem", "ağu", "eyl", "eki", "kas", "ara"},        // tr_TR
		{"led", "úno", "bře", "dub", "kvě", "čvn", "čvc", "srp", "zář", "říj", "lis", "pro"},        // cs_CZ
		{"jan", "feb", "mar", "apr", "maj", "jun", "jul", "aug", "sep", "okt", "nov", "dec"},        // sv_SE, da_DK
	}
	m := map[string]time.Month{}
	for _, l := range byLocale {
		for i, a := range l {
			m[a] = time.Month(i + 1)
		}
	}
	return m
}()

// localMonth reads a month abbreviation of any locale journalctl prints:
// English, the table above, or "N月"/"N월" (zh, ja, ko).
func localMonth(tok string) (time.Month, bool) {
	if tok == "" || tok[0] < 0x80 && !isAlnum(tok[0]) {
		// No month starts so: "[" of "[   12.5] …", most kernel lines.
		return 0, false
	}
	if m, ok := months[tok]; ok {
		return m, true
	}
	low := strings.TrimSuffix(strings.ToLower(tok), ".")
	if m, ok := localMonths[low]; ok {
		return m, true
	}
	for _, suf := range []string{"月", "월"} {
		if n, ok := strings.CutSuffix(tok, suf); ok {
			if v, err := strconv.Atoi(n); err == nil && v >= 1 && v <= 12 {
				return time.Month(v), true
			}
		}
	}
	return 0, false
}

func parseTextLine(line string, year int, loc *time.Location) (Record, lineKind, error) {
	rec, kind, _, err := parseTextLineRel(line, year, loc)
	return rec, kind, err
}

// relStamp is the "[  +0.000844]" stamp of dmesg --reltime and -H: the
// time since the message before.
type relStamp struct {
	d  time.Duration
	ok bool
}

func parseTextLineRel(line string, year int, loc *time.Location) (Record, lineKind, relStamp, error) {
	var rel relStamp
	rec, kind, err := parseTextLineInto(line, year, loc, &rel)
	return rec, kind, rel, err
}

func parseTextLineInto(line string, year int, loc *time.Location, rel *relStamp) (Record, lineKind, error) {
	rec := Record{Priority: -1}
	s := line
	kind := lineBare
	// Raw dmesg (-r): "<6>[  12.3] text".
	if len(s) > 3 && s[0] == '<' {
		if end := strings.IndexByte(s, '>'); end > 1 && end < 5 {
			if p, err := strconv.Atoi(s[1:end]); err == nil {
				rec.Priority = p & 7
				s = s[end+1:]
			}
		}
	}
	// dmesg -x: "kern  :warn  : [  12.3] text" (facility and level
	// names of util-linux dmesg, padded).
	// A "[" starts no facility name: most lines skip the lookup.
	if fac, rest, ok := strings.Cut(s, ":"); ok && s[0] != '[' && facilities[strings.TrimSpace(fac)] {
		if lvl, rest2, ok := strings.Cut(rest, ":"); ok {
			if p, known := levels[strings.TrimSpace(lvl)]; known {
				rec.Priority = p
				s = strings.TrimPrefix(rest2, " ")
			}
		}
	}
	// A syslog line cut before its program tag: "kernel: [ 13.231617] …"
	// (a paste that kept the tag, not the date and host).
	if r, ok := strings.CutPrefix(s, syslogKernelTag); ok {
		s = r
	}
	if r, ok := xidDaemonLine(s, year, loc); ok {
		return r, lineStamped, nil
	}
	// journalctl: "Mar 05 10:11:12 host kernel: text" or ISO stamps;
	// OpenWrt logread: "Sun Apr 27 05:48:33 2025 kern.info kernel: text".
	t, rest, ok, err := ctimePrefix(s, loc)
	if !ok {
		t, rest, ok, err = journalPrefix(s, year, loc)
	}
	if ok {
		if err != nil {
			return rec, kind, err
		}
		if p, r, isFac := facilityLevel(rest); isFac {
			rec.Priority, rest = p, r
		}
		prog, text, found := strings.Cut(rest, ": ")
		if p, r, ok := solarisKernel(text); found && ok {
			// Solaris syslog: the kernel's lines carry the module that
			// logged them ("genunix", "unix", "scsi") and the message id
			// and facility ("[ID 204426 kern.warning] WARNING: …").
			rec.Time, rec.Priority = t, p
			s, kind = r, lineStamped
		} else if !found || (prog != "kernel" && !strings.HasPrefix(prog, "kernel[")) {
			if d := carrierDaemon(prog, text); found && d == "" && strings.Contains(text, xidDaemonMark) {
				// The device plugin's Xid line, as the journal keeps it.
				name, _, _ := strings.Cut(prog, "[")
				rec.Time, rec.Text = t, name+": "+text
				return rec, lineStamped, nil
			} else if found && d != "" {
				// The carrier changes a network daemon logs are the
				// kernel's netdev carrier: kept, with the daemon named.
				rec.Time, rec.Text = t, d+": "+text
				return rec, lineStamped, nil
			}
			return rec, lineForeign, nil
		} else {
			rec.Time = t
			s = text
			kind = lineStamped
		}
	} else if t, rest, ok, err := isoPrefix(s); ok && !zuluStamp(s) {
		// dmesg --time-format iso: "2024-03-05T10:11:12,123456+01:00 text".
		if err != nil {
			return rec, kind, err
		}
		rec.Time, s, kind = t, rest, lineStamped
	}
	if r, ok := CutCallerID(s); ok {
		// A kernel with printk.time off prints the caller id alone:
		// "[  T292] igb 0000:09:00.0: …".
		rec.Text = r
		return rec, lineStamped, nil
	}
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return rec, kind, fmt.Errorf("%w: '[' without ']'", ErrMalformed)
		}
		stamp := strings.TrimSpace(s[1:end])
		if r, isRel := strings.CutPrefix(stamp, "+"); isRel {
			// dmesg --reltime / -H: "[  +0.000844]" after the previous
			// message.
			d, ok, err := parseSeconds(strings.TrimSpace(r))
			if !ok || err != nil {
				return rec, kind, fmt.Errorf("%w: relative timestamp [%s]", ErrMalformed, stamp)
			}
			rel.d, rel.ok = d, true
			rec.Text = cutCaller(strings.TrimPrefix(s[end+1:], " "))
			return rec, lineStamped, nil
		}
		if t, ok := reltimeMinute(stamp, year, loc); ok {
			// dmesg --reltime / -H prints the minute at its first message:
			// "[Feb23 16:24]".
			rec.Time = t
			rec.Text = cutCaller(strings.TrimPrefix(s[end+1:], " "))
			return rec, lineStamped, nil
		}
		if d, ok, err := parseSeconds(stamp); ok {
			if err != nil {
				return rec, kind, err
			}
			rec.Mono, rec.HasMono = d, true
			kind = lineStamped
			s = strings.TrimPrefix(s[end+1:], " ")
		} else if t, err := time.ParseInLocation("Mon Jan _2 15:04:05 2006", stamp, loc); err == nil {
			rec.Time = t
			kind = lineStamped
			s = strings.TrimPrefix(s[end+1:], " ")
		}
		// Anything else in brackets is message text ("[drm] …").
	}
	if kind == lineStamped {
		s = cutCaller(s)
	}
	rec.Text = s
	return rec, kind, nil
}

// CutCallerID cuts the printk caller id that a kernel built with
// CONFIG_PRINTK_CALLER puts before each message: "[  T292] " (the task's
// pid) or "[    C3] " (the CPU, outside task context), padded to six
// characters (kernel/printk/printk.c print_caller, "[%6s]"). The kernel
// prints it right after its time stamp ("[  200.105524][  T292] igb …",
// info_print_prefix), or alone when printk.time is off; util-linux dmesg
// prints it after its own stamp and a space, padded to the width of the
// largest pid ("[  200.105524] [    T292] "). It returns the text after
// the id and its one space, and false when s does not start with one.
func CutCallerID(s string) (string, bool) {
	if len(s) < 8 || s[0] != '[' {
		return s, false
	}
	i := 1
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i >= len(s) || s[i] != 'T' && s[i] != 'C' {
		return s, false
	}
	i++
	d := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	// At most ten digits (a u32); the padded field is six wide or more.
	if i == d || i-d > 10 || i < 7 || i >= len(s) || s[i] != ']' {
		return s, false
	}
	return strings.TrimPrefix(s[i+1:], " "), true
}

// cutCaller is s without its leading caller id, if it has one.
func cutCaller(s string) string {
	r, _ := CutCallerID(s)
	return r
}

// carrierDaemons are the journal programs whose carrier lines are kept:
// systemd-networkd's link_update ("ib6: Lost carrier", "ib6: Gained
// carrier"; older releases lower-case "lost") and NetworkManager's
// ("<info>  [1692.1] device (ib0): carrier: link connected").
var carrierDaemons = []string{"systemd-networkd", "NetworkManager"}

// carrierDaemon returns the daemon's name when prog ("systemd-networkd[5398]")
// is one of carrierDaemons and text a carrier line of it, else "".
func carrierDaemon(prog, text string) string {
	if !strings.Contains(text, "arrier") {
		return ""
	}
	name, _, _ := strings.Cut(prog, "[")
	if slices.Contains(carrierDaemons, name) {
		return name
	}
	return ""
}

// ctimePrefix recognises the ctime(3) stamp OpenWrt's logread (ubox
// log/logread.c) prints before the facility: "Sun Apr 27 05:48:33 2025 ".
func ctimePrefix(s string, loc *time.Location) (time.Time, string, bool, error) {
	const layout = "Mon Jan _2 15:04:05 2006"
	if len(s) <= len(layout) || s[3] != ' ' || s[7] != ' ' || s[len(layout)] != ' ' {
		return time.Time{}, "", false, nil
	}
	if _, ok := months[s[4:7]]; !ok || s[13] != ':' || s[16] != ':' {
		return time.Time{}, "", false, nil
	}
	t, err := time.ParseInLocation(layout, s[:len(layout)], loc)
	if err != nil {
		return time.Time{}, "", true, fmt.Errorf("%w: logread timestamp %q", ErrMalformed, s[:len(layout)])
	}
	return t, s[len(layout)+1:], true, nil
}

// syslogLevels are the level names of syslog(3)'s prioritynames that
// logread and busybox syslogd print after the facility ("kern.warn").
var syslogLevels = map[string]int{"emerg": 0, "panic": 0, "alert": 1, "crit": 2, "err": 3, "error": 3,
	"warn": 4, "warning": 4, "notice": 5, "info": 6, "debug": 7}

// facilityLevel takes a leading "kern.info " (logread, busybox syslogd)
// off a syslog line and returns its level.
func facilityLevel(s string) (int, string, bool) {
	tok, rest, ok := strings.Cut(s, " ")
	if !ok {
		return 0, s, false
	}
	fac, lvl, ok := strings.Cut(tok, ".")
	if !ok || !facilities[fac] {
		return 0, s, false
	}
	p, ok := syslogLevels[lvl]
	if !ok {
		return 0, s, false
	}
	return p, rest, true
}

// reltimeMinute reads the "Feb23 16:24" (or "Feb 23 16:24") stamp of
// dmesg --reltime; the year is not printed.
func reltimeMinute(stamp string, year int, loc *time.Location) (time.Time, bool) {
	if len(stamp) < 10 || len(stamp) > 13 {
		return time.Time{}, false
	}
	if c := stamp[0] | 0x20; c < 'a' || c > 'z' {
		return time.Time{}, false // "12345.678901", the common stamp: not parsed twice to fail
	}
	for _, layout := range []string{"Jan2 15:04", "Jan _2 15:04"} {
		if t, err := time.ParseInLocation(layout, stamp, loc); err == nil {
			if year == 0 {
				year = time.Now().In(loc).Year()
			}
			return time.Date(year, t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, loc), true
		}
	}
	return time.Time{}, false
}

// decimal is the value of at most 18 ASCII digits.
func decimal(d string) int64 {
	var v int64
	for i := 0; i < len(d); i++ {
		v = v*10 + int64(d[i]-'0')
	}
	return v
}

// parseSeconds parses "12.345678"; ok is false when stamp does not look like
// seconds at all, err set when it does but is broken.
func parseSeconds(stamp string) (time.Duration, bool, error) {
	if stamp == "" || stamp[0] < '0' || stamp[0] > '9' {
		return 0, false, nil
	}
	secs, frac, _ := strings.Cut(stamp, ".")
	for i := 0; i < len(secs)+len(frac); i++ {
		c := byte(0) // a byte of secs, then of frac: no concatenation per line
		if i < len(secs) {
			c = secs[i]
		} else {
			c = frac[i-len(secs)]
		}
		if c < '0' || c > '9' {
			if strings.ContainsAny(stamp, " :") {
				return 0, false, nil // "[Tue …]" handled by the caller
			}
			return 0, true, fmt.Errorf("%w: timestamp [%s]", ErrMalformed, stamp)
		}
	}
	// Every byte is a digit: up to 18 of them are summed by hand (a
	// tenth of a kernel log's CPU went to ParseInt), more overflow or not
	// as ParseInt says.
	var s int64
	var err error
	if len(secs) <= 18 {
		s = decimal(secs)
	} else {
		s, err = strconv.ParseInt(secs, 10, 64)
	}
	if err != nil || s > 1<<33 || len(frac) > 9 {
		return 0, true, fmt.Errorf("%w: timestamp [%s]", ErrMalformed, stamp)
	}
	var ns int64
	if frac != "" {
		f := decimal(frac)
		for i := len(frac); i < 9; i++ {
			f *= 10
		}
		ns = f
	}
	return time.Duration(s)*time.Second + time.Duration(ns), true, nil
}

// journalPrefix recognises journalctl's "Mar 05 10:11:12 host " and
// "2024-03-05T10:11:12+0000 host " (short-iso[-precise]) prefixes. ok
// reports a recognised prefix; err a recognised but broken one.
func journalPrefix(s string, year int, loc *time.Location) (time.Time, string, bool, error) {
	if len(s) > 16 && s[3] == ' ' && s[6] == ' ' && s[9] == ':' && s[12] == ':' && s[15] == ' ' {
		mon, ok := months[s[:3]]
		if !ok {
			return localJournalPrefix(s, year, loc)
		}
		day, err1 := strconv.Atoi(strings.TrimSpace(s[4:6]))
		h, err2 := strconv.Atoi(s[7:9])
		m, err3 := strconv.Atoi(s[10:12])
		sec, err4 := strconv.Atoi(s[13:15])
		if err := errors.Join(err1, err2, err3, err4); err != nil || day < 1 || day > 31 || h > 23 || m > 59 || sec > 60 {
			return time.Time{}, "", true, fmt.Errorf("%w: journal timestamp %q", ErrMalformed, s[:15])
		}
		rest, err := journalHost(s[16:])
		if err != nil {
			return time.Time{}, "", true, err
		}
		if year == 0 {
			year = time.Now().In(loc).Year()
		}
		return time.Date(year, mon, day, h, m, sec, 0, loc), rest, true, nil
	}
	if t, rest, ok, err := localJournalPrefix(s, year, loc); ok {
		return t, rest, true, err
	}
	if t, rest, ok, err := isoPrefix(s); ok && err == nil {
		host, rest2, found := strings.Cut(rest, " ")
		if found && host != "" && !strings.HasPrefix(host, "[") && strings.Contains(rest2, ": ") {
			if prog, _, _ := strings.Cut(rest2, ": "); !strings.Contains(prog, " ") {
				return t, rest2, true, nil
			}
		}
	}
	return time.Time{}, "", false, nil
}

// journalHost skips the host name after a journal stamp: "node7 kernel:
// msg" gives "kernel: msg". A line that names no host ("kernel: msg",
// seen in pastes) keeps its program.
func journalHost(s string) (string, error) {
	host, rest, ok := strings.Cut(s, " ")
	if host == "kernel:" || strings.HasPrefix(host, "kernel[") {
		return s, nil
	}
	if !ok || host == "" {
		return "", fmt.Errorf("%w: journal line without host and program", ErrMalformed)
	}
	return rest, nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// localJournalPrefix recognises journal stamps whose month is not an
// English abbreviation, so not of fixed width: "Feb 23 …" in German is
// "Feb 23", in Russian "фев 23", in French "févr. 23", in Chinese "2月 23".
func localJournalPrefix(s string, year int, loc *time.Location) (time.Time, string, bool, error) {
	s = strings.TrimLeft(s, " ")
	monTok, rest, ok := strings.Cut(s, " ")
	if !ok {
		return time.Time{}, "", false, nil
	}
	mon, ok := localMonth(monTok)
	if !ok {
		return time.Time{}, "", false, nil
	}
	rest = strings.TrimLeft(rest, " ")
	dayTok, rest, ok := strings.Cut(rest, " ")
	if !ok {
		return time.Time{}, "", false, nil
	}
	dayTok = strings.TrimSuffix(dayTok, "日")
	day, err := strconv.Atoi(dayTok)
	if err != nil {
		return time.Time{}, "", false, nil
	}
	clock, rest, ok := strings.Cut(rest, " ")
	// -o short-precise: "10:11:12.123456".
	var frac time.Duration
	if len(clock) > 9 && clock[8] == '.' {
		if d, ok, err := parseSeconds("0" + clock[8:]); ok && err == nil {
			frac, clock = d, clock[:8]
		}
	}
	if !ok || len(clock) != 8 || clock[2] != ':' || clock[5] != ':' {
		return time.Time{}, "", false, nil
	}
	h, err1 := strconv.Atoi(clock[:2])
	m, err2 := strconv.Atoi(clock[3:5])
	sec, err3 := strconv.Atoi(clock[6:])
	if err := errors.Join(err1, err2, err3); err != nil || day < 1 || day > 31 || h > 23 || m > 59 || sec > 60 {
		return time.Time{}, "", true, fmt.Errorf("%w: journal timestamp %q", ErrMalformed, monTok+" "+dayTok+" "+clock)
	}
	rest, err = journalHost(rest)
	if err != nil {
		return time.Time{}, "", true, err
	}
	if year == 0 {
		year = time.Now().In(loc).Year()
	}
	return time.Date(year, mon, day, h, m, sec, 0, loc).Add(frac), rest, true, nil
}

// zuluStamp reports whether s starts with an RFC 3339 stamp in UTC's "Z"
// form ("2026-01-06T10:21:18.113175631Z"): the stamp container runtimes
// and Kubernetes put before a program's lines (kubectl logs --timestamps,
// CRI log files), never dmesg's, whose --time-format iso always prints
// the zone as an offset ("+00:00", util-linux dmesg.c).
func zuluStamp(s string) bool {
	stamp, _, _ := strings.Cut(s, " ")
	stamp, _, _ = strings.Cut(stamp, "\t")
	return len(stamp) >= 20 && stamp[len(stamp)-1] == 'Z'
}

// isoPrefix recognises an RFC 3339-like stamp at the start of s, with ',' or
// '.' fractions and "+0100" or "+01:00" zones.
func isoPrefix(s string) (time.Time, string, bool, error) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' {
		return time.Time{}, "", false, nil
	}
	stamp, rest, _ := strings.Cut(s, " ")
	norm := strings.Replace(stamp, ",", ".", 1)
	for _, layout := range []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z0700"} {
		if t, err := time.Parse(layout, norm); err == nil {
			return t, rest, true, nil
		}
	}
	return time.Time{}, "", true, fmt.Errorf("%w: ISO timestamp %q", ErrMalformed, stamp)
}

// Detect reports whether text looks like a kernel log this package parses:
// most of its first non-blank lines are /dev/kmsg records, or carry a
// dmesg/journal timestamp. Plain untimestamped text is not claimed.
func Detect(text string) bool {
	seen, hits := 0, 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		seen++
		if _, err := ParseRecord([]byte(line)); err == nil {
			hits++
		} else if _, kind, err := parseTextLine(line, 2000, time.UTC); err == nil && kind != lineBare {
			hits++ // dmesg stamp, or a journal line (the kernel's or another program's)
		} else if devLine(line) {
			hits++ // an unstamped kernel line of a PCI device or driver
		} else if strings.Contains(line, " kernel: ") {
			hits++ // a journal stamp in a locale the parser does not read
		}
		if seen == 50 {
			break
		}
	}
	return seen > 0 && hits*2 > seen
}

// xidDaemonMark starts the Xid line of NVIDIA's k8s-device-plugin health
// check ("XidCriticalError: Xid=69 on Device=GPU-…, the device will go
// unhealthy."): the GPU operator's view of an Xid the kernel log also
// holds, often the only one a Kubernetes user has.
const xidDaemonMark = "XidCriticalError: Xid="

// reXidDaemon is the device plugin's log prefix: Go's log package
// ("2020/08/10 19:09:42 ", microseconds optional) or klog
// ("I0810 19:09:42.123456       1 health.go:159] ").
var reXidDaemon = regexp.MustCompile(`^(?:(?P<go>\d{4}/\d\d/\d\d \d\d:\d\d:\d\d)(?:\.\d{1,6})?|[IWEF](?P<klog>\d{4} \d\d:\d\d:\d\d)(?:\.\d{1,9})?\s+\d+ [\w.-]+:\d+\]) `)

// xidDaemonLine reads a device plugin Xid line as a stamped record whose
// text names the daemon ("nvidia-device-plugin: XidCriticalError: …").
func xidDaemonLine(s string, year int, loc *time.Location) (Record, bool) {
	if len(s) < 20 || !(s[0] >= '0' && s[0] <= '9' || strings.IndexByte("IWEF", s[0]) >= 0) {
		return Record{}, false
	}
	i := strings.Index(s, xidDaemonMark)
	if i < 0 {
		return Record{}, false
	}
	m := reXidDaemon.FindStringSubmatch(s[:i])
	if m == nil {
		return Record{}, false
	}
	rec := Record{Priority: -1, Text: "nvidia-device-plugin: " + s[len(m[0]):]}
	var err error
	if m[1] != "" {
		rec.Time, err = time.ParseInLocation("2006/01/02 15:04:05", m[1], loc)
	} else {
		rec.Time, err = time.ParseInLocation("2006 0102 15:04:05", fmt.Sprintf("%04d %s", year, m[2]), loc)
	}
	return rec, err == nil
}

// syslogKernelTag is the program tag of the kernel's syslog lines.
const syslogKernelTag = "kernel: "

// solarisKernel reads the tag Solaris syslogd puts before a kernel line
// (the msgid and the facility.level of the message, "[ID 204426
// kern.warning] "): the level as a printk priority, and the text after
// the tag. Other facilities' lines are no kernel lines.
func solarisKernel(text string) (int, string, bool) {
	rest, ok := strings.CutPrefix(text, "[ID ")
	if !ok {
		return 0, "", false
	}
	tag, after, ok := strings.Cut(rest, "] ")
	id, fl, ok2 := strings.Cut(tag, " ")
	if !ok || !ok2 || id == "" || strings.Trim(id, "0123456789") != "" {
		return 0, "", false
	}
	lvl, isKern := strings.CutPrefix(fl, "kern.")
	p, known := solarisLevels[lvl]
	if !isKern || !known {
		return 0, "", false
	}
	return p, after, true
}

// solarisLevels are syslog's level names (syslog.conf(5)) as priorities.
var solarisLevels = map[string]int{"emerg": 0, "alert": 1, "crit": 2, "err": 3, "warning": 4, "notice": 5, "info": 6, "debug": 7}
