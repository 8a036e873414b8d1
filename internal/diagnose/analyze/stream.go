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
// as a paste. A bigger one is streamed when it is a kernel log or an NCCL
// debug log (the outputs that reach gigabytes), alone or interleaved: it
// is read once, line by line, and only what the findings need is kept
// (counts, and the first evidence lines of each kind of event and
// subject), so memory stays bounded whatever its size. Other big outputs
// are read whole up to MaxInMemory. The first MiB decides: past it, other
// tools' headers are not looked for, and their lines go to the log they
// are in, as any line a log's parser does not know.
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
// analysed as AnalyzeText does; big kernel and NCCL logs stream.
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
	if i := bytes.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i+1]
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
// ok when it holds kernel or NCCL log lines and no other tool's output;
// forced is the kind every line is read as (--kind, or a log recognised
// only as a whole), "" when lines are sorted as Split sorts them. why
// says why not.
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
	found := false
	for _, sp := range Split(ls) {
		switch {
		case streams(sp.Kind):
			found = true
		case sp.Kind != KindUnknown:
			return "", false, "it holds " + string(sp.Kind) + " output"
		}
	}
	if found {
		return "", true, ""
	}
	if k := whole(head); streams(k) {
		return k, true, ""
	}
	return "", false, "not a kernel or NCCL log"
}

// streamer reads one big input line by line into the logs it holds.
type streamer struct {
	name string
	opts Options
	// forced is the kind every line is read as ("" when lines are
	// sorted as Split sorts them); cur the kind of the run being read.
	forced Kind
	cur    Kind
	n      int
	// recent says which of the last three lines were prompts and blank,
	// to start a run at the prompt above it as Split does.
	recent [3]lineShape

	nccl    *nccllog.Parser
	kern    *kmsg.TextParser
	cls     *kmsg.Classifier
	fold    *host.KernelFolder
	logs    map[Kind]*streamLog
	order   []Kind
	anyKmsg bool

	// other are the runs of lines of no log (before the first, after a
	// fence), the first maxOtherRuns of them; moreOther counts the rest.
	other     []*otherRun
	moreOther int

	long      []int
	longCount int
}

type lineShape struct{ prompt, blank bool }

// otherRun is a run of lines of no log: where, its first 200 lines (to
// say what it resembles) and whether it holds anything but blanks,
// fences and prompts.
type otherRun struct {
	start, end int
	lines      []string
	text       bool
}

// maxOtherRuns bounds the runs of unrecognised lines reported one by one.
const maxOtherRuns = 50

// streamLog is what is known of one kind's lines: where they are and in
// how many runs (interleaved with the other kind's).
type streamLog struct {
	first, last, runs int
}

func newStreamer(name string, forced Kind, opts Options) *streamer {
	s := &streamer{name: name, opts: opts, logs: map[Kind]*streamLog{}, forced: forced, cur: forced}
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
			s.n++
			s.longCount++
			if len(s.long) < 5 {
				s.long = append(s.long, s.n)
			}
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
	s.n++
	if s.forced == KindUnknown {
		if isFence(l) {
			// A fence closes the output it follows, as in Split.
			if s.cur != KindUnknown {
				s.cur = KindUnknown
				s.otherRun(s.n)
			}
		} else if m := s.member(l); m != KindUnknown && !compatible(s.cur, m) {
			s.open(m)
		}
	}
	shape := lineShape{}
	if strings.TrimSpace(l) == "" {
		shape.blank = true
	} else if maybePrompt(l) && isPrompt(l) {
		shape.prompt = true
	}
	s.recent = [3]lineShape{s.recent[1], s.recent[2], shape}
	if s.cur == KindUnknown {
		if s.n == 1 {
			s.otherRun(1)
		}
		if o := s.lastOther(); o != nil {
			o.end = s.n
			if len(o.lines) < 200 && len(s.other) <= maxOtherRuns {
				o.lines = append(o.lines, l[:min(len(l), 1024)])
			}
			if !shape.blank && !shape.prompt && !isFence(l) {
				o.text = true
			}
		}
		return
	}
	lg := s.logs[s.cur]
	if lg == nil {
		lg = &streamLog{first: s.n, runs: 1}
		s.logs[s.cur] = lg
		s.order = append(s.order, s.cur)
	}
	lg.last = s.n
	if shape.prompt {
		return // segmentText blanks prompts
	}
	switch s.cur {
	case KindNCCLLog:
		s.nccl.Line(s.n, l)
	case KindKernel:
		if !s.anyKmsg && kmsg.DetectLine(l) {
			s.anyKmsg = true
		}
		s.kern.Line(s.n, l)
	}
}

// otherRun starts a run of unrecognised lines at line n; the run before
// it is dropped when it held nothing, counted when past maxOtherRuns.
func (s *streamer) otherRun(n int) {
	if o := s.lastOther(); o != nil && !o.text {
		s.other = s.other[:len(s.other)-1]
	}
	if len(s.other) > maxOtherRuns {
		s.moreOther++
		s.other = s.other[:maxOtherRuns]
	}
	s.other = append(s.other, &otherRun{start: n, end: n - 1})
}

// lastOther is the run being read when the current run is of no log.
func (s *streamer) lastOther() *otherRun {
	if len(s.other) == 0 {
		return nil
	}
	return s.other[len(s.other)-1]
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

// member is the kind a line starts, as Split's member reads it, testing
// only what can change the run being read.
func (s *streamer) member(l string) Kind {
	if l == "" {
		return KindUnknown
	}
	if strings.Contains(l, "NCCL INFO") || strings.Contains(l, "NCCL WARN") {
		return KindNCCLLog
	}
	if s.cur == KindKernel {
		return KindUnknown // a kernel line continues the run
	}
	if m := member(l); m == KindKernel {
		return m
	}
	return KindUnknown
}

// open starts a run of kind k at the current line, or at the prompt up
// to three lines above it (blank lines between) as Split does.
func (s *streamer) open(k Kind) {
	start := s.n
	for back := 1; back <= 3 && start-back >= 1; back++ {
		sh := s.recent[3-back]
		if sh.prompt {
			start = s.n - back
			break
		}
		if !sh.blank {
			break
		}
	}
	if o := s.lastOther(); s.cur == KindUnknown && o != nil {
		// The prompt and blanks above belong to the new run.
		o.end = start - 1
		if keep := o.end - o.start + 1; keep < len(o.lines) {
			o.lines = o.lines[:max(keep, 0)]
		}
		if o.end < o.start {
			s.other = s.other[:len(s.other)-1]
		}
	}
	s.cur = k
	if lg := s.logs[k]; lg != nil {
		lg.runs++
	} else {
		s.logs[k] = &streamLog{first: start, last: start, runs: 1}
		s.order = append(s.order, k)
	}
}

// file judges what was read.
func (s *streamer) file() File {
	s.kern.Flush()
	fr := File{File: s.name, Segments: []Segment{}}
	var lead []string // what the file resembles when nothing is recognised
	if len(s.other) > maxOtherRuns {
		if s.other[maxOtherRuns].text {
			s.moreOther++
		}
		s.other = s.other[:maxOtherRuns]
	}
	for _, o := range s.other {
		if !o.text {
			continue
		}
		if lead == nil {
			lead = o.lines
		}
		g := Closest(strings.Join(o.lines, "\n"))
		n := o.end - o.start + 1
		fr.Segments = append(fr.Segments, Segment{Kind: KindUnknown, Start: o.start, End: o.end, Lines: fmt.Sprintf("%d-%d", o.start, o.end),
			Summary: "not recognised", Findings: []finding.Finding{},
			Skipped: []string{fmt.Sprintf("lines %d-%d (%d) not recognised as any tool's output%s, starting %q", o.start, o.end, n, g.phrase(), firstLine(o.lines))}})
	}
	for _, k := range s.order {
		lg := s.logs[k]
		seg := Segment{Kind: k, Start: lg.first, End: lg.last, Lines: fmt.Sprintf("%d-%d", lg.first, lg.last), Findings: []finding.Finding{}, Skipped: []string{}}
		var err error
		switch k {
		case KindKernel:
			err = s.kernelSegment(&seg)
		case KindNCCLLog:
			err = s.ncclSegment(&seg)
		}
		if lg.runs > 1 {
			seg.Skipped = append(seg.Skipped, fmt.Sprintf("its lines come in %d runs between other outputs' lines: judged as one log", lg.runs))
		}
		fr.Segments = append(fr.Segments, finish(seg, s.name, err))
	}
	slices.SortStableFunc(fr.Segments, func(a, b Segment) int { return a.Start - b.Start })
	if s.moreOther > 0 && len(fr.Segments) > 0 {
		sg := &fr.Segments[len(fr.Segments)-1]
		sg.Skipped = append(sg.Skipped, fmt.Sprintf("%d more runs of lines not recognised as any tool's output, not listed", s.moreOther))
	}
	if s.longCount > 0 && len(fr.Segments) > 0 {
		sg := &fr.Segments[len(fr.Segments)-1]
		sg.Skipped = append(sg.Skipped, fmt.Sprintf("%s: longer than %d KiB, not read", lineListN(s.name, s.long, s.longCount), maxStreamLine>>10))
	}
	recognised, parsed := false, false
	for _, sg := range fr.Segments {
		if sg.Kind != KindUnknown {
			recognised = true
			parsed = parsed || !sg.Failed
		}
	}
	if !recognised {
		fr.NotRecognised = true
		g := Closest(strings.Join(lead, "\n"))
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

func (s *streamer) ncclSegment(seg *Segment) error {
	lg, err := s.nccl.Log()
	if err != nil {
		return err
	}
	rdma := s.opts.Node != nil && len(s.opts.Node.Devices) > 0
	a := ncclrules.CheckLog(lg, ncclrules.LogOptions{RDMAPresent: rdma, ExpectIB: s.opts.ExpectIB})
	seg.Summary = fmt.Sprintf("NCCL log of %s", plural(len(a.Procs), "process", "processes"))
	if a.Version != "" {
		seg.Summary += ", NCCL " + a.Version
	}
	seg.Findings = append(seg.Findings, a.Findings...)
	notes(seg, a.Notes)
	return nil
}
