package nccltests

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Collective is the operation an nccl-tests binary benchmarks, named like
// the binary without "_perf" (all_reduce_perf → "all_reduce").
type Collective string

// Collectives of nccl-tests.
const (
	AllReduce     Collective = "all_reduce"
	AllGather     Collective = "all_gather"
	ReduceScatter Collective = "reduce_scatter"
	AllToAll      Collective = "alltoall"
	Broadcast     Collective = "broadcast"
	Reduce        Collective = "reduce"
	SendRecv      Collective = "sendrecv"
	Gather        Collective = "gather"
	Scatter       Collective = "scatter"
	HyperCube     Collective = "hypercube"
)

var collectives = []Collective{AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, Reduce, SendRecv, Gather, Scatter, HyperCube}

// ParseCollective accepts a collective or program name ("all_reduce",
// "all_reduce_perf", "./build/all_reduce_perf_mpi", "allreduce").
func ParseCollective(s string) (Collective, error) {
	name := strings.ToLower(path.Base(strings.TrimSpace(s)))
	name = strings.TrimSuffix(name, "_mpi")
	name = strings.TrimSuffix(name, "_perf")
	for _, c := range collectives {
		if name == string(c) || name == strings.ReplaceAll(string(c), "_", "") {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown collective %q (want one of all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv, gather, scatter, hypercube)", s)
}

// CollectiveInName finds a collective's program name inside a file name
// ("logs/all_gather_perf.2nodes.txt" → all_gather); "" when none.
func CollectiveInName(name string) Collective {
	base := strings.ToLower(path.Base(name))
	// Longest names first so "reduce_scatter" wins over "reduce".
	for _, c := range []Collective{ReduceScatter, AllReduce, AllGather, AllToAll, Broadcast, SendRecv, HyperCube, Gather, Scatter, Reduce} {
		if strings.Contains(base, string(c)+"_perf") {
			return c
		}
	}
	return ""
}

// BusFactor is busbw/algbw for n ranks as nccl-tests computes it
// (NVIDIA/nccl-tests doc/PERFORMANCE.md and src/*.cu): all_reduce 2(n-1)/n;
// all_gather, reduce_scatter, alltoall, gather, scatter, hypercube (n-1)/n;
// broadcast, reduce, sendrecv 1. ok is false for an unknown collective or
// n < 1.
func (c Collective) BusFactor(n int) (factor float64, ok bool) {
	if n < 1 {
		return 0, false
	}
	fn := float64(n)
	switch c {
	case AllReduce:
		return 2 * (fn - 1) / fn, true
	case AllGather, ReduceScatter, AllToAll, Gather, Scatter, HyperCube:
		return (fn - 1) / fn, true
	case Broadcast, Reduce, SendRecv:
		return 1, true
	}
	return 0, false
}

// Output is one parsed nccl-tests output file: one or more runs (a
// file may hold several binaries' output, or the copies of a non-MPI binary
// started by mpirun).
type Output struct {
	Source  string `json:"source"`
	Runs    []*Run `json:"runs"`
	Skipped []Note `json:"skipped,omitempty"`
	// LogLines counts interleaved NCCL INFO/WARN lines that were passed over.
	LogLines int `json:"log_lines,omitempty"`
}

// Run is one benchmark run: its header, ranks, rows and footer.
type Run struct {
	// Line is the first line of the run (its "# nThread" header, or its
	// first row when the header is missing).
	Line int `json:"line"`
	// Program is the binary from "# Collective test starting: NAME" (newer
	// nccl-tests), "" when the output does not say.
	Program string `json:"program,omitempty"`
	// Version is "2.18.2" from "# nccl-tests version 2.18.2 nccl-headers=…".
	Version     string `json:"version,omitempty"`
	NCCLLibrary int    `json:"nccl_library,omitempty"`
	NThread     int    `json:"nthread,omitempty"`
	NGpus       int    `json:"ngpus,omitempty"`
	MinBytes    int64  `json:"min_bytes,omitempty"`
	MaxBytes    int64  `json:"max_bytes,omitempty"`
	// Headers counts "# nThread" headers that belong to this run: more
	// than one, with rank lists that each restart at rank 0, means every
	// process of a non-MPI binary ran alone.
	Headers int        `json:"headers"`
	Ranks   []RankInfo `json:"ranks,omitempty"`
	// RanksTruncated is set when nccl-tests cut a rank list ("..."), or
	// when the listed ranks have holes (a poster kept a few of them).
	RanksTruncated bool `json:"ranks_truncated,omitempty"`
	// PerIter is set when rows carry per-iteration columns (i_min …).
	PerIter bool  `json:"per_iter,omitempty"`
	Rows    []Row `json:"rows"`
	// OutOfBounds is the count of "# Out of bounds values : N OK|FAILED";
	// nil when the footer is missing (truncated output).
	OutOfBounds     *int64 `json:"out_of_bounds,omitempty"`
	OutOfBoundsLine int    `json:"out_of_bounds_line,omitempty"`
	// AvgBusBW is "# Avg bus bandwidth : X" in GB/s; nil when missing.
	AvgBusBW     *float64 `json:"avg_busbw,omitempty"`
	AvgBusBWLine int      `json:"avg_busbw_line,omitempty"`
	Footers      int      `json:"footers"`
	// Errors are "# error: …" lines of newer nccl-tests.
	Errors []string `json:"errors,omitempty"`
	// Launch is the command line the paste shows before the run
	// (mpirun, srun or the test binary itself); nil when none.
	Launch *Launch `json:"launch,omitempty"`
}

// Launch is a command line that started a run, as pasted above its output
// ("root@h:/# mpirun -np 2 -x NCCL_IB_DISABLE=1 ./build/all_reduce_perf
// -b 8 -e 1G"), a line ending in "\" continued on the next.
type Launch struct {
	Line int `json:"line"`
	// Program is the nccl-tests binary it names ("all_reduce_perf"), ""
	// when none.
	Program string `json:"program,omitempty"`
	// Env are the NCCL_* variables it sets: Open MPI's "-x NAME=VALUE",
	// MPICH's and Intel MPI's "-genv NAME VALUE", srun's
	// "--export=ALL,NAME=VALUE" and "NAME=VALUE" words in front of a
	// command. "-x NAME" alone exports the caller's value, which the
	// line does not show: it is left out.
	Env map[string]string `json:"env,omitempty"`
}

// RankInfo is one "#  Rank  0 Group  0 Pid 1234 on host device  0
// [0000:11:00] NVIDIA H100 80GB HBM3" line (Group is absent in old builds).
type RankInfo struct {
	Rank   int    `json:"rank"`
	Group  int    `json:"group"`
	Pid    int    `json:"pid"`
	Host   string `json:"host"`
	Device int    `json:"device"`
	BusID  string `json:"bus_id"`
	GPU    string `json:"gpu"`
	Line   int    `json:"line"`
}

// Row is one message size: "size count type redop root" then the
// out-of-place and in-place measures. OutOfPlace is nil when the test
// printed only in-place results.
type Row struct {
	Line       int      `json:"line"`
	Size       int64    `json:"size"`
	Count      int64    `json:"count"`
	Type       string   `json:"type"`
	Redop      string   `json:"redop,omitempty"`
	Root       int      `json:"root"`
	OutOfPlace *Measure `json:"out_of_place,omitempty"`
	InPlace    *Measure `json:"in_place,omitempty"`
}

// Measure is one half of a row: time in µs, algbw and busbw in GB/s, and
// the count of wrong elements (WrongNA when the test does not check, "N/A").
type Measure struct {
	TimeUS  float64 `json:"time_us"`
	AlgBW   float64 `json:"algbw"`
	BusBW   float64 `json:"busbw"`
	Wrong   int64   `json:"wrong"`
	WrongNA bool    `json:"wrong_na,omitempty"`
	// Old nccl-tests (before the #wrong count) printed an "error"
	// column instead: the largest deviation from the expected result,
	// "%5.0le" ("2e-07"), with a "*" after it in the releases that
	// flagged one over the type's tolerance. Delta says the column is
	// that one, MaxDelta its value, DeltaOver the "*".
	Delta     bool    `json:"delta,omitempty"`
	MaxDelta  float64 `json:"max_delta,omitempty"`
	DeltaOver bool    `json:"delta_over,omitempty"`
}

// NRanks is the number of ranks in the communicator: the rank lines of the
// header; for copies of a non-MPI binary (Independent) the ranks of one
// copy, nThread × nGpus; 0 when unknown (no rank lines, or a truncated
// list).
func (r *Run) NRanks() int {
	if r.Independent() {
		return max(1, r.NThread*r.NGpus)
	}
	if r.RanksTruncated || len(r.Ranks) == 0 {
		return 0
	}
	seen := map[int]bool{}
	for _, ri := range r.Ranks {
		seen[ri.Rank] = true
	}
	return len(seen)
}

// ranksHaveGaps says whether the listed rank numbers miss one below the
// highest.
func ranksHaveGaps(rs []RankInfo) bool {
	hi := -1
	seen := map[int]bool{}
	for _, r := range rs {
		seen[r.Rank] = true
		hi = max(hi, r.Rank)
	}
	return hi+1 > len(seen)
}

// Independent says whether the output holds copies of a test that each ran
// alone: several headers, or one rank number listed more than once.
func (r *Run) Independent() bool {
	if r.Headers > 1 {
		return true
	}
	seen := map[int]bool{}
	for _, ri := range r.Ranks {
		if seen[ri.Rank] {
			return true
		}
		seen[ri.Rank] = true
	}
	return false
}

// Hosts are the distinct host names of the rank lines, in first-seen order.
func (r *Run) Hosts() []string {
	var hosts []string
	seen := map[string]bool{}
	for _, ri := range r.Ranks {
		if !seen[ri.Host] {
			seen[ri.Host] = true
			hosts = append(hosts, ri.Host)
		}
	}
	return hosts
}

var (
	// reRank reads a rank line; the first nccl-tests releases print no
	// Pid ("#   Rank %2d on %10s device %2d [0x%02x] %s", src/common.cu).
	reRank = regexp.MustCompile(`^Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?(?:Pid\s+(\d+)\s+)?on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$`)
	// reLogPrefix finds an NCCL debug line prefix "host:pid:tid [dev] NCCL".
	reLogPrefix = regexp.MustCompile(`\S+:\d+:\d+ \[\d+\] (?:\S+ )?NCCL (?:INFO|WARN|TRACE|ABORT)`)
	reTag       = regexp.MustCompile(`^\s*\[\d+,\d+\]<std(?:out|err)>:`)
	// reSplice finds launcher tags that another rank's output spliced into
	// a row: "[1,0]<stdout>:" or Open MPI's bare "[0]".
	reSplice = regexp.MustCompile(`\[\d+(?:,\d+)?\](?:<std(?:out|err)>:)?`)
	reDate   = regexp.MustCompile(`^\d{4}-\d\d-\d\d$`)
	reClock  = regexp.MustCompile(`^\d\d:\d\d:\d\d$`)
)

// logPrefix finds an NCCL debug prefix; the substring test keeps the
// regular expression off the result rows.
func logPrefix(t string) []int {
	if !strings.Contains(t, " NCCL ") {
		return nil
	}
	return reLogPrefix.FindStringIndex(t)
}

// Parse reads nccl-tests output. source names the input in errors and
// notes. It fails only when the input holds no nccl-tests header or row;
// lines that look like rows but cannot be read become Skipped notes.
func Parse(r io.Reader, source string) (*Output, error) {
	br := bufio.NewReaderSize(r, 4096)
	if head, _ := br.Peek(512); bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("{")) {
		data, err := io.ReadAll(io.LimitReader(br, maxJSON))
		if err != nil {
			return nil, &ParseError{Source: source, Err: err}
		}
		return parseJSON(data, source)
	}
	p := &textParser{out: &Output{Source: source}}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		p.n++
		p.line(sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{Source: source, Line: p.n + 1, Err: err}
	}
	out := p.out
	// Drop runs that hold nothing (a lone version line).
	kept := out.Runs[:0]
	for _, r := range out.Runs {
		if len(r.Rows) > 0 || r.Headers > 0 || len(r.Ranks) > 0 {
			kept = append(kept, r)
		}
	}
	out.Runs = kept
	for _, r := range out.Runs {
		if !r.RanksTruncated && !r.Independent() && ranksHaveGaps(r.Ranks) {
			// nccl-tests lists every rank from 0; a list with holes was
			// shortened by hand ("representative output").
			r.RanksTruncated = true
		}
	}
	if len(out.Runs) == 0 {
		if k := out.Skipped; len(k) > 0 {
			// Lines shaped like rows that fit no layout (a hand-made
			// table with a column of its own): say which, not "none".
			more := ""
			if len(k) > 1 {
				more = fmt.Sprintf(" (and %d more)", len(k)-1)
			}
			return nil, &ParseError{Source: source, Line: k[0].Line, Err: fmt.Errorf("%w: no nccl-tests header, and no line that looks like a result row fits nccl-tests' columns: %s%s", ErrNoData, k[0].Reason, more)}
		}
		return nil, &ParseError{Source: source, Err: fmt.Errorf("%w: no nccl-tests header or result row", ErrNoData)}
	}
	return out, nil
}

// textParser is the state of Parse over text output: the runs so far, the
// run being read, and the version and program lines that open the next.
type textParser struct {
	out            *Output
	cur            *Run
	pendingVersion string
	pendingProgram string
	pendingLib     int
	pendingLaunch  *Launch
	// continued is set while a launch line ends in "\".
	continued bool
	n         int // current line number
}

// newRun starts a run at line, taking the pending version and program.
func (p *textParser) newRun(line int) *Run {
	run := &Run{Line: line, Version: p.pendingVersion, Program: p.pendingProgram, NCCLLibrary: p.pendingLib, Launch: p.pendingLaunch}
	if run.Program == "" && run.Launch != nil {
		run.Program = run.Launch.Program
	}
	p.pendingVersion, p.pendingProgram, p.pendingLib, p.pendingLaunch = "", "", 0, nil
	p.out.Runs = append(p.out.Runs, run)
	return run
}

// skip records that line p.n could not be read, and why.
func (p *textParser) skip(why string) {
	p.out.Skipped = append(p.out.Skipped, Note{p.n, why})
}

// line reads one line of text output: NCCL log lines are counted, result
// rows and "#" lines go to the current run.
func (p *textParser) line(line string) {
	line = strings.TrimRight(line, "\r")
	// mpirun --tag-output prefixes "[1,0]<stdout>:".
	if loc := reTag.FindStringIndex(line); loc != nil {
		line = line[loc[1]:]
	}
	t := strings.TrimSpace(line)
	if t == "" {
		return
	}
	if loc := logPrefix(t); loc != nil {
		p.out.LogLines++
		// A row cut by a log line printed in the middle of it.
		if loc[0] != 0 && isDigit(t[0]) {
			p.skip("row interrupted by NCCL log output")
		}
		return
	}
	if strings.IndexByte(t, '[') > 0 && isDigit(t[0]) {
		// Rows hold no brackets: a tag inside one was spliced in.
		t = strings.Join(strings.Fields(reSplice.ReplaceAllString(t, " ")), " ")
	}
	if p.launch(t) {
		return
	}
	if isDigit(t[0]) {
		p.row(t)
		return
	}
	if t == "..." {
		if p.cur != nil {
			p.cur.RanksTruncated = true
		}
		return
	}
	p.comment(strings.TrimSpace(strings.TrimLeft(t, "#")))
}

// launchers are the commands a launch line starts with (after a shell
// prompt and "NAME=VALUE" words).
var launchers = map[string]bool{"mpirun": true, "mpiexec": true, "srun": true, "env": true, "orterun": true, "prterun": true, "mpiexec.hydra": true, "sudo": true, "time": true}

// reEnvWord is a "NAME=VALUE" word of a command line.
var reEnvWord = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// launch reads t as a command line that starts an nccl-tests run, or as
// the continuation of one; it reports whether it did. A launch line names
// a launcher or a *_perf binary as a command word; the NCCL_* variables
// it sets wait for the run it starts.
func (p *textParser) launch(t string) bool {
	f := strings.Fields(t)
	if !p.continued {
		// Skip a shell prompt ("root@h:/#", "$") to the command.
		for i, w := range f {
			if strings.HasSuffix(w, "#") || w == "$" || strings.HasSuffix(w, "$") && strings.Contains(w, "@") {
				f = f[i+1:]
				break
			}
		}
		k := 0
		for k < len(f) && reEnvWord.MatchString(f[k]) {
			k++
		}
		if k == len(f) || !launchers[path.Base(f[k])] && perfProgram(f[k]) == "" {
			return false
		}
	}
	l := p.pendingLaunch
	if l == nil || !p.continued {
		l = &Launch{Line: p.n}
		p.pendingLaunch = l
	}
	p.continued = len(f) > 0 && f[len(f)-1] == "\\"
	set := func(kv string) {
		if m := reEnvWord.FindStringSubmatch(kv); m != nil && strings.HasPrefix(m[1], "NCCL_") {
			if l.Env == nil {
				l.Env = map[string]string{}
			}
			l.Env[m[1]] = strings.Trim(m[2], `"'`)
		}
	}
	for i := 0; i < len(f); i++ {
		w := f[i]
		switch {
		case (w == "-x" || w == "--env") && i+1 < len(f):
			i++
			set(f[i])
		case (w == "-genv" || w == "-env") && i+1 < len(f):
			i++
			if strings.Contains(f[i], "=") {
				set(f[i])
			} else if i+1 < len(f) {
				set(f[i] + "=" + f[i+1])
				i++
			}
		case strings.HasPrefix(w, "--export="):
			for _, kv := range strings.Split(strings.TrimPrefix(w, "--export="), ",") {
				set(kv)
			}
		case reEnvWord.MatchString(w):
			set(w)
		case l.Program == "" && perfProgram(w) != "":
			l.Program = perfProgram(w)
		}
	}
	return true
}

// perfProgram returns the nccl-tests binary w names ("all_reduce_perf"
// for "/nccl-tests/build/all_reduce_perf"), "" when it names none.
func perfProgram(w string) string {
	b := path.Base(w)
	if !strings.HasSuffix(b, "_perf") && !strings.HasSuffix(b, "_perf_mpi") {
		return ""
	}
	if _, err := ParseCollective(b); err != nil {
		return ""
	}
	return b
}

// row reads a result row into the current run, starting one if needed.
func (p *textParser) row(t string) {
	if p.cur == nil {
		p.cur = p.newRun(p.n)
	}
	row, err := parseRow(t, p.cur.PerIter)
	if err != nil {
		p.skip(err.Error())
		return
	}
	row.Line = p.n
	p.cur.Rows = append(p.cur.Rows, row)
}

// comment reads a header, rank, column or footer line, given without
// its leading "#".
func (p *textParser) comment(body string) {
	switch {
	case strings.HasPrefix(body, "nccl-tests version "):
		f := strings.Fields(body)
		p.pendingVersion = f[2]
		for _, kv := range f[3:] {
			if v, ok := strings.CutPrefix(kv, "nccl-library="); ok {
				p.pendingLib, _ = strconv.Atoi(v)
			}
		}
	case strings.HasPrefix(body, "Collective test starting:"):
		p.pendingProgram = strings.TrimSpace(strings.TrimPrefix(body, "Collective test starting:"))
	case strings.HasPrefix(body, "nThread "):
		p.header(body)
	case strings.HasPrefix(body, "Rank ") && (strings.Contains(body, " Pid ") || strings.Contains(body, " device ")):
		p.rank(body)
	case strings.Contains(body, "i_min") && strings.Contains(body, "size"):
		if p.cur != nil {
			p.cur.PerIter = true
		}
	case strings.HasPrefix(body, "Out of bounds values"):
		p.outOfBounds(body)
	case strings.HasPrefix(body, "Avg bus bandwidth"):
		p.avgBusBW(body)
	case strings.HasPrefix(body, "error:"):
		if p.cur != nil {
			p.cur.Errors = append(p.cur.Errors, strings.TrimSpace(strings.TrimPrefix(body, "error:")))
		}
	}
}

// header reads an "nThread" header line: it starts a run, or counts one
// more header of the current one.
func (p *textParser) header(body string) {
	cur := p.cur
	if cur != nil && len(cur.Rows) == 0 && cur.Footers == 0 && p.pendingProgram == "" && p.pendingVersion == "" {
		// A second header before any row: another process of
		// the same launch printing its own header.
		cur.Headers++
	} else {
		cur = p.newRun(p.n)
		cur.Headers = 1
		p.cur = cur
	}
	parseHeader(cur, body)
}

// rank reads a "Rank N Group G Pid P on HOST device D [BUSID] GPU" line.
func (p *textParser) rank(body string) {
	if p.cur == nil {
		p.cur = p.newRun(p.n)
	}
	cur := p.cur
	m := reRank.FindStringSubmatch(body)
	if m == nil {
		if strings.HasSuffix(body, "...") {
			cur.RanksTruncated = true
			return
		}
		p.skip("unreadable rank line")
		return
	}
	ri := RankInfo{Host: m[4], BusID: m[6], GPU: strings.TrimSpace(m[7]), Line: p.n}
	ri.Rank, _ = strconv.Atoi(m[1])
	ri.Group, _ = strconv.Atoi(m[2])
	ri.Pid, _ = strconv.Atoi(m[3])
	ri.Device, _ = strconv.Atoi(m[5])
	if strings.HasSuffix(ri.GPU, "...") {
		cur.RanksTruncated = true
	}
	cur.Ranks = append(cur.Ranks, ri)
}

// outOfBounds reads the "Out of bounds values" footer.
func (p *textParser) outOfBounds(body string) {
	if p.cur == nil {
		return
	}
	v, err := footerValue(body)
	w, perr := strconv.ParseInt(firstField(v), 10, 64)
	if err != nil || perr != nil || w < 0 {
		p.skip("unreadable out-of-bounds footer")
		return
	}
	p.cur.OutOfBounds, p.cur.OutOfBoundsLine = &w, p.n
	p.cur.Footers++
}

// avgBusBW reads the "Avg bus bandwidth" footer.
func (p *textParser) avgBusBW(body string) {
	if p.cur == nil {
		return
	}
	v, err := footerValue(body)
	bw, perr := strconv.ParseFloat(firstField(v), 64)
	if err != nil || perr != nil || bw < 0 || math.IsInf(bw, 0) || math.IsNaN(bw) {
		p.skip("unreadable average bus bandwidth footer")
		return
	}
	p.cur.AvgBusBW, p.cur.AvgBusBWLine = &bw, p.n
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

func footerValue(body string) (string, error) {
	_, v, ok := strings.Cut(body, ":")
	if !ok {
		return "", ErrMalformed
	}
	return strings.TrimSpace(v), nil
}

// parseHeader reads "nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step:
// 2(factor) warmup iters: 5 iters: 20 …"; unknown keys are ignored.
func parseHeader(run *Run, body string) {
	f := strings.Fields(body)
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "nThread":
			run.NThread, _ = strconv.Atoi(f[i+1])
		case "nGpus":
			run.NGpus, _ = strconv.Atoi(f[i+1])
		case "minBytes":
			run.MinBytes, _ = strconv.ParseInt(f[i+1], 10, 64)
		case "maxBytes":
			run.MaxBytes, _ = strconv.ParseInt(f[i+1], 10, 64)
		}
	}
}

// parseRow reads one result row. The layout (src/util.cu
// writeBenchmarkLinePreamble/Body) is "%12li %12li %8s %6s %6s" then, per
// half, "%7s %6s %6s %6g" (time algbw busbw #wrong, "N/A" when unchecked);
// per-iteration timing adds four columns per half, timestamps a date and a
// time at the end. Old builds print no root column; tests that skip the
// out-of-place half print blanks instead of its four columns.
func parseRow(t string, perIter bool) (Row, error) {
	f := strings.Fields(t)
	if n := len(f); n >= 2 && reDate.MatchString(f[n-2]) && reClock.MatchString(f[n-1]) {
		f = f[:n-2]
	}
	if len(f) < 7 {
		return Row{}, fmt.Errorf("%w: row has %d columns, want at least 7", ErrMalformed, len(f))
	}
	var row Row
	var err error
	if row.Size, err = strconv.ParseInt(f[0], 10, 64); err != nil || row.Size < 0 {
		return Row{}, fmt.Errorf("%w: size %q", ErrMalformed, f[0])
	}
	if row.Count, err = strconv.ParseInt(f[1], 10, 64); err != nil || row.Count < 0 {
		return Row{}, fmt.Errorf("%w: count %q", ErrMalformed, f[1])
	}
	row.Type = f[2]
	if isDigit(row.Type[0]) {
		return Row{}, fmt.Errorf("%w: type %q", ErrMalformed, row.Type)
	}
	g := 4
	if perIter {
		g = 8
	}
	rest := f[3:]
	mid, halves := -1, 0
	for m := 0; m <= 2; m++ {
		switch len(rest) - m {
		case g:
			mid, halves = m, 1
		case 2 * g:
			mid, halves = m, 2
		}
		if mid >= 0 {
			break
		}
	}
	if mid < 0 {
		return Row{}, fmt.Errorf("%w: row has %d columns, which fits no nccl-tests layout", ErrMalformed, len(f))
	}
	row.Root = -1
	switch mid {
	case 2:
		row.Redop = rest[0]
		if row.Root, err = strconv.Atoi(rest[1]); err != nil {
			return Row{}, fmt.Errorf("%w: root %q", ErrMalformed, rest[1])
		}
	case 1:
		if v, err := strconv.Atoi(rest[0]); err == nil {
			row.Root = v
		} else {
			row.Redop = rest[0]
		}
	}
	body := rest[mid:]
	var ms []*Measure
	for h := 0; h < halves; h++ {
		m, err := parseMeasure(body[h*g : h*g+4])
		if err != nil {
			return Row{}, err
		}
		ms = append(ms, m)
	}
	if halves == 2 {
		row.OutOfPlace, row.InPlace = ms[0], ms[1]
	} else {
		row.InPlace = ms[0]
	}
	return row, nil
}

func parseMeasure(f []string) (*Measure, error) {
	var m Measure
	vals := []*float64{&m.TimeUS, &m.AlgBW, &m.BusBW}
	names := []string{"time", "algbw", "busbw"}
	for i, p := range vals {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: %s %q", ErrMalformed, names[i], f[i])
		}
		*p = v
	}
	if f[3] == "N/A" {
		m.WrongNA = true
		return &m, nil
	}
	if v, over := strings.CutSuffix(f[3], "*"); strings.ContainsAny(v, "eE") {
		// %6g writes a count with an exponent only from 1e+06 up: a
		// smaller value with one is the old "error" column's %5.0le.
		if d, err := strconv.ParseFloat(v, 64); err == nil && math.Abs(d) < 1e6 {
			m.Delta, m.MaxDelta, m.DeltaOver = true, d, over
			return &m, nil
		}
	}
	w, err := strconv.ParseFloat(f[3], 64) // printed with %g: 1e+06 is possible
	if err != nil || w < 0 || w != math.Trunc(w) || w > math.MaxInt64/2 {
		return nil, fmt.Errorf("%w: #wrong %q", ErrMalformed, f[3])
	}
	m.Wrong = int64(w)
	return &m, nil
}

// Detect says whether text looks like nccl-tests output: a
// "# nThread … nGpus" header, a result-table column header, or the JSON
// report.
func Detect(text string) bool {
	if strings.Contains(text, `"bus_bw"`) && strings.Contains(text, `"alg_bw"`) {
		return true // the -J JSON report
	}
	if (strings.Contains(text, "nThread ") && strings.Contains(text, "nGpus ")) ||
		(strings.Contains(text, "algbw") && strings.Contains(text, "busbw")) {
		return true
	}
	// The tail of a table pasted without its header: result rows alone,
	// told from other numeric tables by their NCCL data type column.
	rows := 0
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		if t == "" || !isDigit(t[0]) {
			continue
		}
		if r, err := parseRow(t, false); err == nil && ncclTypes[r.Type] {
			if rows++; rows >= minBareRows {
				return true
			}
		}
	}
	return false
}

// minBareRows result rows without a header make an nccl-tests output.
const minBareRows = 2

// ncclTypes are the type column's spellings (ncclDataType_t names as
// nccl-tests prints them).
var ncclTypes = map[string]bool{
	"int8": true, "char": true, "uint8": true, "int32": true, "int": true, "uint32": true,
	"int64": true, "uint64": true, "half": true, "float16": true, "float": true, "float32": true,
	"double": true, "float64": true, "bfloat16": true, "f8e4m3": true, "f8e5m2": true,
}
