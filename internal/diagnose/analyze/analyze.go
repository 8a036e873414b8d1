package analyze

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse"
	"github.com/ibdoctor/ibdoctor/internal/parse/amdsmi"
	"github.com/ibdoctor/ibdoctor/internal/parse/deepep"
	"github.com/ibdoctor/ibdoctor/internal/parse/dshbak"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
	"github.com/ibdoctor/ibdoctor/internal/parse/expect"
	"github.com/ibdoctor/ibdoctor/internal/parse/fiinfo"
	"github.com/ibdoctor/ibdoctor/internal/parse/hcatext"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdev2netdev"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiagnet"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibvload"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/parse/lspci"
	"github.com/ibdoctor/ibdoctor/internal/parse/mpicheck"
	"github.com/ibdoctor/ibdoctor/internal/parse/ncclenv"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccllog"
	"github.com/ibdoctor/ibdoctor/internal/parse/nccltests"
	"github.com/ibdoctor/ibdoctor/internal/parse/nvsmi"
	"github.com/ibdoctor/ibdoctor/internal/parse/ompihelp"
	"github.com/ibdoctor/ibdoctor/internal/parse/osu"
	"github.com/ibdoctor/ibdoctor/internal/parse/perftest"
	"github.com/ibdoctor/ibdoctor/internal/parse/sysfspci"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxlog"
	"github.com/ibdoctor/ibdoctor/internal/parse/ucxperf"
	"github.com/ibdoctor/ibdoctor/internal/parse/wclog"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
	deeprules "github.com/ibdoctor/ibdoctor/internal/rules/deepep"
	"github.com/ibdoctor/ibdoctor/internal/rules/fabric"
	"github.com/ibdoctor/ibdoctor/internal/rules/host"
	mpirules "github.com/ibdoctor/ibdoctor/internal/rules/mpi"
	ncclrules "github.com/ibdoctor/ibdoctor/internal/rules/nccl"
	noderules "github.com/ibdoctor/ibdoctor/internal/rules/node"
	osurules "github.com/ibdoctor/ibdoctor/internal/rules/osu"
	perftestrules "github.com/ibdoctor/ibdoctor/internal/rules/perftest"
	"github.com/ibdoctor/ibdoctor/internal/rules/routing"
	ucxrules "github.com/ibdoctor/ibdoctor/internal/rules/ucx"
	verbsrules "github.com/ibdoctor/ibdoctor/internal/rules/verbs"
)

// Options tune the rules for pasted output.
type Options struct {
	// Kind forces every file to be read as one output of this kind.
	Kind Kind
	// Expect is the node expectation for HCA outputs (nil: defaults).
	Expect *expect.Expectation
	// ExpectBusBW is the expected nccl-tests busbw in GB/s (0: none).
	ExpectBusBW float64
	// LineRateGbps is the link rate for nccl-tests and perftest (0:
	// unknown).
	LineRateGbps float64
	// Year dates journal stamps without a year (0: the current year).
	Year int
	// Node is the node the outputs came from (--root), NodeSource where
	// it was read: its RDMA devices make an NCCL socket fallback critical
	// and its ACTIVE ports give the line rate.
	Node       *snapshot.Snapshot
	NodeSource string
	// ExpectIB says the NCCL job should use InfiniBand/RoCE.
	ExpectIB bool
	// MaxLatencyUS overrides perftest's latency limit (0: the default).
	MaxLatencyUS float64
}

// Segment is one tool output found in a file and what came of it.
type Segment struct {
	Kind  Kind `json:"kind"`
	Start int  `json:"start"`
	End   int  `json:"end"`
	// Lines is "Start-End" for people.
	Lines string `json:"lines"`
	// Summary says what was parsed ("8 HCAs, 8 ports").
	Summary  string            `json:"summary"`
	Findings []finding.Finding `json:"findings"`
	// Skipped says what was not understood and why, with line numbers.
	Skipped []string `json:"skipped"`
	// Failed is true when the segment could not be parsed at all.
	Failed bool `json:"failed,omitempty"`
	// Empty says what the output lacked when it was read but held
	// nothing to judge ("no result row"); "" when it was judged.
	Empty string `json:"not_judged,omitempty"`
	// err is the parser's error when Failed.
	err error
	// failures is the paste.failure_lines finding of an output no reader
	// knows or one read with nothing to judge, given only when no output
	// of its file was judged.
	failures *finding.Finding
}

// Guess is the closest kind of a text that was not recognised.
type Guess struct {
	Kind  Kind `json:"kind"`
	Score int  `json:"score"`
}

// File is the analysis of one input.
type File struct {
	File     string    `json:"file"`
	Segments []Segment `json:"segments"`
	// NotRecognised is set when no segment of the file was recognised;
	// Closest is what it resembles most.
	NotRecognised bool   `json:"not_recognised,omitempty"`
	Closest       *Guess `json:"closest,omitempty"`
	// Unparsed is set when outputs were recognised but none could be
	// parsed.
	Unparsed bool `json:"unparsed,omitempty"`
	// Error says why the file could not be read.
	Error string `json:"error,omitempty"`
	// Normalized lists the wrappers taken off lines before reading them
	// (mail quoting, launcher labels, diff markers, indentation).
	Normalized []Rewrite `json:"normalized,omitempty"`
}

// Report is the result over all files.
type Report struct {
	Files    []File            `json:"files"`
	Findings []finding.Finding `json:"findings"`
	finding.Outcome
}

// Input is one file to analyse: its Text, or R to read it from (big
// kernel and NCCL logs are streamed) and its Size when known (-1 when
// not).
type Input struct {
	Name string
	Text string
	R    io.Reader
	Size int64
	// Err is why the file could not be read; the others are still judged.
	Err error
}

// Run analyses every input and builds the report. Exit code: the worst
// finding's (0/1/2), or 3 when some file was not recognised at all.
func Run(in []Input, opts Options) *Report {
	r := &Report{Files: []File{}, Findings: []finding.Finding{}}
	cannot := false
	for _, f := range in {
		if f.Err != nil {
			cannot = true
			r.Files = append(r.Files, File{File: f.Name, Segments: []Segment{}, Error: f.Err.Error()})
			continue
		}
		var fr File
		if f.R != nil {
			fr = AnalyzeReader(f.Name, f.R, f.Size, opts)
		} else {
			fr = AnalyzeText(f.Name, f.Text, opts)
		}
		if fr.NotRecognised || fr.Unparsed {
			cannot = true
		}
		foldLostGPUs(&fr)
		foldSamePorts(&fr)
		for _, s := range fr.Segments {
			r.Findings = append(r.Findings, s.Findings...)
		}
		r.Files = append(r.Files, fr)
	}
	catalog.Sort(r.Findings)
	for i := range r.Files {
		for j := range r.Files[i].Segments {
			finding.NoNulls(r.Files[i].Segments[j].Findings)
		}
	}
	r.Outcome, r.Findings = finding.Judge(r.Findings, missing(r, cannot))
	return r
}

// foldLostGPUs keeps one finding per lost GPU in a file: nvidia-smi's
// "Unable to determine the device handle" for a GPU whose loss the
// paste's kernel log shows (its Xid 79, its "fallen off the bus" lines)
// is the same cause, so its evidence joins the kernel's finding.
func foldLostGPUs(fr *File) {
	type at struct{ seg, i int }
	lost := map[string]at{}
	for si := range fr.Segments {
		s := &fr.Segments[si]
		if s.Kind == KindNvsmiError {
			continue
		}
		for i := range s.Findings {
			if k := host.GPUKey(s.Findings[i].Subject); k != "" && host.IsGPULoss(&s.Findings[i]) {
				if _, ok := lost[k]; !ok {
					lost[k] = at{si, i}
				}
			}
		}
	}
	if len(lost) == 0 {
		return
	}
	for si := range fr.Segments {
		s := &fr.Segments[si]
		if s.Kind != KindNvsmiError {
			continue
		}
		kept := s.Findings[:0]
		for _, f := range s.Findings {
			if a, ok := lost[host.GPUKey(f.Subject)]; ok && host.IsGPULoss(&f) {
				t := &fr.Segments[a.seg].Findings[a.i]
				t.Evidence = append(t.Evidence, f.Evidence...)
				s.Skipped = append(s.Skipped, fmt.Sprintf("%s of GPU %s: the loss the kernel log at lines %s shows (%s), reported there", f.ID, host.GPUKey(f.Subject), fr.Segments[a.seg].Lines, t.ID))
				continue
			}
			kept = append(kept, f)
		}
		s.Findings = kept
	}
}

// portStateRank orders the port-state findings by how much they say: a
// port DOWN whose physical state the tool did not print (ibv_devinfo
// without -v) says least.
var portStateRank = map[string]int{"port.down": 1, "port.disabled": 2, "port.polling": 2, "port.init_no_sm": 2}

// foldSamePorts keeps one port-state finding per port in a file: ibstat
// and ibv_devinfo (or ibstatus, rdma link) pasted together for one host
// show the same port twice, and its state is one cause. Outputs of two
// kinds are taken for one host where their node GUIDs agree (or one does
// not print it); two outputs of one kind are two hosts' and stay apart.
// The finding that says more (the physical state) is kept, with the
// other's evidence.
func foldSamePorts(fr *File) {
	type at struct {
		seg, i int
	}
	key := func(f *finding.Finding) string {
		return fmt.Sprintf("%s/%d", f.Subject.Device, f.Subject.Port)
	}
	first := map[string]at{}
	drop := map[at]bool{}
	for si := range fr.Segments {
		s := &fr.Segments[si]
		for i := range s.Findings {
			f := &s.Findings[i]
			if portStateRank[f.ID] == 0 || f.Subject.Device == "" || f.Subject.Port == 0 {
				continue
			}
			k := key(f)
			a, ok := first[k]
			if !ok {
				first[k] = at{si, i}
				continue
			}
			o := &fr.Segments[a.seg].Findings[a.i]
			if fr.Segments[a.seg].Kind == s.Kind || o.Subject.NodeGUID != "" && f.Subject.NodeGUID != "" && o.Subject.NodeGUID != f.Subject.NodeGUID || o.Subject.Host != f.Subject.Host {
				continue
			}
			keep, gone, goneAt := o, f, at{si, i}
			if portStateRank[f.ID] > portStateRank[o.ID] {
				keep, gone, goneAt = f, o, a
				first[k] = at{si, i}
			}
			keep.Evidence = append(keep.Evidence, gone.Evidence...)
			drop[goneAt] = true
			fr.Segments[goneAt.seg].Skipped = append(fr.Segments[goneAt.seg].Skipped, fmt.Sprintf("%s of %s port %d: the same port as %s at lines %s shows, reported there (%s)",
				gone.ID, gone.Subject.Device, gone.Subject.Port, string(fr.Segments[first[k].seg].Kind), fr.Segments[first[k].seg].Lines, keep.ID))
		}
	}
	if len(drop) == 0 {
		return
	}
	for si := range fr.Segments {
		s := &fr.Segments[si]
		kept := s.Findings[:0]
		for i, f := range s.Findings {
			if !drop[at{si, i}] {
				kept = append(kept, f)
			}
		}
		s.Findings = kept
	}
}

// missing says why nothing was judged, "" when something was: a file
// that could not be read or recognised, or outputs that held nothing to
// judge (a test without a result row, a log without a message).
func missing(r *Report, cannot bool) string {
	var why []string
	judged := false
	for _, f := range r.Files {
		switch {
		case f.Error != "":
			why = append(why, f.File+": "+f.Error)
		case f.NotRecognised:
			why = append(why, f.File+": not recognised as any tool's output")
		case f.Unparsed:
			w := f.File + ": no output in it could be parsed"
			for _, s := range f.Segments {
				if r, ok := strings.CutPrefix(s.Summary, "not judged: "); ok {
					w += " (" + string(s.Kind) + ": " + r + ")"
					break
				}
			}
			why = append(why, w)
		}
		for _, s := range f.Segments {
			switch {
			case s.Kind == KindUnknown || s.Failed:
			case s.Empty != "":
				why = append(why, fmt.Sprintf("%s lines %s: %s", f.File, s.Lines, s.Empty))
			default:
				judged = true
			}
		}
	}
	if cannot || !judged && len(r.Findings) == 0 {
		if len(why) == 0 {
			return "no input"
		}
		return strings.Join(why, "; ")
	}
	return ""
}

// AnalyzeText splits one file into segments and diagnoses each.
func AnalyzeText(name, text string, opts Options) File {
	if head := text[:min(len(text), 8192)]; strings.IndexByte(head, 0) >= 0 {
		return File{File: name, Segments: []Segment{}, NotRecognised: true,
			Error: "binary data, not a tool's text output (a bundle is read with --root by check, status and doctor)"}
	}
	ls, rewrites := normalize(Lines(text))
	var guessed *Guess
	if len(rewrites) > 0 {
		text = strings.Join(ls, "\n")
	}
	var spans []Span
	if opts.Kind != KindUnknown {
		if len(ls) > 0 {
			spans = []Span{{Kind: opts.Kind, Start: 1, End: len(ls)}}
		}
	} else {
		spans = Split(ls)
		if len(spans) == 1 && spans[0].Kind == KindUnknown {
			spans[0].Kind = whole(text) // a format without line headers (JSON reports)
		}
		if len(spans) == 1 && spans[0].Kind == KindUnknown && !ignorable(ls) {
			// No header, but most lines look like one tool's: read it as
			// that tool's output (its header cut off by the poster).
			if g := Closest(text); g.Score >= minReadAs && canRead(g.Kind) {
				spans[0].Kind = g.Kind
				guessed = &g
			}
		}
	}
	fr := File{File: name, Segments: []Segment{}, Normalized: rewrites}
	d := &doc{parts: []part{{start: 1, ls: ls}}}
	fr.Segments, _ = judgeSpans(name, d, spans, opts)
	if guessed != nil && len(fr.Segments) == 1 {
		s := &fr.Segments[0]
		if s.Failed {
			// Nothing of it could be read as that tool's: it is not.
			sp := Span{Start: s.Start, End: s.End}
			*s = Segment{Kind: KindUnknown, Start: sp.Start, End: sp.End, Lines: s.Lines, Findings: []finding.Finding{}}
			unrecognised(name, s, d, sp)
		} else {
			s.Skipped = append([]string{fmt.Sprintf("no %s header in the file; read as %s output because its lines resemble it (score %d/100): give --kind to read it as another", guessed.Kind, guessed.Kind, guessed.Score)}, s.Skipped...)
		}
	}
	recognised, parsed := false, false
	for _, s := range fr.Segments {
		if s.Kind != KindUnknown {
			recognised = true
			parsed = parsed || !s.Failed
		}
	}
	if !judgedAny(fr.Segments) {
		if judgeUnread(&fr) {
			return fr
		}
	} else {
		judgeStopped(&fr)
		judgeSilentLaunch(&fr, d)
	}
	if !recognised {
		fr.NotRecognised = true
		g := Closest(text)
		fr.Closest = &g
	}
	fr.Unparsed = recognised && !parsed
	return fr
}

// benchmarkKinds are the test programs whose output, cut before its
// result, holds nothing to judge.
var benchmarkKinds = map[Kind]bool{KindOSU: true, KindPerftest: true, KindNCCLTests: true, KindPingpong: true, KindUCXPerf: true}

// judgedAny reports whether any of segs is an output that was read and
// judged: recognised, parsed and not empty of what its rules need.
func judgedAny(segs []Segment) bool {
	for _, s := range segs {
		if s.Kind != KindUnknown && !s.Failed && s.Empty == "" {
			return true
		}
	}
	return false
}

// judgeUnread judges a file none of whose outputs could be judged (none
// recognised, or those recognised unparsed or without what their rules
// need: a perftest banner without a result row) by the lines of its
// unread outputs that say something failed: each unread output with such
// lines gets its paste.failure_lines finding. It reports whether any did;
// a file that holds none stays not judged.
func judgeUnread(fr *File) bool {
	judged := false
	for i := range fr.Segments {
		s := &fr.Segments[i]
		if s.failures == nil {
			continue
		}
		s.Findings = append(s.Findings, *s.failures)
		if s.Kind == KindUnknown {
			s.Summary = "not recognised; lines of it say something failed"
		} else {
			s.Summary += "; lines of it say something failed"
		}
		judged = true
	}
	return judged
}

// judgeStopped keeps, beside outputs that were judged, the
// paste.failure_lines finding of an unread output whose lines say the
// failure ended the program, the connection or the device (a critical
// one): a healthy ibstat pasted under a job's "Segmentation fault" and
// "mpiexec aborted" lines does not make the paste healthy. Failure lines
// that ended nothing, and any beside a critical finding of a judged
// output (the failure's cause or consequence), stay left to that
// output's findings.
func judgeStopped(fr *File) {
	for _, s := range fr.Segments {
		for _, f := range s.Findings {
			if f.Severity == finding.Critical {
				return // the judged outputs explain the failure already
			}
		}
	}
	for i := range fr.Segments {
		s := &fr.Segments[i]
		if s.Kind != KindUnknown || s.failures == nil || s.failures.Severity != finding.Critical {
			continue
		}
		s.Findings = append(s.Findings, *s.failures)
		s.Summary = "not recognised; lines of it say something failed and stopped"
	}
}

// judgeSpans diagnoses the outputs spans of a file whose lines d holds,
// HCA outputs first: what they show about the node (RDMA present, the
// rate of its ACTIVE ports) informs the NCCL and perftest rules, which
// the context returned tells about them. Fabric outputs are judged
// together, NCCL logs as one job.
func judgeSpans(name string, d *doc, spans []Span, opts Options) ([]Segment, *context) {
	out := []Segment{}
	ctx := &context{}
	if opts.Node != nil {
		ctx.addRates(opts.Node, opts.NodeSource)
		ctx.addNode(opts.Node)
	}
	segs := make([]*Segment, len(spans))
	judged := spans // the spans judged as the system's output
	for i, sp := range spans {
		if sp.Kind == KindNCCLLog {
			if why, ok := quotedExpected(d, sp); ok {
				seg := expectedSegment(name, d, sp, why, ctx)
				segs[i] = &seg
				if len(judged) > 0 && &judged[0] == &spans[0] {
					judged = slices.Clone(spans)
				}
				judged[i].Kind = KindUnknown
				continue
			}
		}
		switch sp.Kind {
		case KindNCCLLog:
			ctx.ncclSpans = append(ctx.ncclSpans, sp)
		case KindLspci:
			ctx.lspciSpans = append(ctx.lspciSpans, sp)
		case KindUCXLog:
			ctx.ucxSpans = append(ctx.ucxSpans, sp)
		case KindIPerf:
			ctx.addTCP(name, d, sp)
		}
	}
	for pass := 0; pass < 2; pass++ {
		for i, sp := range judged {
			if segs[i] != nil || isHCA(sp.Kind) != (pass == 0) || sp.Kind == KindUnknown && ignorable(d.lines(sp)) {
				continue
			}
			seg := diagnoseTolerant(name, d, sp, opts, ctx)
			segs[i] = &seg
		}
	}
	joinNCCLLogs(name, d, judged, segs, opts, ctx)
	jobExit(name, d, judged, segs)
	var fabricSegs []int
	for i, sp := range spans {
		if segs[i] == nil {
			continue
		}
		seg := *segs[i]
		switch {
		case sp.Kind == KindUnknown:
			unrecognised(name, &seg, d, sp)
		case seg.Empty != "" && len(seg.Findings) == 0 && benchmarkKinds[sp.Kind]:
			// A benchmark read with nothing to judge (a perftest banner
			// without a result row) may hold the failure that stopped
			// it, in lines its parser skipped. An error message a reader
			// explains (an infiniband-diags MAD error: nothing to judge)
			// is not such a line.
			seg.failures = failureLines(name, d.lines(sp), sp.Start)
		}
		if isFabric(sp.Kind) {
			fabricSegs = append(fabricSegs, len(out))
		}
		out = append(out, seg)
	}
	if len(fabricSegs) > 0 {
		diagnoseFabric(name, d, out, fabricSegs)
	}
	return out, ctx
}

// quotedExpected says whether sp is quoted as the output the poster
// expected rather than the one they got: the prose line right above it
// (above its code fence) starts with "Expected" ("Expected:", "###
// Expected behavior") or ends in "expected:", "should be:", "should look
// like:" (areal-project/AReaL#639 quotes "NCCL INFO NET/IB : Using
// [0]mlx5_bond:1/RoCE ..." under "Expected:" after the NET/Socket line it
// got). why is that line.
func quotedExpected(d *doc, sp Span) (why string, ok bool) {
	n := sp.Start
	if isFence(d.line(n)) {
		n++ // the span starts at its fence
	}
	fence := false
	for n--; n >= 1 && n >= sp.Start-4; n-- {
		l := d.line(n)
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			continue
		case isFence(l) && !fence:
			fence = true
			continue
		}
		low := strings.ToLower(strings.TrimSpace(strings.Trim(t, "#*_> ")))
		if strings.HasPrefix(low, "expected") || strings.HasSuffix(low, "expected:") || strings.HasSuffix(low, "should be:") || strings.HasSuffix(low, "should look like:") {
			return t, true
		}
		return "", false
	}
	return "", false
}

// expectedSegment is the segment of an NCCL log quoted as the expected
// output: not judged, but one that shows NET/IB says the job was meant
// to use IB/RoCE (ctx.expectedIB), which grades a socket fallback in the
// log the poster got.
func expectedSegment(file string, d *doc, sp Span, why string, ctx *context) Segment {
	seg := Segment{Kind: sp.Kind, Start: sp.Start, End: sp.End, Lines: fmt.Sprintf("%d-%d", sp.Start, sp.End), Findings: []finding.Finding{}, Skipped: []string{}}
	seg.Summary = "NCCL log quoted as the expected output: not judged"
	seg.Skipped = append(seg.Skipped, fmt.Sprintf("lines %d-%d follow %q: the output the poster expected, not the one they got", sp.Start, sp.End, why))
	if lg, err := nccllog.Parse(strings.NewReader(segmentText(d, sp)), file); err == nil {
		for _, p := range lg.Procs {
			if len(p.IBDevices) > 0 || p.Network == "IB" {
				ctx.expectedIB = fmt.Sprintf("the expected output at lines %d-%d shows NET/IB", sp.Start, sp.End)
				break
			}
		}
	}
	return seg
}

// socketInPlaceOfIB reads, in a paste that quotes an NCCL log on IB/RoCE
// as the output it expected, a process that logged "NET/Socket : Using
// …" and no NET/IB line as one on sockets: the poster shows that line
// where the NET/IB one should be. (Alone the line does not say it: NCCL
// 2.4's bootstrap printed it before "NET/IB : Using" too.)
func socketInPlaceOfIB(lg *nccllog.Log) {
	for _, p := range lg.Procs {
		if n, _ := p.EffectiveNetwork(); n == "" && len(p.SocketIfs) > 0 && len(p.IBDevices) == 0 && p.IBNoDevice == 0 && p.NetPlugin == "" {
			p.Network, p.NetworkLine = "Socket", p.SocketLine
		}
	}
}

// unrecognised says what a segment of no known kind holds.
func unrecognised(file string, seg *Segment, d *doc, sp Span) {
	ls := d.lines(sp)
	g := Closest(strings.Join(ls, "\n"))
	seg.Summary = "not recognised"
	seg.failures = failureLines(file, ls, sp.Start)
	seg.Skipped = []string{fmt.Sprintf("lines %d-%d (%d) not recognised as any tool's output%s, starting %q", sp.Start, sp.End, sp.End-sp.Start+1, g.phrase(), firstLine(ls))}
}

func (g Guess) phrase() string {
	if g.Kind == KindUnknown {
		return ""
	}
	return fmt.Sprintf(" (closest: %s, score %d/100)", g.Kind, g.Score)
}

// firstLine returns the first line with text, cut to 60 bytes.
func firstLine(ls []string) string {
	for _, l := range ls {
		if t := strings.TrimSpace(l); t != "" && !isFence(l) {
			if len(t) > 60 {
				cut := 60
				for cut > 0 && !utf8.RuneStart(t[cut]) {
					cut-- // not inside a multi-byte character
				}
				t = t[:cut] + "…"
			}
			return t
		}
	}
	return ""
}

// ignorable says whether lines hold nothing to report: blanks, markdown
// fences and shell prompts only.
func ignorable(ls []string) bool {
	for _, l := range ls {
		if strings.TrimSpace(l) != "" && !isFence(l) && !isPrompt(l) {
			return false
		}
	}
	return true
}

// segmentText returns the file's text with every line outside sp (and
// every shell prompt) blanked, so parsers number lines as the file does.
func segmentText(d *doc, sp Span) string { return spanText(d, sp, false) }

// spanText is segmentText, keeping the prompt lines when prompts is set:
// the nccl-tests parser reads the environment a pasted launch command
// sets ("root@h:/# mpirun -x NCCL_IB_DISABLE=1 ./all_reduce_perf").
func spanText(d *doc, sp Span, prompts bool) string {
	var b strings.Builder
	b.Grow(sp.Start + 64*(sp.End-sp.Start+1))
	b.WriteString(strings.Repeat("\n", sp.Start-1))
	for _, l := range d.lines(sp) {
		if prompts || !isPrompt(l) {
			b.WriteString(l)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// context is what earlier segments of a file (or the node given with
// Options.Node) tell later ones.
type context struct {
	// rdma says an HCA output showed RDMA devices.
	rdma bool
	// rates counts ACTIVE ports by rate (deci-Gb/s); from names where the
	// first port of each rate was seen.
	rates map[int]int
	from  map[int]string
	// node holds the RDMA devices seen so far (ports merged by name), for
	// rules that join outputs: ethtool -S with rdma link/statistic.
	node *snapshot.Snapshot
	// results locate the values of node in the paste.
	results []*hcatext.Result
	// ncclSpans are the file's NCCL log segments: pastes cut one job's log
	// with prose and fences ("on the client: … on the server: …"), and
	// the rules must see every process to compare their transports.
	ncclSpans []Span
	// lspciSpans are the file's lspci segments: a LnkCap quoted in one
	// code block and its LnkSta in the next are one device's.
	lspciSpans []Span
	// ucxSpans are the file's UCX log segments: a paste that quotes the
	// same job's errors twice (in the report and in its steps) is one job.
	ucxSpans []Span
	// tcp is the fastest iperf/iperf3 result of the paste, held against
	// its perftest bandwidth tests (tcpOK: one was read).
	tcp   perftestrules.TCPRate
	tcpOK bool
	// expectedIB says where the paste quotes an NCCL log on IB/RoCE as
	// the output it expected ("" when it does not): the job was meant to
	// use RDMA.
	expectedIB string
}

// ncclText returns the text of every NCCL log segment of the file (other
// lines blank), ok false for a later segment already read with the first.
func (c *context) ncclText(d *doc, sp Span) (string, bool) {
	return spansText(c.ncclSpans, d, sp)
}

// spansText returns the text of every span of spans (other lines blank)
// when sp is the first of them, ok false for a later one.
func spansText(spans []Span, d *doc, sp Span) (string, bool) {
	if len(spans) < 2 {
		return segmentText(d, sp), true
	}
	if sp != spans[0] {
		return "", false
	}
	var b strings.Builder
	next := 1
	for _, s := range spans {
		for ; next < s.Start; next++ {
			b.WriteByte('\n')
		}
		for _, l := range d.lines(s) {
			if !isPrompt(l) {
				b.WriteString(l)
			}
			b.WriteByte('\n')
		}
		next = s.End + 1
	}
	return b.String(), true
}

// addNode merges the devices of snap into c.node: a port already known
// gains the netdev and hw counters it lacked.
func (c *context) addNode(snap *snapshot.Snapshot) {
	if c.node == nil {
		c.node = &snapshot.Snapshot{}
	}
	for _, d := range snap.Devices {
		have := c.node.Device(d.Name)
		if have == nil {
			c.node.Devices = append(c.node.Devices, d)
			continue
		}
		for _, p := range d.Ports {
			hp := c.node.Port(d.Name, p.Number)
			switch {
			case hp == nil:
				have.Ports = append(have.Ports, p)
			default:
				if hp.NetDev == "" {
					hp.NetDev = p.NetDev
				}
				if len(hp.HWCounters) == 0 {
					hp.HWCounters = p.HWCounters
				}
			}
		}
	}
	c.node.Sort()
}

// addRates counts the ACTIVE ports of snap, naming them by where.
func (c *context) addRates(snap *snapshot.Snapshot, where string) {
	if c.rates == nil {
		c.rates, c.from = map[int]int{}, map[int]string{}
	}
	for _, d := range snap.Devices {
		c.rdma = true
		for _, p := range d.Ports {
			if !p.IsActive() || p.Rate == nil || p.Rate.DeciGbps == 0 {
				continue
			}
			r, signal := dataDeciGbps(&p)
			if c.rates[r] == 0 {
				c.from[r] = fmt.Sprintf("%s port %d in %s", d.Name, p.Number, where)
				if signal {
					c.from[r] += fmt.Sprintf(", whose %g Gb/s is the signalling rate: 8b/10b encoding leaves %g Gb/s of data", float64(p.Rate.DeciGbps)/10, float64(r)/10)
				}
			}
			c.rates[r]++
		}
	}
}

// tenBitRates are the rates (0.1 Gb/s) of InfiniBand's 8b/10b-encoded
// speeds, SDR (2.5), DDR (5) and QDR (10 Gb/s a lane), at widths 1x, 2x,
// 4x and 12x: what ibstat prints as "Rate: 40" (4X QDR) with no speed.
var tenBitRates = map[int]bool{25: true, 50: true, 100: true, 200: true, 300: true, 400: true, 600: true, 1200: true}

// dataDeciGbps is the data rate of an InfiniBand port (0.1 Gb/s) and
// whether it is below the rate printed: the SDR, DDR and QDR lanes signal
// at 2.5, 5 and 10 Gb/s but carry 8 data bits in 10 (IBTA Vol 2, 8b/10b
// encoding), so 4X QDR's "40" moves 32 Gb/s, which ib_write_bw reaches at
// line rate. FDR and later (64b/66b) lose 3%, which is left as printed.
// A rate printed without its speed (ibstat) is taken as 8b/10b when it is
// one of those speeds' rates: FDR10 4X prints 40 too, and a bandwidth
// judged against the lower figure is never called low when it is not.
func dataDeciGbps(p *snapshot.Port) (int, bool) {
	r := p.Rate.DeciGbps
	if p.LinkLayer != ib.LinkLayerInfiniBand {
		return r, false
	}
	switch p.Rate.Speed {
	case ib.SpeedSDR, ib.SpeedDDR, ib.SpeedQDR:
	case 0:
		if !tenBitRates[r] {
			return r, false
		}
	default:
		return r, false
	}
	return r * 8 / 10, true
}

// lineRate is the rate most ACTIVE ports run at (ties: the slower), so a
// frontend NIC beside eight compute ports does not set it; 0 when none.
func (c *context) lineRate() (float64, int, string) {
	best, n := 0, 0
	for r, k := range c.rates {
		if k > n || k == n && r < best {
			best, n = r, k
		}
	}
	return float64(best) / 10, n, c.from[best]
}

func isHCA(k Kind) bool {
	return k == KindIBStat || k == KindIBStatus || k == KindDevinfo || k == KindRdma || k == KindLshca
}

// whole detects formats recognised only as a whole file.
func whole(text string) Kind {
	switch {
	case perftest.Detect(text):
		return KindPerftest
	case nccltests.Detect(text):
		return KindNCCLTests
	case nccllog.Detect(text):
		return KindNCCLLog
	case ucxlog.Detect(text):
		return KindUCXLog
	case ompihelp.Detect(text):
		return KindOpenMPI
	case kmsg.Detect(text):
		return KindKernel
	case nvsmi.Detect(text):
		return KindTopo
	case ethtool.DetectBody(text):
		return KindEthtool // ethtool -S without "NIC statistics:", or collapsed onto one line
	case ibdiagnet.Detect(text):
		return KindIBDiagnet
	}
	return KindUnknown
}

func diagnose(file string, d *doc, sp Span, opts Options, ctx *context) Segment {
	seg := Segment{Kind: sp.Kind, Start: sp.Start, End: sp.End, Lines: fmt.Sprintf("%d-%d", sp.Start, sp.End), Findings: []finding.Finding{}, Skipped: []string{}}
	if sp.Kind == KindUnknown {
		return seg
	}
	// hcatext, kmsg, topo and ethtool read the segment alone and their line
	// numbers are shifted; the NCCL and perftest parsers read the file's
	// text with the lines outside the segment blanked, so their line
	// numbers (in notes too) are the file's.
	var err error
	switch sp.Kind {
	case KindIBStat, KindIBStatus, KindDevinfo, KindRdma, KindLshca:
		err = diagnoseHCA(&seg, file, d, sp, opts, ctx)
	case KindKernel:
		err = diagnoseKernel(&seg, file, d, sp, opts)
	case KindTopo:
		err = diagnoseTopo(&seg, file, d, sp)
	case KindEthtool:
		err = diagnoseEthtool(&seg, file, d, sp, ctx)
	case KindShowGIDs:
		err = diagnoseShowGIDs(&seg, file, d, sp, ctx)
	}
	if isHCA(sp.Kind) || sp.Kind == KindKernel || sp.Kind == KindTopo || sp.Kind == KindEthtool || sp.Kind == KindShowGIDs {
		return finish(seg, file, err)
	}
	text := segmentText(d, sp)
	switch sp.Kind {
	case KindNCCLLog:
		t, first := ctx.ncclText(d, sp)
		if !first {
			seg.Summary = fmt.Sprintf("NCCL log, judged with the NCCL log at lines %d-%d (one job)", ctx.ncclSpans[0].Start, ctx.ncclSpans[0].End)
			return seg
		}
		err = diagnoseNCCLLog(&seg, file, t, opts, ctx)
	case KindNCCLTests:
		err = diagnoseNCCLTests(&seg, file, spanText(d, sp, true), opts, ctx)
		if errors.Is(err, errNoRows) {
			seg = finish(seg, file, err)
			seg.Summary = "not judged: no result row"
			return seg
		}
	case KindPerftest:
		// With its prompts: a command line says what a bare result is
		// (--output=latency prints one number).
		err = diagnosePerftest(&seg, file, spanText(d, sp, true), opts, ctx)
	case KindIBDiagnet:
		err = diagnoseIBDiagnet(&seg, file, text)
	case KindSARecords:
		err = diagnoseSARecords(&seg, file, text)
	case KindMlxlink:
		err = diagnoseMlxlink(&seg, file, d, sp)
	case KindPortInfo:
		err = diagnosePortInfo(&seg, file, text)
	case KindIPerf:
		err = diagnoseIPerf(&seg, file, text)
	case KindEthtoolLink:
		err = diagnoseEthtoolLink(&seg, file, withPrompts(d, sp)) // a command line names a grep'd field's interface
	case KindEthModule:
		err = diagnoseEthModule(&seg, file, withPrompts(d, sp))
	case KindMst:
		err = diagnoseMst(&seg, file, text)
	case KindAMDSMI:
		err = diagnoseAMDSMI(&seg, file, text)
	case KindFiInfo:
		err = diagnoseFiInfo(&seg, file, text)
	case KindPingpong:
		err = diagnosePingpong(&seg, file, withPrompts(d, sp))
	case KindIBDev2Netdev:
		err = diagnoseIBDev2Netdev(&seg, file, d, sp)
	case KindNvsmiQuery:
		err = diagnoseNvsmiQuery(&seg, file, text)
	case KindNvsmiError:
		err = diagnoseNvsmiErrors(&seg, file, text)
	case KindNvsmiTable:
		err = diagnoseNvsmiTable(&seg, file, text)
	case KindOSU:
		err = diagnoseOSU(&seg, file, text)
	case KindMPICheck:
		diagnoseMPICheck(&seg, file, text)
	case KindDeepEP:
		diagnoseDeepEP(&seg, file, text)
	case KindIBVLoad:
		diagnoseIBVLoad(&seg, file, text)
	case KindDshbak:
		err = diagnoseDshbak(&seg, file, spanText(d, sp, true))
	case KindUCXPerf:
		// With its prompts: the command line's -t names a table
		// printed without its banner.
		err = diagnoseUCXPerf(&seg, file, spanText(d, sp, true), opts, ctx, d)
	case KindLspci:
		t, first := spansText(ctx.lspciSpans, d, sp)
		if !first {
			seg.Summary = fmt.Sprintf("lspci output, judged with the lspci output at lines %d-%d", ctx.lspciSpans[0].Start, ctx.lspciSpans[0].End)
			return seg
		}
		err = diagnoseLspci(&seg, file, t, lspciProse(d, ctx.lspciSpans, sp))
	case KindSysfsPCI:
		err = diagnoseSysfsPCI(&seg, file, text, lspciProse(d, nil, sp))
	case KindUCXLog:
		t, first := spansText(ctx.ucxSpans, d, sp)
		if !first {
			seg.Summary = fmt.Sprintf("UCX log, judged with the UCX log at lines %d-%d", ctx.ucxSpans[0].Start, ctx.ucxSpans[0].End)
			return seg
		}
		err = diagnoseUCX(&seg, file, t, d)
	case KindOpenMPI:
		err = diagnoseOpenMPI(&seg, file, text)
	case KindHealthCheck:
		err = diagnoseHealthChecks(&seg, file, text)
	case KindUlimit:
		err = diagnoseUlimit(&seg, file, text)
	case KindOpenSM:
		err = diagnoseOpenSM(&seg, file, text, d, sp)
	case KindIBExporter:
		err = diagnoseIBExporter(&seg, file, text)
	case KindDevFiles:
		err = diagnoseDevFiles(&seg, file, d, sp)
	case KindMadClass:
		err = diagnoseMadClass(&seg, file, d, sp)
	case KindDrvInfo:
		err = diagnoseDrvInfo(&seg, file, d, sp)
	case KindLsmod:
		err = diagnoseLsmod(&seg, file, d, sp)
	case KindUCCL:
		err = diagnoseUCCL(&seg, file, d, sp, opts, ctx)
	case KindIPLink:
		err = diagnoseIPLink(&seg, file, text)
	case KindCellCLI:
		err = diagnoseCellCLI(&seg, file, text)
	case KindMlnxQoS:
		err = diagnoseMlnxQoS(&seg, file, spanText(d, sp, true))
	case KindListLinkup:
		err = diagnoseListLinkup(&seg, file, text)
	case KindOnyxRoCE:
		err = diagnoseOnyxRoCE(&seg, file, text)
	case KindSystemctl:
		err = diagnoseSystemctl(&seg, file, d, sp, opts)
	case KindMADError:
		err = diagnoseMADErrors(&seg, file, d, sp)
	case KindToolError:
		err = diagnoseToolErrors(&seg, file, d, sp)
	case KindVerbsDevices:
		err = diagnoseVerbsDevices(&seg, file, d, sp, ctx)
	case KindVerbsLog:
		err = diagnoseVerbsLog(&seg, file, text, d, sp)
	case KindLnetctl:
		err = diagnoseLnetctl(&seg, file, text)
	case KindGanesha:
		err = diagnoseGanesha(&seg, file, text)
	case KindIfconfig:
		err = diagnoseIfconfig(&seg, file, text)
	case KindDAOSNet:
		err = diagnoseDAOSNet(&seg, file, text)
	case KindUCXInfo:
		err = diagnoseUCXInfo(&seg, file, text)
	case KindFabtests:
		err = diagnoseFabtests(&seg, file, text)
	default:
		return seg // fabric outputs are judged together, by diagnoseFabric
	}
	if err == nil && verbsJudged(sp.Kind) {
		// libibverbs' provider warnings inside a NCCL, UCX, MPI or
		// benchmark output, which its reader does not judge.
		var ps []wclog.Provider
		for i, l := range d.lines(sp) {
			if p, ok := wclog.ProviderLine(l); ok {
				p.Line = sp.Start + i
				ps = append(ps, p)
			}
		}
		if len(ps) > 0 {
			seg.Findings = append(seg.Findings, logProviders(file, ps, d, sp)...)
		}
	}
	return finish(seg, file, err)
}

// maxSkippedLines is how many lines of one output a parser may refuse
// before the output is given up: past that, the text is not that tool's.
const maxSkippedLines = 25

// minReadAs is the resemblance score at which a file without any header
// is read as the kind it resembles.
const minReadAs = 50

// canRead says whether a kind can be read without its header.
func canRead(k Kind) bool {
	switch k {
	case KindUnknown, KindNetDiscover, KindForwardTables:
		return false // their grammar starts at the header
	}
	return true
}

// lineErr returns the line a parse error names, 0 when none.
func lineErr(err error) (int, string) {
	var pe *parse.Error
	if errors.As(err, &pe) && pe.Line > 0 {
		return pe.Line, pe.Err.Error()
	}
	return 0, ""
}

// diagnoseTolerant diagnoses a segment; when its parser refuses a line
// (a line the poster typed, a wrapped fragment, "..."), that line is
// listed as skipped with its number and the rest is read again, so one
// bad line does not lose the output. segFileLines says how a parser
// numbers its lines: the file's, or the segment's own.
func diagnoseTolerant(file string, d *doc, sp Span, opts Options, ctx *context) Segment {
	first := diagnose(file, d, sp, opts, ctx)
	if !first.Failed {
		return first
	}
	seg, work := first, d
	var bad []int
	var why []string
	for len(bad) < maxSkippedLines {
		n, reason := lineErr(seg.err)
		if n == 0 {
			break
		}
		if !fileNumbered(sp.Kind) {
			n += sp.Start - 1
		}
		if n < sp.Start || n > sp.End || strings.TrimSpace(work.line(n)) == "" {
			break
		}
		if len(bad) == 0 {
			work = d.clone()
		}
		work.set(n, "")
		bad = append(bad, n)
		why = append(why, reason)
		next := diagnose(file, work, sp, opts, ctx)
		if !next.Failed {
			next.Skipped = append(next.Skipped, skippedLines(file, d, bad, why)...)
			return next
		}
		seg = next
	}
	// The rest does not read either: the first refusal says why.
	return first
}

// skippedLines lists refused lines, grouped by reason.
func skippedLines(file string, d *doc, bad []int, why []string) []string {
	var reasons []string
	at := map[string][]int{}
	for i, n := range bad {
		if _, ok := at[why[i]]; !ok {
			reasons = append(reasons, why[i])
		}
		at[why[i]] = append(at[why[i]], n)
	}
	out := make([]string, 0, len(reasons))
	for _, r := range reasons {
		ns := at[r]
		out = append(out, fmt.Sprintf("%s: not read (%s): %q", lineList(file, ns), r, firstLine([]string{d.line(ns[0])})))
	}
	return out
}

// fabricParsers read each fabric tool's text (for skipRefused).
var fabricParsers = map[Kind]func(io.Reader, string) error{
	KindNetDiscover:   func(r io.Reader, s string) error { _, err := ibdiags.ParseNetDiscover(r, s); return err },
	KindLinkInfo:      func(r io.Reader, s string) error { _, err := ibdiags.ParseLinkInfo(r, s); return err },
	KindQueryErrors:   func(r io.Reader, s string) error { _, err := ibdiags.ParseQueryErrors(r, s); return err },
	KindPerfQuery:     func(r io.Reader, s string) error { _, err := ibdiags.ParsePerfQuery(r, s); return err },
	KindForwardTables: func(r io.Reader, s string) error { _, err := ibdiags.ParseFTs(r, s); return err },
	KindSMInfo:        func(r io.Reader, s string) error { _, err := ibdiags.ParseSMInfo(r, s); return err },
	KindSMPorts:       func(r io.Reader, s string) error { _, err := ibdiags.ParseSMPorts(r, s); return err },
}

// skipRefused blanks in ls the lines of a fabric tool's output its parser
// refuses, one at a time until the rest reads (at most maxSkippedLines),
// and lists them; when the rest never reads, ls is left as it was and
// the parse error is reported by the caller.
func skipRefused(file string, d *doc, sp Span) []string {
	p := fabricParsers[sp.Kind]
	if p == nil {
		return nil
	}
	var bad []int
	var why []string
	orig := map[int]string{}
	for len(bad) <= maxSkippedLines {
		err := p(strings.NewReader(segmentText(d, sp)), file)
		n, reason := lineErr(err)
		if err == nil {
			return skippedLines(file, withOrig(d, orig), bad, why)
		}
		if n < sp.Start || n > sp.End || strings.TrimSpace(d.line(n)) == "" || len(bad) == maxSkippedLines {
			break
		}
		orig[n] = d.line(n)
		d.set(n, "")
		bad = append(bad, n)
		why = append(why, reason)
	}
	for n, l := range orig {
		d.set(n, l)
	}
	return nil
}

// withOrig returns ls with the lines in orig put back (for quoting them).
func withOrig(d *doc, orig map[int]string) *doc {
	if len(orig) == 0 {
		return d
	}
	c := d.clone()
	for n, l := range orig {
		c.set(n, l)
	}
	return c
}

// fileNumbered says whether a kind's parser numbers lines as the file
// does (it reads the file's text with the other lines blanked).
func fileNumbered(k Kind) bool {
	// diagnoseHCA and diagnoseTopo renumber their parsers' errors.
	return k != KindKernel && k != KindEthtool
}

// finish records a parse failure and names the file in every finding.
func finish(seg Segment, file string, err error) Segment {
	if err != nil {
		seg.err = err
		seg.Failed = true
		seg.Summary = "could not be parsed"
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("lines %s skipped: %v", seg.Lines, err))
	}
	for i := range seg.Findings {
		if seg.Findings[i].Subject.File == "" {
			seg.Findings[i].Subject.File = file
		}
	}
	catalog.Sort(seg.Findings)
	return seg
}

var hcaParsers = map[Kind]func(io.Reader, string) (*hcatext.Result, error){
	KindIBStat:   hcatext.ParseIBStat,
	KindIBStatus: hcatext.ParseIBStatus,
	KindDevinfo:  hcatext.ParseDevinfo,
	KindRdma:     hcatext.ParseRdma,
	KindLshca:    hcatext.ParseLshca,
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// segmentOnly returns the lines of sp alone, shell prompts blanked.
func segmentOnly(d *doc, sp Span) string {
	var b strings.Builder
	for _, l := range d.lines(sp) {
		// A "cat /sys/…" prompt names the file whose value follows.
		if !isPrompt(l) || strings.Contains(l, "cat /sys/class/infiniband/") {
			b.WriteString(l)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func diagnoseHCA(seg *Segment, file string, d *doc, sp Span, opts Options, ctx *context) error {
	res, err := hcaParsers[seg.Kind](strings.NewReader(segmentOnly(d, sp)), file)
	if err != nil {
		return shiftErr(err, sp.Start-1)
	}
	res.Shift(sp.Start - 1)
	snap := res.Snap
	ctx.addRates(snap, fmt.Sprintf("%s lines %s", seg.Kind, seg.Lines))
	ctx.addNode(snap)
	ctx.results = append(ctx.results, res)
	active, counters, noPhys := 0, 0, []string{}
	for _, d := range snap.Devices {
		for _, p := range d.Ports {
			if p.IsActive() {
				active++
			}
			counters += len(p.HWCounters)
			if p.State != nil && p.PhysState == nil {
				noPhys = append(noPhys, fmt.Sprintf("%s/%d", d.Name, p.Number))
			}
		}
	}
	seg.Summary = fmt.Sprintf("%s, %s (%d ACTIVE)", plural(len(snap.Devices), "HCA", "HCAs"), plural(res.Ports(), "port", "ports"), active)
	if res.Ports() == 0 && len(snap.PCI) == 0 {
		// Device headers alone: nothing of a port was read (its lines
		// did not parse, or the paste was cut after the header).
		seg.Empty = "no port read: only device header lines"
		if seg.Kind == KindDevinfo && len(snap.Devices) > 0 && snap.Devices[0].FWVersion != "" {
			// ibv_devinfo prints hca_id and fw_ver only after
			// ibv_open_device and ibv_query_device succeeded
			// (rdma-core libibverbs/examples/devinfo.c print_hca_cap):
			// the device opens, but its ports were not shown.
			seg.Empty = "no port section (cut after the device header): the device opens, its ports' state is not shown"
			seg.Summary += ", ports not judged: no port section"
		}
	}
	if counters > 0 {
		seg.Summary += fmt.Sprintf(", %d hw counters", counters)
		seg.Skipped = append(seg.Skipped, "hw counters are totals since the driver loaded: non-zero error totals are reported; their rates (is it still happening?) need two samples, as 'ibdoctor agent' takes; the DCQCN counters judge ECN with an ethtool -S of the port's netdev in the same paste")
	}
	if len(noPhys) > 0 && seg.Kind == KindLshca {
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("no physical state printed for %s: lshca's LnkStat is the logical state only (ibstat shows the physical state)", strings.Join(noPhys, ", ")))
	} else if len(noPhys) > 0 {
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("no physical state printed for %s: rate and width are not shown either (use ibv_devinfo -v or ibstat)", strings.Join(noPhys, ", ")))
	}
	seg.Skipped = append(seg.Skipped, summariseSkips(file, res.Skipped)...)
	noneListed := false // ibv_devinfo pasted under rdma link: "No IB devices found"
	if vs := verbsOf(res); len(vs) > 0 {
		listed := len(snap.Devices)
		if seg.Kind != KindDevinfo && slices.ContainsFunc(res.Absent, func(a hcatext.Absent) bool { return a.Device == "" }) {
			// rdma link lists the kernel's devices; the verbs tool
			// after it listed none of them.
			listed, noneListed = 0, true
		}
		if fs := noderules.CheckVerbsProviders(file, vs, listed); len(fs) > 0 {
			seg.Findings = append(seg.Findings, fs...)
			if len(snap.Devices) == 0 {
				// "No IB devices found" is what a missing provider
				// leads to: said by the finding above.
				seg.Summary = "no RDMA device usable (libibverbs has no provider)"
				seg.Empty = ""
				return nil
			}
		}
	}
	if len(res.Absent) > 0 && len(snap.Devices) == 0 {
		// Only the tool's error: CheckAbsent says it (the node rules
		// would add a node without devices again).
		seg.Summary = "no RDMA device (the tool's own error)"
		seg.Empty = ""
		seg.Findings = append(seg.Findings, noderules.CheckAbsent(file, absentOf(res, seg.Kind))...)
		return nil
	}
	fs, notes := noderules.CheckPastedNoted(snap, opts.Expect, res.Fragments...)
	for _, n := range notes {
		where := n.Evidence.Source
		if l, ok := res.Locate(where); ok {
			where = fmt.Sprintf("%s:%d", file, l.N)
		}
		seg.Skipped = append(seg.Skipped, where+": "+n.Text)
	}
	fs = append(fs, noderules.Totals(snap)...) // error counters pasted once
	for i := range fs {
		for j := range fs[i].Evidence {
			ev := &fs[i].Evidence[j]
			if l, ok := res.Locate(ev.Source); ok {
				ev.Source, ev.Value = fmt.Sprintf("%s:%d", file, l.N), l.Text
			}
		}
	}
	seg.Findings = append(seg.Findings, fs...)
	as := absentOf(res, seg.Kind)
	if noneListed {
		// Said by the provider finding.
		as = slices.DeleteFunc(as, func(a noderules.Absent) bool { return a.Device == "" })
	}
	seg.Findings = append(seg.Findings, noderules.CheckAbsent(file, as)...)
	return nil
}

// verbsOf turns libibverbs' warnings of an HCA tool's output into the
// node rules' terms.
func verbsOf(res *hcatext.Result) []noderules.VerbsWarn {
	var out []noderules.VerbsWarn
	for _, w := range res.Verbs {
		out = append(out, noderules.VerbsWarn{Kind: string(w.Kind), Name: w.Name, Line: w.Line.N, Text: w.Line.Text})
	}
	return out
}

// absentOf turns the devices an HCA tool said do not exist into the
// node rules' terms.
func absentOf(res *hcatext.Result, k Kind) []noderules.Absent {
	var out []noderules.Absent
	for _, a := range res.Absent {
		out = append(out, noderules.Absent{Device: a.Device, Line: a.Line.N, Text: a.Line.Text, Verbs: k == KindDevinfo})
	}
	return out
}

// summariseSkips lists skipped lines grouped by reason: each reason once,
// with its line numbers (the first few) and count.
func summariseSkips(file string, sk []hcatext.Skip) []string {
	var reasons []string
	lines := map[string][]int{}
	for _, s := range sk {
		if _, ok := lines[s.Reason]; !ok {
			reasons = append(reasons, s.Reason)
		}
		lines[s.Reason] = append(lines[s.Reason], s.Line)
	}
	out := make([]string, 0, len(reasons))
	for _, r := range reasons {
		out = append(out, fmt.Sprintf("%s: %s", lineList(file, lines[r]), r))
	}
	return out
}

// noteLines groups a fabric parser's passed-over lines by reason.
func noteLines(file string, ns []ibdiags.Note) []string {
	sk := make([]hcatext.Skip, len(ns))
	for i, n := range ns {
		sk[i] = hcatext.Skip{Line: n.Line, Reason: n.Reason}
	}
	return summariseSkips(file, sk)
}

// lineList renders "f:3" or "f:3,5,9 and 12 more (15 lines)".
func lineList(file string, ns []int) string {
	return lineListN(file, ns, len(ns))
}

// lineListN is lineList of total lines of which ns are the first.
func lineListN(file string, ns []int, total int) string {
	const show = 5
	parts := make([]string, 0, show)
	for i, n := range ns {
		if i == show {
			break
		}
		parts = append(parts, strconv.Itoa(n))
	}
	s := file + ":" + strings.Join(parts, ",")
	if total > show {
		s += fmt.Sprintf(" and %d more (%d lines)", total-show, total)
	}
	return s
}

// shiftErr renumbers the line of a parse error of a segment.
func shiftErr(err error, n int) error {
	var he *hcatext.ParseError
	if errors.As(err, &he) && he.Line > 0 {
		c := *he
		c.Line += n
		return &c
	}
	return err
}

func diagnoseKernel(seg *Segment, file string, d *doc, sp Span, opts Options) error {
	lg, err := kmsg.ParseText(strings.NewReader(segmentOnly(d, sp)), file, kmsg.TextOptions{Year: opts.Year})
	if err != nil {
		return err // ErrNoData: no line to name
	}
	for i := range lg.Records {
		lg.Records[i].Line += sp.Start - 1
	}
	for _, e := range lg.Errors {
		e.Line += sp.Start - 1
	}
	seg.Summary = plural(len(lg.Records), "kernel message", "kernel messages")
	// --kind dmesg reads any line as a message; a text none of whose
	// lines looks like the kernel's judged nothing.
	if !slices.ContainsFunc(d.lines(sp), kmsg.DetectLine) {
		seg.Empty = "no line looks like a kernel message (timestamp, facility or driver prefix)"
	}
	if len(lg.Errors) > 0 {
		ns := make([]int, len(lg.Errors))
		for i, e := range lg.Errors {
			ns[i] = e.Line
		}
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s: timestamp not understood (%v)", lineList(file, ns), lg.Errors[0].Err))
	}
	seg.Findings = append(seg.Findings, host.CheckPastedKernelLog(lg, time.Time{}, 0)...)
	return nil
}

func diagnoseTopo(seg *Segment, file string, d *doc, sp Span) error {
	m, err := nvsmi.Parse(strings.NewReader(segmentOnly(d, sp)), file)
	var te *nvsmi.ParseError
	if errors.As(err, &te) && te.Line > 0 {
		c := *te
		c.Line += sp.Start - 1
		return &c
	}
	if err != nil {
		return err
	}
	seg.Summary = fmt.Sprintf("%s × %s", plural(len(m.GPUs), "GPU", "GPUs"), plural(len(m.NICs), "NIC", "NICs"))
	if len(m.Unread) > 0 {
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("cells not read as a link word (their distance unknown, not judged): %s", strings.Join(m.Unread, ", ")))
	}
	switch {
	case len(m.Missing) > 0 && m.NoHeader:
		seg.Summary += fmt.Sprintf(" (no row for %s: not in the paste)", strings.Join(m.Missing, ", "))
	case len(m.Missing) > 0:
		seg.Summary += fmt.Sprintf(" (no row for %s: the paste ends before them)", strings.Join(m.Missing, ", "))
	}
	if m.NoHeader {
		seg.Summary += fmt.Sprintf("; the header line is missing: %s read from the rows' X (self) and NVLink cells, the other columns as NICs by position (NIC0…)", plural(len(m.GPUs)+len(m.Missing), "GPU column", "GPU columns"))
	}
	// Evidence names a GPU's row ("GPU1: mlx5_0=SYS …"): point at its line.
	row := map[string]int{}
	for i, l := range d.lines(sp) {
		if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(f[0], "GPU") && !isTopoHeader(strings.TrimSpace(l)) {
			if _, dup := row[f[0]]; !dup {
				row[f[0]] = sp.Start + i
			}
		}
	}
	fs := host.CheckPastedNvidiaSMI(m, file)
	for i := range fs {
		for j := range fs[i].Evidence {
			ev := &fs[i].Evidence[j]
			gpu, _, _ := strings.Cut(ev.Value, ":")
			if n, ok := row[gpu]; ok && ev.Source == file {
				ev.Source = fmt.Sprintf("%s:%d", file, n)
			}
		}
	}
	seg.Findings = append(seg.Findings, fs...)
	return nil
}

// diagnoseLspci judges the ACS Control register of the PCIe switch ports
// of an `lspci -vvv` (pcie.acs_redirect per redirecting port between a GPU
// and a NIC).
func diagnoseLspci(seg *Segment, file, text string, prose host.Prose) error {
	l, err := lspci.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	v := host.CheckPastedLspci(l, file)
	seg.Summary = v.Summary
	seg.Empty = v.NotJudged
	seg.Findings = append(seg.Findings, v.Findings...)
	links, judged := host.CheckPastedLspciLinks(l, file, prose)
	seg.Findings = append(seg.Findings, links...)
	lost, plain := host.CheckPastedLspciLost(l, file)
	seg.Findings = append(seg.Findings, lost...)
	if (plain || len(lost) > 0) && seg.Empty != "" {
		// A plain listing has no ACS registers to read: what it shows is
		// whether each device still answers on the bus.
		seg.Summary = strings.Replace(seg.Summary, "; "+seg.Empty, "", 1)
		if !plain {
			seg.Skipped = append(seg.Skipped, "ACS not judged: "+seg.Empty)
		}
		seg.Empty = ""
		if len(lost) == 0 {
			seg.Summary += "; every device answers on the bus (no \"(rev ff)\")"
		} else {
			seg.Summary += fmt.Sprintf("; %s no longer answering on the bus (rev ff)", plural(len(lost), "device", "devices"))
		}
	}
	if judged > 0 {
		if seg.Empty != "" {
			// The links were judged; the ACS part was not.
			seg.Summary = strings.Replace(seg.Summary, "; "+seg.Empty, "", 1)
			seg.Skipped = append(seg.Skipped, "ACS not judged: "+seg.Empty)
			seg.Empty = ""
		}
		seg.Summary += fmt.Sprintf("; PCIe link (LnkSta against LnkCap) of %s judged", plural(judged, "function", "functions"))
	}
	return nil
}

// diagnoseSysfsPCI judges pasted sysfs PCIe link files: each function's
// current link width and speed against its maximum.
func diagnoseSysfsPCI(seg *Segment, file, text string, prose host.Prose) error {
	r, err := sysfspci.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Skipped = append(seg.Skipped, r.Skipped...)
	fs, judged := host.CheckPastedSysfsLinks(r, file, prose)
	seg.Findings = append(seg.Findings, fs...)
	if judged == 0 {
		seg.Summary = fmt.Sprintf("sysfs PCIe link files of %s", plural(len(r.Links), "function", "functions"))
		seg.Empty = "no function shows both its current and its maximum link width or speed"
		return nil
	}
	seg.Summary = fmt.Sprintf("sysfs PCIe link (current against max) of %s judged", plural(judged, "function", "functions"))
	return nil
}

// lspciProse is the file's text around its lspci segments (up to 200
// lines before the first, the lines between them, 50 after the last):
// what it says an lspci excerpt without its device header is
// (host.ProseCarrier).
func lspciProse(d *doc, spans []Span, sp Span) host.Prose {
	if len(spans) == 0 {
		spans = []Span{sp}
	}
	var b strings.Builder
	from := max(1, spans[0].Start-200)
	for _, s := range spans {
		for n := from; n < s.Start; n++ {
			b.WriteString(d.line(n))
			b.WriteByte('\n')
		}
		from = s.End + 1
	}
	var a strings.Builder
	for n := from; n <= min(d.end(), from+50); n++ {
		a.WriteString(d.line(n))
		a.WriteByte('\n')
	}
	return host.Prose{Before: b.String(), After: a.String()}
}

// diagnoseEthtool keeps the "name: value" lines of an `ethtool -S` paste
// (prompts and wrapped junk are listed as skipped) and judges them.
func diagnoseEthtool(seg *Segment, file string, d *doc, sp Span, ctx *context) error {
	keep := make([]string, sp.End-sp.Start+1) // the segment's counter lines; others blank
	var bad []int
	netdev := ""
	if sp.Start > 1 {
		netdev = ethtoolNetdev(d.line(sp.Start - 1))
	}
	ls := d.lines(sp)
	at := map[string]int{} // counter name -> its line
	var flat []string      // counters of lines that hold many (a collapsed output)
	var rates []host.EthtoolRate
	rateAt := map[string]int{}
	for k, l := range ls {
		i := sp.Start - 1 + k // the line's index in the file
		t := strings.TrimSpace(l)
		if t == "" || t == "NIC statistics:" {
			continue
		}
		if ps := ethtool.Pairs(t); len(ps) > 1 {
			for _, p := range ps {
				flat = append(flat, fmt.Sprintf("%s: %d", p.Name, p.Value))
				at[p.Name] = i + 1
			}
			if nd := ethtoolNetdev(l); nd != "" && netdev == "" {
				netdev = nd
			}
			continue
		}
		if j := strings.LastIndexByte(t, ':'); j > 0 {
			if _, err := strconv.ParseUint(strings.TrimSpace(t[j+1:]), 10, 64); err == nil {
				keep[k] = l
				continue
			}
		}
		if name, r, ok := ethtool.RateLine(t); ok {
			// A rate view (watch, a script): each counter's latest
			// rate (one screen; the queues' sum is that screen's).
			if j, seen := rateAt[name]; seen {
				rates[j] = host.EthtoolRate{Name: name, PerSec: r, Line: i + 1, Text: t}
			} else {
				rateAt[name] = len(rates)
				rates = append(rates, host.EthtoolRate{Name: name, PerSec: r, Line: i + 1, Text: t})
			}
			continue
		}
		if nd := ethtoolNetdev(l); nd != "" && netdev == "" {
			netdev = nd
		}
		if !isPrompt(l) && !hostPrompt(t) {
			bad = append(bad, i+1)
		}
	}
	if netdev == "" {
		netdev = "<netdev>" // not in the paste: the remedies show a placeholder
	}
	if len(rates) > 0 && len(flat) == 0 && !slices.ContainsFunc(keep, func(l string) bool { return l != "" }) {
		// Only per-second values: judged by rate, not as totals.
		if len(bad) > 0 {
			seg.Skipped = append(seg.Skipped, lineList(file, bad)+": not a \"name: rate\" line")
		}
		seg.Summary = fmt.Sprintf("rate view (per second) of %s of %s", plural(len(rates), "counter", "counters"), netdev)
		seg.Findings = append(seg.Findings, host.CheckEthtoolRates(netdev, file, rates)...)
		return nil
	}
	st, err := ethtool.Parse(strings.NewReader(strings.Join(append(keep, flat...), "\n")), netdev, file)
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		seg.Skipped = append(seg.Skipped, lineList(file, bad)+": not a \"name: counter\" line")
	}
	seg.Summary = fmt.Sprintf("%s of %s", plural(len(st.Stats), "counter", "counters"), netdev)
	// The stats carry no line numbers: find each evidence counter's line.
	for i, l := range keep {
		if l != "" {
			name, _, _ := strings.Cut(strings.TrimSpace(l), ":")
			at[name] = sp.Start + i
		}
	}
	// With the netdev's RDMA port known (rdma link + rdma statistic in the
	// paste, or --root), ECN is judged too.
	fs := host.CheckEthtoolOnNode(ctx.node, st)
	for i := range fs {
		for j := range fs[i].Evidence {
			ev := &fs[i].Evidence[j]
			name, _, _ := strings.Cut(ev.Value, ":")
			if n, ok := at[name]; ok && ev.Source == file {
				ev.Source = fmt.Sprintf("%s:%d", file, n)
				continue
			}
			for _, res := range ctx.results {
				if l, ok := res.Locate(ev.Source); ok {
					// An rdma statistic line holds every counter: name it.
					if _, counter, isHW := strings.Cut(ev.Source, "/hw_counters/"); isHW {
						ev.Value = counter + " " + ev.Value
					}
					ev.Source = fmt.Sprintf("%s:%d", file, l.N)
					break
				}
			}
		}
	}
	seg.Findings = append(seg.Findings, fs...)
	return nil
}

// ethtoolNetdev reads the netdev of a prompt line "$ ethtool -S ens1f0".
func ethtoolNetdev(l string) string {
	f := strings.Fields(l)
	for i := 0; i+2 < len(f); i++ {
		if strings.HasSuffix(f[i], "ethtool") && (f[i+1] == "-S" || f[i+1] == "--statistics") {
			return f[i+2]
		}
	}
	return ""
}

func notes(seg *Segment, ns []string) {
	for _, n := range ns {
		seg.Skipped = append(seg.Skipped, strings.TrimPrefix(n, "skipped: "))
	}
}

func diagnoseNCCLLog(seg *Segment, file, text string, opts Options, ctx *context) error {
	lg, err := nccllog.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	if ctx.expectedIB != "" {
		socketInPlaceOfIB(lg)
	}
	a := ncclrules.CheckLog(lg, ncclrules.LogOptions{RDMAPresent: ctx.rdma, ExpectIB: opts.ExpectIB || ctx.expectedIB != ""})
	seg.Summary = fmt.Sprintf("NCCL log of %s", plural(len(a.Procs), "process", "processes"))
	if ctx.expectedIB != "" && !opts.ExpectIB {
		seg.Skipped = append(seg.Skipped, "IB/RoCE expected: "+ctx.expectedIB)
	}
	if a.Version != "" {
		seg.Summary += ", NCCL " + a.Version
	}
	seg.Findings = append(seg.Findings, a.Findings...)
	// libfabric's own lines in the log of a job that uses aws-ofi-nccl
	// (FI_LOG_LEVEL=warn): a provider that found nothing.
	if strings.Contains(text, "> fi_getinfo: provider ") {
		var gs []wclog.Getinfo
		for i, l := range strings.Split(text, "\n") {
			if g, ok := wclog.GetinfoLine(l); ok {
				g.Line = i + 1
				gs = append(gs, g)
			}
		}
		seg.Findings = append(seg.Findings, verbsrules.CheckGetinfos(file, gs)...)
	}
	notes(seg, a.Notes)
	return nil
}

// joinNCCLLogs judges the NCCL logs of one file as one job, as 'nccl
// log' does with its files: a paste quotes the client's lines and the
// server's in separate blocks, and a socket fallback on one side next to
// IB on the other is only seen with both. The findings go to the first
// log's segment.
func joinNCCLLogs(file string, d *doc, spans []Span, segs []*Segment, opts Options, ctx *context) {
	var idx []int
	var logs []*nccllog.Log
	for i, sp := range spans {
		if sp.Kind != KindNCCLLog || segs[i] == nil || segs[i].Failed {
			continue
		}
		lg, err := nccllog.Parse(strings.NewReader(segmentText(d, sp)), file)
		if err != nil {
			continue
		}
		idx = append(idx, i)
		logs = append(logs, lg)
	}
	if len(logs) < 2 {
		return
	}
	merged := nccllog.Merge(logs...)
	if ctx.expectedIB != "" {
		socketInPlaceOfIB(merged)
	}
	a := ncclrules.CheckLog(merged, ncclrules.LogOptions{RDMAPresent: ctx.rdma, ExpectIB: opts.ExpectIB || ctx.expectedIB != ""})
	var parts []string
	for _, i := range idx {
		parts = append(parts, segs[i].Lines)
	}
	first := segs[idx[0]]
	first.Findings = a.Findings
	first.Skipped = nil
	notes(first, a.Notes)
	first.Skipped = append(first.Skipped, fmt.Sprintf("the NCCL logs at lines %s are judged together, as one job", strings.Join(parts, ", ")))
	*first = finish(*first, file, nil)
	first.Summary = fmt.Sprintf("NCCL log of %s, one job with %s", plural(len(a.Procs), "process", "processes"), plural(len(idx)-1, "more log", "more logs"))
	for _, i := range idx[1:] {
		segs[i].Findings = []finding.Finding{}
		segs[i].Skipped = []string{fmt.Sprintf("judged with the NCCL log at lines %s, as one job", first.Lines)}
	}
}

// lineRate is --line-rate, else the rate most ACTIVE ports of the paste's
// HCA outputs (or of Options.Node) run at, noted in the segment.
func lineRate(seg *Segment, opts Options, ctx *context) float64 {
	rate, n, from := ctx.lineRate()
	if opts.LineRateGbps > 0 || rate == 0 {
		return opts.LineRateGbps
	}
	seg.Skipped = append(seg.Skipped, fmt.Sprintf("line rate %g Gb/s taken from %s (%s at that rate); give --line-rate to override", rate, from, plural(n, "ACTIVE port", "ACTIVE ports")))
	return rate
}

// errNoRows marks an nccl-tests output without a result: not judged.
var errNoRows = errors.New("not judged")

func diagnoseNCCLTests(seg *Segment, file, text string, opts Options, ctx *context) (err error) {
	out, err := nccltests.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	to := ncclrules.TestsOptions{ExpectBusBW: opts.ExpectBusBW, LineRateGbps: lineRate(seg, opts, ctx), ExpectIB: opts.ExpectIB || ctx.rdma}
	if rate, n, from := ctx.lineRate(); rate > 0 && n > 0 {
		// The paste's HCA outputs (or --root) show the node's NICs.
		to.NICsPerNode, to.NICsFrom = n, fmt.Sprintf("NICs per node from %s: %s", from, plural(n, "ACTIVE port", "ACTIVE ports"))
	}
	var lg *nccllog.Log
	if nccllog.Detect(text) {
		// NCCL_DEBUG=INFO lines inside the test output.
		if l, err := nccllog.Parse(strings.NewReader(text), file); err == nil {
			lg = l
			to.Net = ncclrules.NetUseOf(lg)
		}
	}
	a := ncclrules.CheckTests(out, to)
	rows := 0
	for _, r := range out.Runs {
		rows += len(r.Rows)
		if r.AvgBusBW != nil || len(r.Errors) > 0 {
			rows++
		}
	}
	// netSaid: the NCCL log inside says which network a process used,
	// which is judged even when no result row follows.
	netSaid := false
	defer func() {
		if rows == 0 && len(seg.Findings) == 0 && !netSaid {
			err = fmt.Errorf("%w: the nccl-tests banner and device list were printed but no result row (the run stopped before measuring, or the paste was cut): nothing to judge", errNoRows)
		}
	}()
	seg.Summary = fmt.Sprintf("nccl-tests, %s", plural(len(a.Runs), "run", "runs"))
	if !slices.ContainsFunc(out.Runs, func(r *nccltests.Run) bool { return len(r.Rows) > 0 }) && len(a.Findings) == 0 {
		seg.Empty = "no result row (the test printed its header and stopped, or the paste was cut)"
	}
	seg.Findings = append(seg.Findings, a.Findings...)
	notes(seg, a.Notes)
	if lg != nil {
		la := ncclrules.CheckLog(lg, ncclrules.LogOptions{RDMAPresent: ctx.rdma, ExpectIB: opts.ExpectIB, OneHost: oneHost(out.Runs)})
		seg.Summary += fmt.Sprintf(" with the NCCL log of %s", plural(len(la.Procs), "process", "processes"))
		netSaid = slices.ContainsFunc(la.Procs, func(p ncclrules.ProcSummary) bool { return p.Network != "" })
		if netSaid {
			seg.Empty = ""
		}
		seg.Findings = append(seg.Findings, dropDuplicates(la.Findings, a.Findings)...)
		notes(seg, la.Notes)
	}
	return nil
}

// oneHost returns the host that the rank lists of runs put every rank
// on, "" when they name several, none, or may be incomplete (cut lists,
// copies of a test that each ran alone).
func oneHost(runs []*nccltests.Run) string {
	host := ""
	for _, r := range runs {
		if len(r.Ranks) == 0 {
			continue
		}
		hs := r.Hosts()
		if len(hs) != 1 || r.RanksTruncated || r.Independent() || host != "" && hs[0] != host {
			return ""
		}
		host = hs[0]
	}
	return host
}

// dropDuplicates leaves out of fs the findings whose ID already stands in
// have: the tests rules and the log rules both read a socket fallback, and
// one cause is one finding.
func dropDuplicates(fs, have []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if !slices.ContainsFunc(have, func(h finding.Finding) bool { return h.ID == f.ID }) {
			out = append(out, f)
		}
	}
	return out
}

func diagnosePerftest(seg *Segment, file, text string, opts Options, ctx *context) error {
	rs, err := perftest.ParseAll(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	a := perftestrules.Check(rs, perftestrules.Options{LineRateGbps: lineRate(seg, opts, ctx), MaxLatencyUS: opts.MaxLatencyUS})
	seg.Summary = "perftest, " + plural(len(rs), "test", "tests")
	if !slices.ContainsFunc(rs, func(r *perftest.Result) bool { return len(r.BW) > 0 || len(r.Lat) > 0 }) && len(a.Findings) == 0 {
		seg.Empty = "no result row (the test printed its banner and stopped, or the paste was cut)"
	}
	seg.Findings = append(seg.Findings, a.Findings...)
	if ctx.tcpOK && !slices.ContainsFunc(a.Findings, func(f finding.Finding) bool { return f.ID == "perf.bw_low" }) {
		seg.Findings = append(seg.Findings, perftestrules.CheckAgainstTCP(rs, ctx.tcp)...)
	}
	notes(seg, a.Notes)
	return nil
}

func isFabric(k Kind) bool {
	switch k {
	case KindNetDiscover, KindLinkInfo, KindQueryErrors, KindPerfQuery, KindForwardTables, KindSMInfo, KindSMPorts:
		return true
	}
	return false
}

// fabricPaste holds what the steps of diagnoseFabric share: the file's
// lines and segments, which segment holds each tool's output, and the
// fabric collection built from them.
type fabricPaste struct {
	file     string
	ls       *doc
	segs     []Segment
	owner    map[string]int // tool name → index of its (first) segment
	f        *fabric.Fabric
	haveTopo bool
	unplaced map[int]int // segment → nodes not placed without a topology
	alone    []finding.Finding
}

// diagnoseFabric builds one fabric collection from every fabric tool
// output of a file (the first of each tool) and runs the fabric checks on
// it: the link, counter and identity checks need ibnetdiscover's topology,
// which the other outputs are joined to. Findings go to the topology's
// segment; each output's gaps to its own.
func diagnoseFabric(file string, d *doc, segs []Segment, idx []int) {
	// ls is cloned: skipRefused blanks the lines it refuses.
	p := &fabricPaste{file: file, ls: d.clone(), segs: segs, owner: map[string]int{}, unplaced: map[int]int{}}
	p.f = fabric.Build(p.collect(idx))
	_, p.haveTopo = p.owner[string(KindNetDiscover)]
	p.placeGaps()
	for name, i := range p.owner {
		p.summarize(name, i)
	}
	fs := p.judge()
	p.relocate(fs)
	// The topology's segment carries the findings; without one, sminfo's.
	to := -1
	for _, k := range []Kind{KindNetDiscover, KindSMInfo, KindSMPorts, KindLinkInfo, KindQueryErrors, KindPerfQuery} {
		if i, ok := p.owner[string(k)]; ok && !segs[i].Failed {
			to = i
			break
		}
	}
	if to >= 0 {
		segs[to].Findings = append(segs[to].Findings, fs...)
		catalog.Sort(segs[to].Findings)
	}
}

// collect gathers the first output of each tool among segments idx into
// one raw collection; a second output of a tool is marked not judged.
func (p *fabricPaste) collect(idx []int) *fabricmodel.Raw {
	raw := &fabricmodel.Raw{Source: p.file}
	for _, i := range idx {
		s := &p.segs[i]
		name := string(s.Kind)
		if _, dup := p.owner[name]; dup {
			s.Failed = true
			s.Summary = "not judged"
			s.Skipped = append(s.Skipped, fmt.Sprintf("lines %s: a second %s output in one file; only the first is judged (give it as its own file)", s.Lines, name))
			continue
		}
		p.owner[name] = i
		s.Skipped = append(s.Skipped, skipRefused(p.file, p.ls, Span{Kind: s.Kind, Start: s.Start, End: s.End})...)
		raw.Outputs = append(raw.Outputs, &fabricmodel.Output{Name: name, Stdout: []byte(segmentText(p.ls, Span{Start: s.Start, End: s.End}))})
	}
	return raw
}

// placeGaps gives each gap of the collection to the segment of the tool
// it comes from; without a topology, nodes it could not place are counted
// to be said once per segment.
func (p *fabricPaste) placeGaps() {
	for _, g := range p.f.Gaps {
		i, ok := p.owner[g.Source]
		if !ok || g.Reason == "not collected" {
			continue
		}
		if !p.haveTopo && strings.Contains(g.Reason, "not in the") && strings.Contains(g.Reason, "topology") {
			p.unplaced[i]++ // said once below
			continue
		}
		p.segs[i].Skipped = append(p.segs[i].Skipped, g.Reason)
	}
}

// summarize fills in the summary and notes of segment i, which holds the
// output of tool name, and marks it failed when it cannot be parsed.
func (p *fabricPaste) summarize(name string, i int) {
	s := &p.segs[i]
	if err := p.summarizeKind(Kind(name), i); err != nil {
		s.Failed = true
		s.Summary = "could not be parsed"
		s.Skipped = append(s.Skipped, fmt.Sprintf("lines %s skipped: %v", s.Lines, err))
		return
	}
	if n := p.unplaced[i]; n > 0 {
		s.Skipped = append(s.Skipped, fmt.Sprintf("%s not judged: they are placed on the fabric by its topology; paste ibnetdiscover output with this (same file) or run 'ibdoctor fabric check'", plural(n, "node", "nodes")))
	}
}

// summarizeKind parses segment i as the output of kind k to summarise it;
// without a topology, query and perfquery counters are judged by
// themselves. It returns the parse error.
func (p *fabricPaste) summarizeKind(k Kind, i int) error {
	s, f, file := &p.segs[i], p.f, p.file
	text := segmentText(p.ls, Span{Start: s.Start, End: s.End})
	src := file
	var err error
	switch k {
	case KindNetDiscover:
		var t *ibdiags.Topology
		if t, err = ibdiags.ParseNetDiscover(strings.NewReader(text), src); err == nil {
			s.Summary = fmt.Sprintf("%s, %s", plural(len(t.Nodes), "node", "nodes"), plural(len(f.Links), "link", "links"))
			s.Skipped = append(s.Skipped, noteLines(file, t.Skipped)...)
			if len(f.Links) == 0 {
				s.Skipped = append(s.Skipped, "a node list (ibhosts, ibswitches): no links, rates or counters in it to judge; paste ibnetdiscover or iblinkinfo for those")
			}
		}
	case KindLinkInfo:
		var li *ibdiags.LinkInfo
		if li, err = ibdiags.ParseLinkInfo(strings.NewReader(text), src); err == nil {
			s.Summary = plural(len(li.Ports), "port", "ports")
			s.Skipped = append(s.Skipped, noteLines(file, li.Skipped)...)
		}
	case KindQueryErrors:
		var q *ibdiags.QueryErrors
		if q, err = ibdiags.ParseQueryErrors(strings.NewReader(text), src); err == nil {
			s.Summary = plural(len(q.Ports), "port with errors", "ports with errors")
			if !p.haveTopo {
				// Alone, each port's counters are judged by themselves.
				p.alone = append(p.alone, fabric.CheckQueryErrors(q, file, fabric.Thresholds{})...)
				delete(p.unplaced, i)
			}
		}
	case KindPerfQuery:
		var pq *ibdiags.PerfQuery
		if pq, err = ibdiags.ParsePerfQuery(strings.NewReader(text), src); err == nil {
			s.Summary = plural(len(pq.Blocks), "counter block", "counter blocks")
			if !p.haveTopo {
				// Without the topology the ports are not placed on
				// the fabric, but their error totals still speak.
				s.Findings = append(s.Findings, perfqueryTotals(file, p.ls, pq)...)
			}
		}
	case KindForwardTables:
		s.Summary = plural(len(f.LFTs), "forwarding table", "forwarding tables")
		if len(f.LFTs) == 0 {
			_, err = ibdiags.ParseFTs(strings.NewReader(text), src)
		}
		if !p.haveTopo {
			s.Skipped = append(s.Skipped, "routing is judged against the topology: paste ibnetdiscover output with it (same file), or run 'ibdoctor fabric check'")
		}
	case KindSMInfo:
		s.Summary = plural(len(f.SMs), "subnet manager", "subnet managers")
	case KindSMPorts:
		s.Summary = plural(len(f.SMPorts), "SM port", "SM ports")
		if len(f.SMPorts) == 0 {
			_, err = ibdiags.ParseSMPorts(strings.NewReader(text), src)
		}
	}
	return err
}

// judge runs the fabric checks, and the routing checks when the paste
// holds both the topology and the forwarding tables.
func (p *fabricPaste) judge() []finding.Finding {
	fs := fabric.Check(p.f, fabric.Options{})
	fs = append(fs, p.alone...)
	// With the topology and the forwarding tables in one paste, the routes
	// are judged too (A reaches B but not C, loops, credit loops).
	if ft, haveFTs := p.owner[string(KindForwardTables)]; p.haveTopo && haveFTs && len(p.f.LFTs) > 0 {
		rfs, _, err := fabric.CheckRouting(p.f, routing.Options{})
		if err != nil {
			p.segs[ft].Skipped = append(p.segs[ft].Skipped, "routing not judged: "+err.Error())
		}
		fs = append(fs, rfs...)
	}
	return fs
}

// relocate points evidence named after a tool's file ("iblinkinfo.txt
// line 23") at the pasted file ("FILE:23"), and findings without a file at
// the pasted one.
func (p *fabricPaste) relocate(fs []finding.Finding) {
	for i := range fs {
		for j := range fs[i].Evidence {
			ev := &fs[i].Evidence[j]
			for name := range p.owner {
				if rest, ok := strings.CutPrefix(ev.Source, name+".txt"); ok {
					// "iblinkinfo.txt line 23" → "FILE:23"
					if n, isLine := strings.CutPrefix(rest, " line "); isLine {
						rest = ":" + n
					}
					ev.Source = p.file + rest
				}
			}
		}
		if fs[i].Subject.File == "" {
			fs[i].Subject.File = p.file
		}
	}
}

// minResemblance is the score below which a text resembles nothing.
const minResemblance = 20

// Closest scores text against every kind by the share of its non-blank
// lines (of the first 200) that look like that kind's lines.
func Closest(text string) Guess {
	ls := Lines(text)
	if len(ls) > 200 {
		ls = ls[:200]
	}
	counts := map[Kind]int{}
	total := 0
	for _, l := range ls {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		total++
		for _, s := range signatures {
			for _, w := range s.words {
				if strings.Contains(t, w) {
					counts[s.kind]++
					break
				}
			}
		}
	}
	best := Guess{}
	for _, s := range signatures {
		if total > 0 && counts[s.kind] > 0 {
			if sc := counts[s.kind] * 100 / total; sc > best.Score {
				best = Guess{Kind: s.kind, Score: sc}
			}
		}
	}
	// The fabric tools' own detector knows their line shapes better.
	if k, sc := ibdiags.Detect(text); k != ibdiags.KindUnknown && sc > best.Score {
		best = Guess{Kind: Kind(k), Score: sc}
	}
	if best.Score < minResemblance {
		return Guess{}
	}
	return best
}

// signatures are words typical of each kind's lines, for Closest only.
var signatures = []struct {
	kind  Kind
	words []string
}{
	{KindIBStat, []string{"CA type:", "Physical state:", "Rate:", "Link layer:", "Firmware version:", "Base lid:", "Port GUID:", "Capability mask:"}},
	{KindIBStatus, []string{"default gid:", "phys state:", "base lid:", "sm lid:", "link_layer:", "Gb/sec ("}},
	{KindDevinfo, []string{"fw_ver:", "node_guid:", "port_lid:", "PORT_ACTIVE", "PORT_DOWN", "active_mtu:", "vendor_part_id:"}},
	{KindRdma, []string{"physical_state", "rx_write_requests", "out_of_buffer", "netdev "}},
	{KindKernel, []string{"mlx5_core", "kernel:", "NVRM:", "pcieport", "AER:"}},
	{KindTopo, []string{"GPU0", "NIC0", " PIX ", " PXB ", " SYS ", " NODE ", "Legend"}},
	{KindEthtool, []string{"_packets:", "_bytes:", "_pause", "_discards"}},
	{KindNCCLLog, []string{"NCCL", "NET/IB", "Channel "}},
	{KindNCCLTests, []string{"busbw", "algbw", "all_reduce", "# Avg bus bandwidth"}},
	{KindPerftest, []string{"#bytes", "BW average", "MsgRate", "Link type", "QPN"}},
	{KindNetDiscover, []string{"switchguid=", "caguid=", "Switch\t", "lid "}},
	{KindLinkInfo, []string{"==(", ")==>", "Switch: 0x", "CA: "}},
	{KindMlxlink, []string{"Status Opcode", "Recommendation  ", "Effective Physical", "Raw Physical", "Loopback Mode  ", "Auto Negotiation  ", "Enabled Link Speed", "Supported Cable Speed", "Time Since Last Clear", "Link Down Counter  ", "Link Error Recovery Counter  "}},
	{KindPortInfo, []string{"LinkState:.", "PhysLinkState:.", "LinkWidthActive:.", "LinkSpeedActive:.", "LinkWidthEnabled:.", "LinkWidthSupported:.", "LinkSpeedSupported:.", "LinkSpeedEnabled:.", "NeighborMTU:.", "MtuCap:.", "SMLid:.", "CapMask:."}},
	{KindEthModule, []string{"Laser rx power", "Receiver signal average optical power", "Laser bias current", "Transceiver type", "Vendor PN"}},
	{KindEthtoolLink, []string{"Supported link modes:", "Advertised link modes:", "Link detected:", "Supported ports:", "Supports auto-negotiation:", "Duplex:", "Auto-negotiation:"}},
	{KindPingpong, []string{"local address:  LID", "remote address: LID", " Mbit/sec", " usec/iter", "for wr_id"}},
	{KindIBDiagnet, []string{"-I- ", "-W- ", "-E- ", "finished successfully", "finished with errors"}},
	{KindLspci, []string{"ACSCtl:", "ACSCap:", "LnkSta:", "LnkCap:", "Capabilities: [", "Kernel driver in use:"}},
	{KindShowGIDs, []string{"n_gids_found=", "fe80:0000:0000:0000:", "0000:0000:0000:0000:0000:ffff:"}},
	{KindLshca, []string{"LnkStat", "LnkCapWidth", "LnkStaWidth", "HCA_Type", "PCI_addr", "IpStat"}},
	{KindNvsmiTable, []string{"NVIDIA-SMI", "Persistence-M", "Volatile Uncorr. ECC", "Memory-Usage", "GPU-Util", "Compute M."}},
	{KindOSU, []string{"# OSU ", "Latency (us)", "Bandwidth (MB/s)", "Avg Latency(us)", "Messages/s"}},
	{KindUCXPerf, []string{"bandwidth (MB/s)", "message rate (msg/s)", "# iterations", "overhead (usec)", "latency (usec)", "Final:"}},
	{KindUCXLog, []string{"UCX  ERROR", "UCX  WARN", "UCX  INFO", "UCX  DIAG", "ib_mlx5_log.c", "UCX Fatal"}},
	{KindOpenMPI, []string{"OpenFabrics", "Local host:", "Local device:", "sent help message", "btl_openib"}},
	{KindVerbsLog, []string{"got completion with error", "prov_err:", "retry counter exceeded"}},
}

// perfqueryNames maps perfquery's counter names to the sysfs names the
// node rules judge.
var perfqueryNames = map[string]string{
	"PortXmitDiscards": "port_xmit_discards", "LinkDownedCounter": "link_downed", "SymbolErrorCounter": "symbol_error",
	"PortRcvErrors": "port_rcv_errors", "LinkErrorRecoveryCounter": "link_error_recovery",
}

// perfqueryTotals judges the error totals of perfquery blocks pasted
// without a topology, one port per block, evidence on the counter's line.
func perfqueryTotals(file string, text *doc, pq *ibdiags.PerfQuery) []finding.Finding {
	snap := &snapshot.Snapshot{}
	lineOf := map[string]int{}
	for _, b := range pq.Blocks {
		if b.Set != "" {
			continue // a detail attribute: below
		}
		dev := fmt.Sprintf("lid%d", b.LID)
		d := snap.Device(dev)
		if d == nil {
			snap.Devices = append(snap.Devices, snapshot.Device{Name: dev})
			d = &snap.Devices[len(snap.Devices)-1]
		}
		port := snapshot.Port{Device: dev, Number: b.Port, HasCounters: true}
		for pname, sname := range perfqueryNames {
			if v, ok := b.Counters[pname]; ok {
				port.Counters = append(port.Counters, snapshot.Counter{Name: sname, Value: v})
				for n := b.Line + 1; n <= text.end() && n <= b.Line+80; n++ {
					if strings.HasPrefix(strings.TrimSpace(text.line(n)), pname+":") {
						lineOf[fmt.Sprintf("sys/class/infiniband/%s/ports/%d/counters/%s", dev, b.Port, sname)] = n
						break
					}
				}
			}
		}
		d.Ports = append(d.Ports, port)
	}
	snap.Sort()
	fs := noderules.Totals(snap)
	fs = perfqueryDetails(fs, file, text, pq)
	for i := range fs {
		// "lid134" is no CA name: remedies name the LID's CA as a
		// placeholder, not as "-C lid134".
		fs[i].Subject.Device = ""
		catalog.Fill(&fs[i])
		fs[i].Subject.File = file
		for j := range fs[i].Evidence {
			ev := &fs[i].Evidence[j]
			if n, ok := lineOf[ev.Source]; ok {
				ev.Source, ev.Value = fmt.Sprintf("%s:%d", file, n), strings.TrimSpace(text.line(n))
			}
		}
		fs[i].Summary = strings.Replace(fs[i].Summary, "lid", "LID ", 1)
	}
	return fs
}

// perfqueryDetails adds what perfquery's detail blocks (-E
// PortRcvErrorDetails, -D PortXmitDiscardDetails) say to the findings of
// the totals: the causes of a port's receive errors or discards, one
// finding per port and counter (merged into the total's finding where its
// PortCounters block was pasted too), evidence on each counter's line.
func perfqueryDetails(fs []finding.Finding, file string, text *doc, pq *ibdiags.PerfQuery) []finding.Finding {
	for _, b := range pq.Blocks {
		if b.Set == "" {
			continue
		}
		var ds []noderules.Detail
		for n := b.Line + 1; n <= text.end() && n <= b.Line+80; n++ {
			t := strings.TrimSpace(text.line(n))
			if strings.HasPrefix(t, "#") {
				break // the next block
			}
			name, _, ok := strings.Cut(t, ":")
			if v, isCounter := b.Counters[name]; ok && isCounter {
				ds = append(ds, noderules.Detail{Name: name, Value: v, Evidence: finding.Evidence{Source: fmt.Sprintf("%s:%d", file, n), Value: t}})
			}
		}
		dev := fmt.Sprintf("lid%d", b.LID)
		f, ok := noderules.ErrorDetails(finding.Subject{Device: dev, Port: b.Port}, fmt.Sprintf("LID %d port %d", b.LID, b.Port), b.Set, ds)
		if !ok {
			continue
		}
		if i := slices.IndexFunc(fs, func(o finding.Finding) bool {
			return o.ID == f.ID && o.Subject.Device == dev && o.Subject.Port == b.Port
		}); i >= 0 {
			// The total's finding, with its causes.
			_, causes, _ := strings.Cut(f.Summary, " by cause ")
			causes, _, _ = strings.Cut(causes, "; these are totals")
			fs[i].Summary = strings.Replace(fs[i].Summary, "; these are totals", "; by cause "+causes+"; these are totals", 1)
			fs[i].Evidence = append(fs[i].Evidence, f.Evidence...)
			continue
		}
		fs = append(fs, f)
	}
	return fs
}

// diagnoseSARecords reads saquery record dumps: records of the SA's
// database (a node's description, a port's LID) state no fault on their
// own, so they are summarised, not judged.
func diagnoseSARecords(seg *Segment, file, text string) error {
	recs, err := ibdiags.ParseSARecords(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	types := map[string]int{}
	var order []string
	for _, r := range recs {
		if types[r.Type] == 0 {
			order = append(order, r.Type)
		}
		types[r.Type]++
	}
	var parts []string
	for _, t := range order {
		parts = append(parts, plural(types[t], t, t+"s"))
	}
	seg.Summary = strings.Join(parts, ", ")
	if len(recs) == 1 {
		if d := recs[0].Fields["NodeDescription"]; d != "" {
			seg.Summary += fmt.Sprintf(" (lid %s, %q)", recs[0].Fields["lid"], d)
		}
	}
	seg.Skipped = append(seg.Skipped, "saquery records describe the subnet administrator's view (names, LIDs, GUIDs): read, not judged; port state and errors need ibstat, perfquery or ibdiagnet")
	return nil
}

// ucxNetDevices is the first UCX_NET_DEVICES a line of the paste sets,
// "" when none does.
func ucxNetDevices(d *doc) string {
	v, _ := ucxNetDevicesAt(d)
	return v
}

// ucxPerfCommandTest is the test the paste's ucx_perftest command line
// names (-t), "" when none does.
func ucxPerfCommandTest(d *doc) string {
	for _, p := range d.parts {
		for _, l := range p.ls {
			if v := ucxperf.CommandTest(strings.TrimSpace(l)); v != "" {
				return v
			}
		}
	}
	return ""
}

// ucxNetDevicesAt is ucxNetDevices with the number of its line.
func ucxNetDevicesAt(d *doc) (string, int) {
	for _, p := range d.parts {
		for i, l := range p.ls {
			if v := ucxlog.NetDevices(l); v != "" {
				return v, p.start + i
			}
		}
	}
	return "", 0
}

// diagnoseUCX judges a UCX log: its completion errors (the mlx5 syndrome
// decoded) or, without one, its first error.
func diagnoseUCX(seg *Segment, file, text string, d *doc) error {
	lg, err := ucxlog.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	if lg.NetDevices == "" {
		// The paste's command line, above the log: the device UCX was
		// told to use.
		lg.NetDevices = ucxNetDevices(d)
	}
	var procs []string
	errs := 0
	for _, r := range lg.Records {
		if p := r.Proc(); p != "" && !slices.Contains(procs, p) {
			procs = append(procs, p)
		}
		if r.Serious() {
			errs++
		}
	}
	seg.Summary = fmt.Sprintf("%s from %s, %s", plural(len(lg.Records), "UCX line", "UCX lines"), plural(max(1, len(procs)), "process", "processes"), plural(errs, "error line", "error lines"))
	if len(lg.Completions) > 0 {
		seg.Summary += ", " + plural(len(lg.Completions), "completion error", "completion errors")
	}
	seg.Findings = append(seg.Findings, ucxrules.Check(lg)...)
	return nil
}

// diagnoseMADErrors judges infiniband-diags messages that the SM/SA or
// the MAD agent could not be reached; the three lines above the segment
// are read too, for the command (lshca's "CMD: saquery SMIR -C mlx5_0 -P
// 1 0") that names the first message's port.
func diagnoseMADErrors(seg *Segment, file string, d *doc, sp Span) error {
	from := max(1, sp.Start-3)
	var b strings.Builder
	for n := from; n <= sp.End; n++ {
		b.WriteString(d.line(n))
		b.WriteByte('\n')
	}
	errs, err := ibdiags.ParseMADErrors(strings.NewReader(b.String()), file, from)
	if err != nil {
		return err
	}
	seg.Summary = plural(len(errs), "infiniband-diags error message", "infiniband-diags error messages")
	fs, note := fabric.CheckMADErrors(errs, file)
	if note != "" {
		seg.Empty = note
	}
	seg.Findings = append(seg.Findings, fs...)
	return nil
}

// diagnoseVerbsLog judges the work-completion errors of application logs.
func diagnoseVerbsLog(seg *Segment, file, text string, d *doc, sp Span) error {
	lg, err := wclog.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	var parts []string
	if len(lg.Errors) > 0 {
		parts = append(parts, plural(len(lg.Errors), "work-completion error line", "work-completion error lines"))
	}
	if len(lg.Async) > 0 {
		parts = append(parts, plural(len(lg.Async), "async event line", "async event lines"))
	}
	seg.Findings = append(seg.Findings, verbsrules.Check(lg)...)
	if len(lg.AppFails) > 0 {
		conn := 0
		for _, f := range lg.AppFails {
			if f.Kind == wclog.AppTgtConnected {
				conn++
			}
		}
		if n := len(lg.AppFails) - conn; n > 0 {
			parts = append(parts, plural(n, "RDMA connection or transfer failure line", "RDMA connection or transfer failure lines"))
		}
		if conn > 0 {
			parts = append(parts, plural(conn, "SPDK target line of an accepted RDMA connection", "SPDK target lines of an accepted RDMA connection"))
		}
		seg.Findings = append(seg.Findings, verbsrules.CheckAppFails(file, lg.AppFails)...)
	}
	if len(lg.MPIFabrics) > 0 {
		fs, sum := verbsrules.CheckMPIFabrics(file, lg.MPIFabrics)
		if sum == "" {
			sum = plural(len(lg.MPIFabrics), "MPI fabric line", "MPI fabric lines")
		}
		parts = append(parts, sum)
		seg.Findings = append(seg.Findings, fs...)
	}
	if len(lg.Getinfos) > 0 {
		parts = append(parts, plural(len(lg.Getinfos), "libfabric getinfo failure line", "libfabric getinfo failure lines"))
		seg.Findings = append(seg.Findings, verbsrules.CheckGetinfos(file, lg.Getinfos)...)
	}
	if len(lg.Providers) > 0 {
		parts = append(parts, plural(len(lg.Providers), "libibverbs provider warning", "libibverbs provider warnings"))
		seg.Findings = append(seg.Findings, logProviders(file, lg.Providers, d, sp)...)
	}
	if len(lg.Transports) > 0 {
		parts = append(parts, plural(len(lg.Transports), "RDMA transport line", "RDMA transport lines"))
		// libibverbs' own warning, when the log has one, is the cause the
		// transport's failure follows from: it alone is reported.
		if len(lg.Providers) == 0 {
			fs := verbsrules.CheckTransports(file, lg.Transports)
			diedAfterTransport(fs, file, d, lg.Transports[len(lg.Transports)-1].Line, sp.End)
			seg.Findings = append(seg.Findings, fs...)
		}
	}
	if len(lg.PortAddrs) > 0 {
		parts = append(parts, plural(len(lg.PortAddrs), "3FS port address line", "3FS port address lines"))
		seg.Findings = append(seg.Findings, verbsrules.CheckPortAddrs(file, lg.PortAddrs)...)
	}
	if len(lg.QPSetups) > 0 {
		parts = append(parts, plural(len(lg.QPSetups), "queue pair setup line", "queue pair setup lines"))
		qfs := verbsrules.CheckQPSetupsGIDs(file, lg.QPSetups, lg.GIDs)
		wrongGIDIndex(file, d, qfs)
		seg.Findings = append(seg.Findings, qfs...)
	}
	if len(lg.GIDs) > 0 {
		parts = append(parts, plural(len(lg.GIDs), "RDMA device GID line", "RDMA device GID lines"))
		seg.Findings = append(seg.Findings, verbsrules.CheckGIDs(file, lg.GIDs, len(lg.QPSetups) > 0)...)
	}
	if len(lg.Throughputs) > 0 {
		lo, hi := lg.Throughputs[0].MBps, lg.Throughputs[0].MBps
		for _, tp := range lg.Throughputs {
			lo, hi = min(lo, tp.MBps), max(hi, tp.MBps)
		}
		// A rate the application reports, with nothing to hold it
		// against: the link's speed is not in the paste.
		parts = append(parts, fmt.Sprintf("%s (%.2f-%.2f MB/s per interval; a rate with no failure, not judged against the link)",
			plural(len(lg.Throughputs), "Mooncake transfer-engine throughput line", "Mooncake transfer-engine throughput lines"), lo, hi))
	}
	seg.Summary = strings.Join(parts, ", ")
	return nil
}

// noDeviceWithin bounds how far after libibverbs' warnings a program's
// line that it found no RDMA device is looked for.
const noDeviceWithin = 40

// logProviders judges libibverbs' provider warnings in a program's own
// log: critical when a line after them says the program then found no
// RDMA device (SPDK's "rdma_create_event_channel() failed, No such
// device") or not the device a warning names (ibv_devinfo's "IB device
// 'rxe0' wasn't found" after the provider of rxe0 was refused), a
// warning otherwise.
func logProviders(file string, ps []wclog.Provider, d *doc, sp Span) []finding.Finding {
	var ws []noderules.VerbsWarn
	for _, p := range ps {
		ws = append(ws, noderules.VerbsWarn{Kind: string(p.Kind), Name: p.Name, Line: p.Line, Text: p.Text})
	}
	var noDev *noderules.VerbsWarn
	for n := ps[0].Line + 1; n <= min(d.end(), sp.End+noDeviceWithin); n++ {
		l := d.line(n)
		if name, ok := wclog.DeviceNotFound(l); ok && slices.ContainsFunc(ps, func(p wclog.Provider) bool { return p.Name == name }) {
			noDev = &noderules.VerbsWarn{Line: n, Text: strings.TrimRight(l, " \t\r")}
			break
		}
		if wclog.NoDevice(l) {
			noDev = &noderules.VerbsWarn{Line: n, Text: strings.TrimRight(l, " \t\r")}
			break
		}
	}
	return noderules.CheckLogVerbsProviders(file, ws, noDev)
}

// diagnoseOpenMPI judges Open MPI's help messages about the network.
func diagnoseOpenMPI(seg *Segment, file, text string) error {
	lg, err := ompihelp.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Summary = fmt.Sprintf("Open MPI: %s", plural(len(lg.Messages), "help message", "help messages"))
	if len(lg.Aggregates) > 0 {
		seg.Summary += ", " + plural(len(lg.Aggregates), "aggregate line", "aggregate lines")
	}
	seg.Findings = append(seg.Findings, mpirules.Check(lg)...)
	return nil
}

// diagnoseShowGIDs judges show_gids output: the GID table of each port,
// a RoCE port without a (routable) RoCE v2 GID.
func diagnoseShowGIDs(seg *Segment, file string, d *doc, sp Span, ctx *context) error {
	text := segmentOnly(d, sp)
	res, err := hcatext.ParseShowGIDs(strings.NewReader(text), file)
	if n, at, l, ok := hcatext.ShowGIDsFound(text); errors.Is(err, hcatext.ErrNoData) && ok && n == 0 {
		// The table is empty: no GID at all where it ran.
		ctx.rdma = true
		seg.Summary = "no GID (n_gids_found=0)"
		f := host.NoGIDs(finding.Evidence{Source: fmt.Sprintf("%s:%d", file, sp.Start-1+at), Value: l})
		f.Subject.File = file
		seg.Findings = append(seg.Findings, f)
		return nil
	}
	if err != nil {
		return shiftErr(err, sp.Start-1)
	}
	res.Shift(sp.Start - 1)
	ctx.rdma = true
	gids, v2 := 0, 0
	for _, d := range res.Snap.Devices {
		for _, p := range d.Ports {
			gids += len(p.GIDs)
			for _, g := range p.GIDs {
				if g.Type == ib.GIDTypeRoCEv2 {
					v2++
				}
			}
		}
	}
	seg.Summary = fmt.Sprintf("%s of %s (%d RoCE v2)", plural(gids, "GID", "GIDs"), plural(res.Ports(), "port", "ports"), v2)
	seg.Skipped = append(seg.Skipped, summariseSkips(file, res.Skipped)...)
	seg.Skipped = append(seg.Skipped, host.NotRDMAPorts(res.Snap)...)
	var cut *snapshot.Port
	if u := res.Unclosed; u != nil {
		cut = res.Snap.Port(u.Device, u.Port)
		if note, ok := host.CutGIDPort(cut); ok {
			seg.Skipped = append(seg.Skipped, note)
		}
	}
	fs := host.CheckPastedGIDs(res.Snap, cut)
	fs = append(fs, pastedGIDIndex(file, d, res)...)
	for i := range fs {
		for j := range fs[i].Evidence {
			ev := &fs[i].Evidence[j]
			if l, ok := res.Locate(ev.Source); ok {
				ev.Source = fmt.Sprintf("%s:%d", file, l.N)
			}
		}
	}
	seg.Findings = append(seg.Findings, fs...)
	return nil
}

// pasteEnv names the environment read from a paste's own lines, until
// its evidence is pointed at them.
const pasteEnv = "(the paste's environment lines)"

// pastedGIDIndex judges NCCL_IB_GID_INDEX set on lines of the paste (an
// export above the table, a launcher's -x, NCCL's "set by environment")
// against the pasted GID table res; NCCL_IB_HCA set there restricts the
// ports as NCCL would. A paste that sets the index to different values
// (two nodes, or prose comparing them) is not judged.
func pastedGIDIndex(file string, d *doc, res *hcatext.Result) []finding.Finding {
	type setting struct {
		n int
		v string
	}
	find := func(name string) (setting, []finding.Evidence, bool) {
		var first setting
		var ev []finding.Evidence
		for n := 1; n <= d.end(); n++ {
			l := d.line(n)
			v, ok := ncclenv.InlineSetting(l, name)
			if !ok {
				continue
			}
			if first.n == 0 {
				first = setting{n, v}
			} else if v != first.v {
				return setting{}, nil, false
			}
			if len(ev) < 2 {
				ev = append(ev, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, n), Value: strings.TrimSpace(l)})
			}
		}
		return first, ev, first.n > 0
	}
	gid, gidEv, ok := find("NCCL_IB_GID_INDEX")
	if !ok {
		return nil
	}
	kv := []string{"NCCL_IB_GID_INDEX=" + gid.v}
	if hca, _, ok := find("NCCL_IB_HCA"); ok {
		kv = append(kv, "NCCL_IB_HCA="+hca.v)
	}
	fs := host.CheckPastedGIDIndex(res.Snap, ncclenv.FromList(pasteEnv, kv), res.Unclosed != nil)
	for i := range fs {
		fs[i].Subject.File = file
		var ev []finding.Evidence
		for _, e := range fs[i].Evidence {
			if e.Source == pasteEnv {
				ev = append(ev, gidEv...)
				continue
			}
			ev = append(ev, e)
		}
		fs[i].Evidence = ev
	}
	return fs
}

// diagnoseIBDev2Netdev reads ibdev2netdev lines (other lines of the
// segment, a command's output pasted below it, are listed as skipped) and
// judges them: internal/rules/node.CheckIBDev2Netdev says what a netdev's
// Up/Down tells of its RDMA port.
func diagnoseIBDev2Netdev(seg *Segment, file string, d *doc, sp Span) error {
	m := &ibdev2netdev.Map{}
	var other []int
	for n := sp.Start; n <= sp.End; n++ {
		l := d.line(n)
		if strings.TrimSpace(l) == "" || isPrompt(l) || isFence(l) {
			continue
		}
		e, ok := ibdev2netdev.Line(l)
		if !ok {
			other = append(other, n)
			continue
		}
		e.Line = n
		m.Entries = append(m.Entries, e)
	}
	if len(m.Entries) == 0 {
		return &parse.Error{Source: file, Line: sp.Start, Err: ibdev2netdev.ErrNoData}
	}
	if len(other) > 0 {
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("%s: not read as ibdev2netdev (%s, the first: %q)", lineList(file, other[:1]), plural(len(other), "line", "lines"), firstLine([]string{d.line(other[0])})))
	}
	fs, notes := noderules.CheckIBDev2Netdev(m, file)
	seg.Findings = append(seg.Findings, fs...)
	seg.Skipped = append(seg.Skipped, notes...)
	ipoib := 0
	for _, e := range m.Entries {
		if ibdev2netdev.IPoIB(e.NetDev) {
			ipoib++
		}
	}
	seg.Summary = plural(len(m.Entries), "RDMA port", "RDMA ports")
	if ipoib > 0 {
		// An IPoIB netdev Up is an ACTIVE port; Down is the port or an
		// interface never brought up (CheckIBDev2Netdev says which tool
		// tells).
		seg.Summary += fmt.Sprintf(" (%d on IPoIB netdevs)", ipoib)
	}
	return nil
}

// diagnoseNvsmiErrors judges nvidia-smi's "Unable to determine the
// device handle" lines: a GPU NVML can no longer open.
func diagnoseNvsmiErrors(seg *Segment, file, text string) error {
	errs, err := nvsmi.ParseHandleErrors(strings.NewReader(text), file, 1) // text keeps the file's line numbers
	if err != nil {
		return err
	}
	seg.Summary = plural(len(errs), "nvidia-smi device handle error", "nvidia-smi device handle errors")
	fs, notes := host.CheckPastedHandleErrors(errs, file)
	seg.Findings = append(seg.Findings, fs...)
	seg.Skipped = append(seg.Skipped, notes...)
	return nil
}

// diagnoseNvsmiQuery judges the GPU memory error sections of a pasted
// nvidia-smi -q (row remapping, page retirement).
func diagnoseNvsmiQuery(seg *Segment, file, text string) error {
	q, err := nvsmi.ParseQuery(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Findings = append(seg.Findings, host.CheckPastedGPUMemory(q, file)...)
	seg.Summary = plural(len(q.GPUs), "GPU", "GPUs") + ": memory error state (row remapping, page retirement)"
	var none []string
	fabric := 0
	for _, g := range q.GPUs {
		if g.Fabric != nil {
			fabric++
		}
		if g.Rows == nil && g.Pages == nil && g.Fabric == nil {
			none = append(none, fmt.Sprintf("%s (%s)", g.PCI, g.Name))
		}
	}
	if len(none) == len(q.GPUs) {
		seg.Summary = plural(len(q.GPUs), "GPU", "GPUs") + " read, no memory error section (row remapping, page retirement) printed: nothing read shows a fault"
	}
	if len(none) > 0 {
		seg.Skipped = append(seg.Skipped, fmt.Sprintf("no Remapped Rows or Retired Pages section (or only N/A) for %s: an older driver or a consumer GPU prints none", strings.Join(none, ", ")))
	}
	if fabric > 0 {
		seg.Summary = plural(len(q.GPUs), "GPU", "GPUs") + ": memory error state and NVLink fabric registration"
	}
	seg.Skipped = append(seg.Skipped, "of nvidia-smi -q only the Remapped Rows, Retired Pages and Fabric sections are judged")
	return nil
}

// diagnoseNvsmiTable judges the plain nvidia-smi table: ERR! cells and
// volatile uncorrectable ECC counts.
func diagnoseNvsmiTable(seg *Segment, file, text string) error {
	t, err := nvsmi.ParseTable(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	if len(t.GPUs) == 0 {
		seg.Summary = "nvidia-smi failed: " + t.Failure
		seg.Findings = append(seg.Findings, host.CheckPastedTable(t, file)...)
		return nil
	}
	seg.Summary = "nvidia-smi, " + plural(len(t.GPUs), "GPU", "GPUs")
	var ver []string
	if t.Driver != "" {
		ver = append(ver, "driver "+t.Driver)
	}
	if t.CUDA != "" {
		ver = append(ver, "CUDA "+t.CUDA)
	}
	if len(ver) > 0 {
		seg.Summary += " (" + strings.Join(ver, ", ") + ")"
	}
	var names []string
	for _, g := range t.GPUs {
		if g.Name != "" && !slices.Contains(names, g.Name) {
			names = append(names, g.Name)
		}
	}
	if len(names) > 0 {
		seg.Summary += ": " + strings.Join(names, ", ")
	}
	if t.MIGDevices > 0 {
		seg.Summary += ", " + plural(t.MIGDevices, "MIG device", "MIG devices")
	}
	switch {
	case t.Processes > 0:
		seg.Summary += ", " + plural(t.Processes, "process", "processes")
	case t.NoProcesses:
		seg.Summary += ", no running processes"
	}
	seg.Findings = append(seg.Findings, host.CheckPastedTable(t, file)...)
	return nil
}

// diagnoseDshbak compares the dshbak -c blocks of each pdsh command.
func diagnoseDshbak(seg *Segment, file, text string) error {
	blocks, err := dshbak.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	fs, agree, ns := host.CheckDshbak(blocks, file)
	seg.Summary = fmt.Sprintf("pdsh | dshbak -c: %s", plural(len(blocks), "block", "blocks"))
	if len(agree) > 0 {
		seg.Summary += "; " + strings.Join(agree, "; ")
	}
	seg.Findings = append(seg.Findings, fs...)
	notes(seg, ns)
	return nil
}

// diagnoseIBVLoad judges ibv_generate_infiniband_test_load's results: a
// failed data compare is verbs.data_mismatch; the throughput is
// summarised (the program runs between ports of one card, often in
// loopback, so its rates are the card's, not a link's to judge).
func diagnoseIBVLoad(seg *Segment, file, text string) {
	var cs []ibvload.Compare
	rates := 0
	lo, hi := 0.0, 0.0
	for i, l := range strings.Split(text, "\n") {
		if c, ok := ibvload.ParseCompare(l); ok {
			c.Line = i + 1
			cs = append(cs, c)
			continue
		}
		if r, ok := ibvload.ParseRate(l); ok {
			if rates == 0 || r.MBs < lo {
				lo = r.MBs
			}
			hi = max(hi, r.MBs)
			rates++
		}
	}
	pass, fs := verbsrules.CheckCompares(file, cs)
	seg.Findings = append(seg.Findings, fs...)
	seg.Summary = fmt.Sprintf("ibv_generate_infiniband_test_load: %d of %s PASS", pass, plural(pass+len(seg.Findings), "data compare", "data compares"))
	if rates > 0 {
		seg.Summary += fmt.Sprintf("; %s at %.1f-%.1f Mbytes/sec", plural(rates, "throughput line", "throughput lines"), lo, hi)
		seg.Skipped = append(seg.Skipped, "throughput not judged: the program drives ports of one HCA (often looped back), so the card's PCIe and both directions at once bound it, not one link")
	}
	if pass+len(seg.Findings) == 0 {
		seg.Empty = "no data compare line: throughput alone is not judged"
	}
}

// diagnoseDeepEP judges DeepEP's test results.
func diagnoseDeepEP(seg *Segment, file, text string) {
	var tun []deepep.Tuning
	var ll []deepep.LowLatency
	for i, l := range strings.Split(text, "\n") {
		if t, ok := deepep.ParseTuning(l); ok {
			t.Line = i + 1
			tun = append(tun, t)
			continue
		}
		if rs, ok := deepep.ParseLowLatency(l); ok {
			for _, r := range rs {
				r.Line = i + 1
				ll = append(ll, r)
			}
		}
	}
	if len(tun)+len(ll) == 0 {
		seg.Empty = "no DeepEP result line"
		return
	}
	var parts []string
	bestRDMA, bestNVL := 0.0, 0.0
	for _, t := range tun {
		bestRDMA, bestNVL = max(bestRDMA, t.RDMAGBs), max(bestNVL, t.NVLGBs)
	}
	if len(tun) > 0 {
		parts = append(parts, fmt.Sprintf("test_internode: %s, best %.2f GB/s RDMA, %.2f GB/s NVL", plural(len(tun), "tuning line", "tuning lines"), bestRDMA, bestNVL))
	}
	if len(ll) > 0 {
		lo, hi := ll[0].GBs, ll[0].GBs
		for _, r := range ll {
			lo, hi = min(lo, r.GBs), max(hi, r.GBs)
		}
		parts = append(parts, fmt.Sprintf("test_low_latency: %s, %.2f-%.2f GB/s", plural(len(ll), "figure", "figures"), lo, hi))
	}
	seg.Summary = "DeepEP " + strings.Join(parts, "; ")
	fs, ns := deeprules.Check(tun, ll, file)
	seg.Findings = append(seg.Findings, fs...)
	notes(seg, ns)
}

// diagnoseMPICheck judges an MPI test's wrong-result lines:
// mpi.wrong_results, critical, with the first few lines as evidence.
func diagnoseMPICheck(seg *Segment, file, text string) {
	var res []mpicheck.Result
	for i, l := range strings.Split(text, "\n") {
		if m, ok := mpicheck.WrongResult(l); ok {
			res = append(res, mpicheck.Result{Line: i + 1, Text: m})
		}
	}
	if len(res) == 0 {
		seg.Empty = "no wrong-result line"
		return
	}
	seg.Summary = fmt.Sprintf("MPI test: %s reporting wrong results, first %q", plural(len(res), "line", "lines"), res[0].Text)
	seg.Findings = append(seg.Findings, mpirules.CheckWrongResults(file, res)...)
}

// diagnoseOSU judges OSU Micro-Benchmarks tables: how far each ran, its
// small-message latency or large-message bandwidth.
func diagnoseOSU(seg *Segment, file, text string) error {
	tables, err := osu.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	var parts []string
	rows := 0
	for _, t := range tables {
		name := t.Title
		if name == "" {
			name = "OSU table (" + strings.Join(t.Columns, ", ") + ")"
		}
		rows += len(t.Rows)
		if len(t.Rows) == 0 {
			parts = append(parts, name+": no rows")
			continue
		}
		first, last := t.Rows[0], t.Rows[len(t.Rows)-1]
		p := fmt.Sprintf("%s: %d sizes, %d B to %d B", name, len(t.Rows), first.Size, last.Size)
		switch t.Metric() {
		case "latency":
			p += fmt.Sprintf(", %.2f us at %d B, %.2f us at %d B", first.Values[0], first.Size, last.Values[0], last.Size)
		default:
			best := first
			for _, r := range t.Rows {
				if r.Values[0] > best.Values[0] {
					best = r
				}
			}
			p += fmt.Sprintf(", peak %.2f %s at %d B", best.Values[0], t.Columns[0], best.Size)
		}
		if t.Stop != "" {
			p += fmt.Sprintf(", then %q", t.Stop)
		}
		parts = append(parts, p)
	}
	seg.Summary = strings.Join(parts, "; ")
	if rows == 0 {
		seg.Empty = "no result row under the column header"
	}
	fs, ns := osurules.Check(tables, file)
	seg.Findings = append(seg.Findings, fs...)
	notes(seg, ns)
	return nil
}

// diagnoseUCXPerf judges ucx_perftest result tables: the Final row of
// each, bandwidth tests against the line rate.
func diagnoseUCXPerf(seg *Segment, file, text string, opts Options, ctx *context, d *doc) error {
	tests, err := ucxperf.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	// The device the paste's command line tells UCX to use: an IPoIB
	// interface alone leaves UCX only its TCP transport.
	if v, line := ucxNetDevicesAt(d); v != "" {
		seg.Findings = append(seg.Findings, ucxrules.CheckNetDevices(v, line, tests, file)...)
	}
	var parts []string
	finals := 0
	for _, t := range tests {
		if t.Name == "" && t.CSV {
			// The CSV rows' command line, in a part of the paste above them.
			t.Name = ucxPerfCommandTest(d)
		}
		name := t.Name
		if name == "" {
			name = "test"
		}
		if t.Final == nil {
			parts = append(parts, name+" without a Final row")
			continue
		}
		finals++
		if t.CSV {
			name += " [" + t.Label + "]"
			parts = append(parts, fmt.Sprintf("%s %.2f MB/s, %.0f msg/s, %.3f usec average", name, t.Final.BWOverall, t.Final.RateAll, t.Final.LatAvg))
			continue
		}
		if ucxrules.IsBandwidthTest(t.Name) {
			parts = append(parts, fmt.Sprintf("%s %.2f MB/s overall (%.1f Gb/s), %d iterations", name, t.Final.BWOverall, t.Final.BWOverall*8/1000, t.Final.Iterations))
		} else {
			parts = append(parts, fmt.Sprintf("%s %.3f usec overall latency, %.2f MB/s, %d iterations", name, t.Final.LatOverall, t.Final.BWOverall, t.Final.Iterations))
		}
	}
	seg.Summary = "ucx_perftest: " + strings.Join(parts, "; ")
	if finals == 0 {
		seg.Empty = "no Final row (the run was cut or failed before it ended)"
	}
	fs, ns := ucxrules.CheckPerf(tests, lineRate(seg, opts, ctx), file)
	seg.Findings = append(seg.Findings, fs...)
	notes(seg, ns)
	return nil
}

// diagnoseAMDSMI judges the NIC ports of an amd-smi static output.
func diagnoseAMDSMI(seg *Segment, file, text string) error {
	out, err := amdsmi.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	seg.Summary = fmt.Sprintf("amd-smi: %s, %s", plural(len(out.Ports), "NIC port", "NIC ports"), plural(len(out.RDMA), "RDMA device port", "RDMA device ports"))
	seg.Findings = append(seg.Findings, noderules.CheckAMDSMINIC(out, file)...)
	return nil
}

// diagnoseFiInfo reads fi_info: the endpoints it lists show the provider
// found its devices (fi_info -p efa listing efa_0-rdm: EFA works to the
// libfabric level); it states no fault.
func diagnoseFiInfo(seg *Segment, file, text string) error {
	in, err := fiinfo.Parse(strings.NewReader(text), file)
	if err != nil {
		return err
	}
	var provs []string
	for _, e := range in.Entries {
		if p := e.Provider + " " + e.Domain + " " + e.Type; !slices.Contains(provs, p) && len(provs) < 6 {
			provs = append(provs, p)
		}
	}
	seg.Summary = fmt.Sprintf("fi_info, %s (%s)", plural(len(in.Entries), "endpoint", "endpoints"), strings.Join(provs, ", "))
	return nil
}

// diedAfterTransport makes a refused-device rdma.transport_unavailable
// critical when a line after it, in the same output, says the program
// then died ("Fatal Python error: Segmentation fault", "core dumped"):
// the job is gone, whatever else still worked.
func diedAfterTransport(fs []finding.Finding, file string, d *doc, from, to int) {
	for n := from + 1; n <= to; n++ {
		l := strings.TrimSpace(d.line(n))
		if !stopLine(l) {
			continue
		}
		for i := range fs {
			if fs[i].ID == "rdma.transport_unavailable" && fs[i].Severity == finding.Warning {
				fs[i].Severity = finding.Critical
				fs[i].Summary += fmt.Sprintf("; then the program died (%q)", cut(l, 120))
				fs[i].Evidence = append(fs[i].Evidence, finding.Evidence{Source: fmt.Sprintf("%s:%d", file, n), Value: l})
			}
		}
		return
	}
}
