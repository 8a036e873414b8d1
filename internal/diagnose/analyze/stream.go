package analyze

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/rules/host"
	ncclrules "github.com/ibdoctor/ibdoctor/internal/rules/nccl"
)

// Big inputs. A file up to StreamAbove bytes is read whole and analysed
// as a paste. A bigger one is streamed when its first MiB holds a kernel
// log or an NCCL debug log (the outputs that reach gigabytes), alone,
// interleaved, or among other tools' outputs (a job log that prints
// ibstat and nvidia-smi topo -m before the NCCL log): it is read once,
// line by line, and cut into outputs as a paste is. The logs go through
// their parsers as they are read, which keep only what the findings
// need (counts, and the first evidence lines of each kind of event and
// subject); the other outputs are kept, each up to maxKeptOutput and
// all up to maxKept, and judged at the end as in a paste, at their line
// numbers. An output past those bounds is skipped with a note that says
// which lines, so memory stays bounded whatever the size. Other big
// inputs are read whole up to MaxInMemory.
const (
	// StreamAbove is the size above which an input may be streamed.
	StreamAbove = 8 << 20
	// MaxInMemory bounds an input that is read whole.
	MaxInMemory = 512 << 20
	// decideOn is how much of a big input decides whether it streams.
	decideOn = 1 << 20
	// maxStreamLine bounds one line of a streamed input; a longer line
	// is skipped (counted, with its number), never held whole.
	maxStreamLine = 256 << 10
)

// streamAbove is StreamAbove; tests lower it to stream small inputs.
var streamAbove = StreamAbove

// AnalyzeReader analyses one input read from r; size is its length when
// known before reading (a regular file), -1 otherwise. Small inputs are
// analysed as AnalyzeText does; big kernel and NCCL logs stream, alone
// or among other outputs.
func AnalyzeReader(name string, r io.Reader, size int64, opts Options) File {
	head := make([]byte, max(streamAbove+1, decideOn))
	n, err := io.ReadFull(r, head)
	head = head[:n]
	switch {
	case (err == io.EOF || err == io.ErrUnexpectedEOF) && n <= streamAbove:
		return AnalyzeText(name, string(head), opts)
	case err != nil && err != io.EOF && err != io.ErrUnexpectedEOF:
		return readError(name, err)
	}
	if bytes.IndexByte(head[:min(len(head), 8192)], 0) >= 0 {
		// Not read further: /dev/zero piped in would never end.
		return File{File: name, Segments: []Segment{}, NotRecognised: true,
			Error: "binary data, not a tool's text output (a bundle is read with --root by check, status and doctor)"}
	}
	cut := head[:min(len(head), decideOn)]
	if err == nil || len(cut) < len(head) {
		// More may follow: decide on whole lines. At the end of the
		// input its last line counts, with or without its LF.
		if i := bytes.LastIndexByte(cut, '\n'); i > 0 {
			cut = cut[:i+1]
		}
	}
	forced, ok, why := streamKind(string(cut), opts)
	if !ok {
		if size > MaxInMemory {
			return readError(name, fmt.Errorf("%d MiB, more than the %d MiB read whole (%s); only kernel and NCCL logs are streamed: split it", size>>20, MaxInMemory>>20, why))
		}
		var buf bytes.Buffer
		if size > 0 {
			buf.Grow(int(size) + 1)
		}
		buf.Write(head)
		head = nil
		if _, err := buf.ReadFrom(io.LimitReader(r, int64(MaxInMemory-buf.Len()+1))); err != nil {
			return readError(name, err)
		}
		if buf.Len() > MaxInMemory {
			return readError(name, fmt.Errorf("more than the %d MiB read whole (%s); only kernel and NCCL logs are streamed: split it", MaxInMemory>>20, why))
		}
		return AnalyzeText(name, buf.String(), opts)
	}
	s := newStreamer(name, forced, opts)
	if err := s.read(io.MultiReader(bytes.NewReader(head), r)); err != nil {
		return readError(name, err)
	}
	return s.file()
}

func readError(name string, err error) File {
	return File{File: name, Segments: []Segment{}, Error: fmt.Sprintf("%s: %v", name, err)}
}

// streamKind decides from the start of a big input whether it streams:
// ok when it holds kernel or NCCL log lines (other tools' outputs
// around them are cut out as Split cuts them) and no wrapper to take
// off its lines; forced is the kind every line is read as (--kind, or a
// log recognised only as a whole), "" when lines are split into
// outputs. why says why not.
func streamKind(head string, opts Options) (forced Kind, ok bool, why string) {
	streams := func(k Kind) bool { return k == KindKernel || k == KindNCCLLog }
	if opts.Kind != KindUnknown {
		if streams(opts.Kind) {
			return opts.Kind, true, ""
		}
		return "", false, "a " + string(opts.Kind) + " output"
	}
	ls := Lines(head)
	if _, rw := normalize(ls); len(rw) > 0 {
		return "", false, "its lines carry " + rw[0].What
	}
	other := ""
	for _, sp := range Split(ls) {
		switch {
		case streams(sp.Kind):
			return "", true, ""
		case sp.Kind != KindUnknown && other == "":
			other = string(sp.Kind)
		}
	}
	if other != "" {
		return "", false, "it holds " + other + " output"
	}
	if k := whole(head); streams(k) {
		return k, true, ""
	}
	return "", false, "not a kernel or NCCL log"
}

// streamer reads one big input line by line: a splitter cuts it into
// outputs as Split cuts a paste; the kernel and NCCL logs go through
// their parsers as they are read, the other outputs are kept (each up
// to maxKeptOutput, all up to maxKept) and judged at the end as a paste
// of them is, at their line numbers.
type streamer struct {
	name string
	opts Options
	// forced is the kind every line is read as ("" when the lines are
	// split into outputs).
	forced Kind
	split  *splitter
	// n is the number of lines read; pend is line n, which the splitter
	// reads once the line after it is known.
	n       int
	pend    string
	hasPend bool
	// queue[qh:] are the lines the splitter has read but not yet given
	// to an output (a new output may start up to splitBack lines up).
	queue []queued
	qh    int
	// cur is the output the lines given go to; last the line given last.
	cur  *output
	last string

	nccl    *nccllog.Parser
	kern    *kmsg.TextParser
	cls     *kmsg.Classifier
	fold    *host.KernelFolder
	logs    map[Kind]*streamLog
	order   []Kind
	anyKmsg bool

	// The outputs kept to be judged whole: their spans, lines, and the
	// line above each; kept is their size.
	spans []Span
	parts []part
	above map[int]string
	kept  int
	// padded counts the lines above the kept outputs read at their
	// line numbers.
	padded int
	// sampled are outputs of no known kind too big to keep: their first
	// lines say what they resemble.
	sampled      []part
	sampledSpans []Span
	// dropped are the outputs not judged: too big, or too many.
	dropped []Segment
	// more counts the outputs past maxOutputs, lines moreFrom-moreTo.
	more, moreFrom, moreTo int

	long      []int
	longCount int
}

type queued struct {
	n int
	l string
	// mp is maybePrompt(l).
	mp bool
}

// output is the output being read: a log's run, or an output kept whole
// (until it grows past what is kept).
type output struct {
	kind  Kind
	start int
	above string
	ls    []string
	size  int
	// over says why the output is not kept whole ("" while it is).
	over string
	// text says it holds a line other than blanks, fences and prompts.
	text bool
}

// The bounds of what a streamed input keeps to judge whole (variables:
// tests lower them).
var (
	// maxKeptOutput bounds one output other than a kernel or NCCL
	// log: its bytes, and 16 a line.
	maxKeptOutput = 8 << 20
	// maxKept bounds all of them.
	maxKept = 32 << 20
	// maxOutputs bounds how many are judged, or listed as not.
	maxOutputs = 200
	// maxPadLines bounds the lines above the kept outputs whose parsers
	// read them at their line numbers (nccl-tests, perftest, ibdiagnet,
	// the fabric tools): each is read after as many blank lines, so the
	// lines above all of them are bounded.
	maxPadLines = 32 << 20
)

// sampleLines are the lines of an unrecognised output kept to say what
// it resembles once it is too big to keep.
const sampleLines = 200

// longLine stands for a line too long to read: not blank, no tool's.
const longLine = "\x00(a line too long to read)"

// streamLog is what is known of one kind's lines: where they are and in
// how many runs (interleaved with the other kind's).
type streamLog struct {
	first, last, runs int
}

func newStreamer(name string, forced Kind, opts Options) *streamer {
	s := &streamer{name: name, opts: opts, logs: map[Kind]*streamLog{}, forced: forced, above: map[int]string{}}
	if forced == KindUnknown {
		s.split = newSplitter(s.emit)
	}
	s.nccl = nccllog.NewParser(name, true)
	s.cls = kmsg.NewClassifier()
	s.fold = host.NewKernelFolder()
	s.kern = kmsg.NewTextParser(name, kmsg.TextOptions{Year: opts.Year}, func(r kmsg.Record) {
		for _, e := range s.cls.Add(r) {
			s.fold.Add(e)
		}
	})
	s.kern.MaxErrors = 5
	return s
}

// read splits r into lines as Lines does (LF, CRLF or a bare CR end a
// line); a line longer than maxStreamLine is skipped, not held. Whole
// lines are made into strings a block at a time (one allocation for
// many lines, not one each); a block is small, so the few lines the
// parsers keep hold little else in memory.
func (s *streamer) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, maxStreamLine)
	for {
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
		}
		chunk, _ := br.Peek(min(br.Buffered(), readBlock))
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			block := string(chunk[:i+1])
			if _, err := br.Discard(i + 1); err != nil {
				return err
			}
			for len(block) > 0 {
				j := strings.IndexByte(block, '\n')
				s.crLine(block[:j])
				block = block[j+1:]
			}
			continue
		}
		// No whole line in the block: read one line as it comes.
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			s.longCount++
			if len(s.long) < 5 {
				s.long = append(s.long, s.n+1)
			}
			s.line(longLine)
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			continue
		}
		if len(b) > 0 {
			s.crLine(string(bytes.TrimSuffix(b, []byte{'\n'})))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readBlock is the most bytes of whole lines read makes one string of.
const readBlock = 16 << 10

// crLine reads one line without its LF: a CR before the end ends a line
// too.
func (s *streamer) crLine(l string) {
	l = strings.TrimSuffix(l, "\r")
	if strings.IndexByte(l, '\r') < 0 {
		s.line(l)
		return
	}
	for {
		i := strings.IndexByte(l, '\r')
		if i < 0 {
			s.line(l)
			return
		}
		s.line(l[:i])
		l = l[i+1:]
	}
}

// line reads the next line.
func (s *streamer) line(l string) {
	if s.forced != KindUnknown {
		s.n++
		s.give(s.n, l, maybePrompt(l), s.forced)
		return
	}
	if s.hasPend {
		s.step(s.pend, l)
	}
	s.n++
	s.pend, s.hasPend = l, true
}

// step gives the splitter line n-1 of the lines read, with line n after
// it, and the lines no new output can take to the output they are in.
func (s *streamer) step(l, next string) {
	if s.qh >= 64 {
		s.queue = append(s.queue[:0], s.queue[s.qh:]...)
		s.qh = 0
	}
	s.queue = append(s.queue, queued{n: s.split.n + 1, l: l})
	s.split.step(l, next)
	s.queue[len(s.queue)-1].mp = s.split.mp
	for s.qh < len(s.queue) && s.queue[s.qh].n <= s.split.n-splitBack {
		q := s.queue[s.qh]
		s.give(q.n, q.l, q.mp, s.split.cur.Kind)
		s.qh++
	}
}

// emit ends an output the splitter found: its lines still queued go to
// it.
func (s *streamer) emit(sp Span) {
	for s.qh < len(s.queue) && s.queue[s.qh].n <= sp.End {
		q := s.queue[s.qh]
		s.give(q.n, q.l, q.mp, sp.Kind)
		s.qh++
	}
	s.close(sp)
}

// flush reads the last line and ends the last output.
func (s *streamer) flush() {
	if s.forced != KindUnknown {
		if s.n > 0 {
			s.close(Span{Kind: s.forced, Start: 1, End: s.n})
		}
		return
	}
	if s.hasPend {
		s.step(s.pend, "")
		s.hasPend = false
	}
	s.split.end()
}

// give reads line n as a line of an output of kind k; mp is
// maybePrompt(l).
func (s *streamer) give(n int, l string, mp bool, k Kind) {
	o := s.cur
	if o == nil {
		o = &output{kind: k, start: n, above: s.last}
		s.cur = o
	}
	s.last = l
	prompt := mp && isPrompt(l)
	switch k {
	case KindNCCLLog, KindKernel:
		if prompt || l == longLine {
			return // segmentText blanks prompts
		}
		if k == KindNCCLLog {
			s.nccl.Line(n, l)
			return
		}
		if !s.anyKmsg && kmsg.DetectLine(l) {
			s.anyKmsg = true
		}
		s.kern.Line(n, l)
		return
	}
	if l == longLine {
		l = ""
	}
	if !o.text && strings.TrimSpace(l) != "" && !isFence(l) && !prompt {
		o.text = true
	}
	o.size += len(l) + 16
	if o.over != "" {
		return
	}
	switch {
	case o.size > maxKeptOutput:
		o.over = fmt.Sprintf("more than the %s of one output kept to judge it whole", sizeText(maxKeptOutput))
	case s.kept+o.size > maxKept:
		o.over = fmt.Sprintf("the outputs kept to judge whole reached %s", sizeText(maxKept))
	case k != KindUnknown && !segmentNumbered(k) && s.padded+o.start-1 > maxPadLines:
		o.over = fmt.Sprintf("its parser reads the %d lines above it as blank ones, and the lines so read for the outputs of this file would pass %d", o.start-1, maxPadLines)
	default:
		o.ls = append(o.ls, strings.Clone(l))
		return
	}
	if k == KindUnknown {
		o.ls = o.ls[:min(len(o.ls), sampleLines)]
	} else {
		o.ls = nil
	}
}

// sizeText says n bytes in MiB, or in KiB below one.
func sizeText(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// segmentNumbered says whether a kind's parser reads its output alone
// (its line numbers shifted after), not at its line numbers.
func segmentNumbered(k Kind) bool {
	return isHCA(k) || k == KindKernel || k == KindTopo || k == KindEthtool
}

// close ends the output being read, sp.
func (s *streamer) close(sp Span) {
	o := s.cur
	s.cur = nil
	if o == nil {
		return
	}
	switch sp.Kind {
	case KindNCCLLog, KindKernel:
		if lg := s.logs[sp.Kind]; lg != nil {
			lg.runs++
			lg.last = sp.End
		} else {
			s.logs[sp.Kind] = &streamLog{first: sp.Start, last: sp.End, runs: 1}
			s.order = append(s.order, sp.Kind)
		}
		return
	}
	if sp.Kind == KindUnknown && !o.text {
		return // blanks, fences and prompts: nothing to report
	}
	if len(s.spans)+len(s.sampled)+len(s.dropped) >= maxOutputs {
		if s.more == 0 {
			s.moreFrom = sp.Start
		}
		s.more++
		s.moreTo = sp.End
		return
	}
	lines := fmt.Sprintf("%d-%d", sp.Start, sp.End)
	switch {
	case o.over != "" && sp.Kind == KindUnknown:
		s.sampled = append(s.sampled, part{start: sp.Start, ls: o.ls})
		s.sampledSpans = append(s.sampledSpans, sp)
	case o.over != "":
		s.dropped = append(s.dropped, Segment{Kind: sp.Kind, Start: sp.Start, End: sp.End, Lines: lines, Failed: true,
			Summary: "not judged: too big", Findings: []finding.Finding{},
			Skipped: []string{fmt.Sprintf("lines %s skipped (%d lines, %.1f MiB of %s output): segment too big to judge in a streamed file (%s); cut it out into a file of its own: sed -n '%d,%dp' %s",
				lines, sp.End-sp.Start+1, float64(o.size)/(1<<20), sp.Kind, o.over, sp.Start, sp.End, s.name)}})
	default:
		if sp.Start > 1 && (len(s.parts) == 0 || s.parts[len(s.parts)-1].start+len(s.parts[len(s.parts)-1].ls) != sp.Start) {
			s.above[sp.Start-1] = strings.Clone(o.above)
		}
		s.parts = append(s.parts, part{start: sp.Start, ls: o.ls})
		s.spans = append(s.spans, sp)
		s.kept += o.size
		if sp.Kind != KindUnknown && !segmentNumbered(sp.Kind) {
			s.padded += sp.Start - 1
		}
	}
}

// maybePrompt is false for lines isPrompt cannot match, cheaply: most
// lines of a log. A prompt holds '$', '#' or "+ ", and either starts
// with '$', '+', '#' or '[' (after blanks) or holds an '@'; or it is a
// shell theme's glyph or a tool console's "name>".
func maybePrompt(l string) bool {
	if strings.IndexByte(l, '$') < 0 && strings.IndexByte(l, '#') < 0 && !strings.Contains(l, "+ ") {
		// A theme's glyph ("➜  dir cmd") or a console's "sim> cmd":
		// its first word ends in '>' (found without scanning the line).
		sp := strings.IndexByte(l, ' ')
		return len(l) > 0 && l[0] >= 0x80 || sp > 0 && l[sp-1] == '>' ||
			strings.IndexByte(l, '%') >= 0 && strings.IndexByte(l, '@') >= 0 // zsh's "user@host ~ % cmd"
	}
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] >= '\t' && l[i] <= '\r') {
		i++
	}
	if i == len(l) || l[i] >= 0x80 {
		return true // isPrompt decides (Unicode blanks)
	}
	switch l[i] {
	case '$', '+', '#', '[':
		return true
	}
	if sp := strings.IndexByte(l[i:], ' '); sp > 0 && (l[i+sp-1] == '#' || l[i+sp-1] == '$') {
		return true // "bash-4.2# cmd"
	}
	return strings.IndexByte(l, '@') >= 0
}

// file judges what was read.
func (s *streamer) file() File {
	s.flush()
	s.kern.Flush()
	for _, e := range s.cls.Flush() {
		s.fold.Add(e) // a crash report the log ends in
	}
	fr := File{File: s.name, Segments: []Segment{}}
	d := &doc{parts: s.parts, above: s.above}
	var ctx *context
	fr.Segments, ctx = judgeSpans(s.name, d, s.spans, s.opts)
	for i, sp := range s.sampledSpans {
		seg := Segment{Kind: KindUnknown, Start: sp.Start, End: sp.End, Lines: fmt.Sprintf("%d-%d", sp.Start, sp.End), Findings: []finding.Finding{}}
		unrecognised(s.name, &seg, &doc{parts: s.sampled[i : i+1]}, sp)
		fr.Segments = append(fr.Segments, seg)
	}
	for _, k := range s.order {
		lg := s.logs[k]
		seg := Segment{Kind: k, Start: lg.first, End: lg.last, Lines: fmt.Sprintf("%d-%d", lg.first, lg.last), Findings: []finding.Finding{}, Skipped: []string{}}
		var err error
		switch k {
		case KindKernel:
			err = s.kernelSegment(&seg)
		case KindNCCLLog:
			err = s.ncclSegment(&seg, ctx.rdma)
		}
		if lg.runs > 1 {
			seg.Skipped = append(seg.Skipped, fmt.Sprintf("its lines come in %d runs between other outputs' lines: judged as one log", lg.runs))
		}
		fr.Segments = append(fr.Segments, finish(seg, s.name, err))
	}
	fr.Segments = append(fr.Segments, s.dropped...)
	slices.SortStableFunc(fr.Segments, func(a, b Segment) int { return a.Start - b.Start })
	if s.more > 0 && len(fr.Segments) > 0 {
		sg := &fr.Segments[len(fr.Segments)-1]
		sg.Skipped = append(sg.Skipped, fmt.Sprintf("%s between lines %d and %d not judged: a streamed file's first %d are", plural(s.more, "more output", "more outputs"), s.moreFrom, s.moreTo, maxOutputs))
	}
	if s.longCount > 0 && len(fr.Segments) > 0 {
		sg := &fr.Segments[len(fr.Segments)-1]
		sg.Skipped = append(sg.Skipped, fmt.Sprintf("%s: longer than %d KiB, not read", lineListN(s.name, s.long, s.longCount), maxStreamLine>>10))
	}
	recognised, parsed := false, false
	var lead []string // what the file resembles when nothing is recognised
	for _, sg := range fr.Segments {
		if sg.Kind != KindUnknown {
			recognised = true
			parsed = parsed || !sg.Failed
		} else if lead == nil {
			if p := d.at(sg.Start); p != nil {
				lead = p.ls
			}
		}
	}
	if !judgedAny(fr.Segments) && judgeUnread(&fr) {
		return fr
	}
	if !recognised {
		fr.NotRecognised = true
		if lead == nil && len(s.sampled) > 0 {
			lead = s.sampled[0].ls
		}
		g := Closest(strings.Join(lead[:min(len(lead), sampleLines)], "\n"))
		fr.Closest = &g
	}
	fr.Unparsed = recognised && !parsed
	return fr
}

func (s *streamer) kernelSegment(seg *Segment) error {
	if s.kern.Records == 0 {
		return fmt.Errorf("%s: %w", s.name, kmsg.ErrNoData)
	}
	seg.Summary = plural(s.kern.Records, "kernel message", "kernel messages")
	if !s.anyKmsg {
		seg.Empty = "no line looks like a kernel message (timestamp, facility or driver prefix)"
	}
	if s.kern.BadLines > 0 {
		ns := make([]int, len(s.kern.Errors))
		for i, e := range s.kern.Errors {
			ns[i] = e.Line
		}
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s: timestamp not understood (%v)", lineListN(s.name, ns, s.kern.BadLines), s.kern.Errors[0].Err))
	}
	seg.Findings = append(seg.Findings, host.CheckPastedKernelEvents(s.name, s.fold.Events())...)
	return nil
}

func (s *streamer) ncclSegment(seg *Segment, rdma bool) error {
	lg, err := s.nccl.Log()
	if err != nil {
		return err
	}
	a := ncclrules.CheckLog(lg, ncclrules.LogOptions{RDMAPresent: rdma, ExpectIB: s.opts.ExpectIB})
	seg.Summary = fmt.Sprintf("NCCL log of %s", plural(len(a.Procs), "process", "processes"))
	if a.Version != "" {
		seg.Summary += ", NCCL " + a.Version
	}
	seg.Findings = append(seg.Findings, a.Findings...)
	notes(seg, a.Notes)
	return nil
}
