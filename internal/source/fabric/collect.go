package fabric

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	fabricmodel "github.com/ibdoctor/ibdoctor/internal/model/fabric"
	"github.com/ibdoctor/ibdoctor/internal/parse/ibdiags"
)

// CollectOptions tune a live collection.
type CollectOptions struct {
	// CA and Port pick the local HCA port the tools send from (-C, -P);
	// empty/0 lets the tools choose.
	CA   string
	Port int
	// Timeout bounds each tool run (default 60 s).
	Timeout time.Duration
	// Env is added to the tools' environment, e.g. LD_PRELOAD of
	// libumad2sim.so and IBSIM_SOCKNAME to run against ibsim.
	Env []string
	// Now stamps the collection (default time.Now).
	Now func() time.Time
	// LookPath finds the tools (default exec.LookPath).
	LookPath func(string) (string, error)
	// Dir is the tools' working directory ("" = the current one). Under
	// ibsim, libumad2sim.so leaves a sys-<pid> tree there per run.
	Dir string
	// Parallel bounds the tools running at once (default 4; 1 runs them
	// one after another). ibsim serves at most 10 clients.
	Parallel int
	// QoS also reads the SL-to-VL mapping and VL arbitration tables:
	// two smpquery runs per linked port (see collectQoS), so it is asked
	// for, not done by default.
	QoS bool
	// PathSL also asks the SA for the PathRecord of every CA-to-CA LID
	// pair (saquery --src-to-dst), whose SL says which VLs the route uses;
	// n·(n-1) runs, so only up to maxPathSLCAs CA ports (see
	// collectPathSL).
	PathSL bool
	// MTU also reads the PortInfo (NeighborMTU, MtuCap) of every linked CA
	// port and of the switch port at its other end: two smpquery runs
	// per CA port (see collectMTU), so it is asked for.
	MTU bool
}

// step is one tool run of a collection.
type step struct {
	name string // saved as name.txt
	bin  string
	args []string
}

// selector returns the -C/-P arguments every tool gets.
func (o CollectOptions) selector() []string {
	var sel []string
	if o.CA != "" {
		sel = append(sel, "-C", o.CA)
	}
	if o.Port > 0 {
		sel = append(sel, "-P", strconv.Itoa(o.Port))
	}
	return sel
}

// The steps of a collection, in the order their outputs are saved.
// Directed-route and LID tools first; SA-based queries are avoided
// (ibqueryerrors --skip-sl) so that the collection works without an SM.
// Every step runs even when another failed: what failed is recorded, and
// becomes a gap in the model.
//
// They run concurrently (CollectOptions.Parallel): ibnetdiscover and
// dump_fts (which discovers the fabric itself) start at once; iblinkinfo
// and ibqueryerrors then reuse ibnetdiscover's discovery (--load-cache of
// its --cache file) instead of sweeping the fabric again.
const (
	stepNetDiscover = iota
	stepLinkInfo
	stepQueryErrors
	stepDumpFTs
	stepSMInfo
	numSteps
)

func steps(o CollectOptions, cache string) []step {
	with := func(a ...string) []string { return append(o.selector(), a...) }
	withCache := func(a ...string) []string {
		if cache != "" {
			a = append(a, "--load-cache", cache)
		}
		return with(a...)
	}
	disc := with()
	if cache != "" {
		disc = with("--cache", cache)
	}
	return []step{
		stepNetDiscover: {"ibnetdiscover", "ibnetdiscover", disc},
		stepLinkInfo:    {"iblinkinfo", "iblinkinfo", withCache()},
		stepQueryErrors: {"ibqueryerrors", "ibqueryerrors", withCache("--skip-sl", "--data")},
		// -a: every entry. Without it dump_fts (infiniband-diags 44)
		// leaves out the entries it calls illegal, and it calls the last
		// port of a switch illegal (port 128 of a 128-port switch), so
		// valid routes would look missing. Which entries are usable is
		// decided from the topology. -n: no destination column; the
		// checks name destinations from the topology, and resolving them
		// makes the dump of an 8k-HCA fabric 90 MB instead of 16 MB and
		// about 40% slower.
		stepDumpFTs: {"dump_fts", "dump_fts", with("-a", "-n")},
		stepSMInfo:  {"sminfo", "sminfo", with()},
	}
}

var caName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Validate checks the options before anything runs.
func (o CollectOptions) Validate() error {
	if o.CA != "" && !caName.MatchString(o.CA) {
		return fmt.Errorf("bad CA name %q (want a device name like mlx5_0)", o.CA)
	}
	if o.Port < 0 || o.Port > 254 {
		return fmt.Errorf("bad port %d (1-254)", o.Port)
	}
	if o.Parallel < 0 || o.Parallel > 8 {
		return fmt.Errorf("bad parallelism %d (1-8: ibsim serves at most 10 clients)", o.Parallel)
	}
	return nil
}

// UMAD2SimGlob finds the preload library Debian's ibsim-utils installs.
var UMAD2SimGlob = "/usr/lib/*/umad2sim/libumad2sim.so"

// IBSimEnv is the environment that points the tools at the ibsim
// instance serving socket name sock: libumad2sim.so preloaded,
// IBSIM_SOCKNAME set.
func IBSimEnv(sock string) ([]string, error) {
	libs, _ := filepath.Glob(UMAD2SimGlob)
	if len(libs) == 0 {
		return nil, fmt.Errorf("--ibsim: %s not found (install ibsim-utils)", UMAD2SimGlob)
	}
	if sock == "" || strings.ContainsAny(sock, "\x00/ ") {
		return nil, fmt.Errorf("--ibsim: bad socket name %q", sock)
	}
	return []string{"LD_PRELOAD=" + libs[0], "IBSIM_SOCKNAME=" + sock}, nil
}

func (o CollectOptions) withDefaults() CollectOptions {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	return o
}

// Collect runs the tools and returns their outputs. It fails only on bad
// options; a tool that is missing, times out or exits non-zero is recorded
// in its Output.Err.
func Collect(ctx context.Context, o CollectOptions) (*fabricmodel.Raw, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	raw := &fabricmodel.Raw{Taken: o.Now().UTC(), Source: "live"}
	start := time.Now()
	// ibnetdiscover's cache file, for iblinkinfo and ibqueryerrors.
	cache := ""
	if dir, err := os.MkdirTemp("", "ibdoctor-fabric-"); err == nil {
		defer os.RemoveAll(dir)
		cache = filepath.Join(dir, "ibnetdiscover.cache")
	}
	st := steps(o, cache)
	outs := make([]*fabricmodel.Output, numSteps)
	var sms []*fabricmodel.Output
	sem := make(chan struct{}, o.Parallel)
	var wg sync.WaitGroup
	launch := func(do func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			do()
		}()
	}
	timed := func(i int, s step) func() {
		return func() { outs[i] = runAt(ctx, o, s, start) }
	}
	// dump_fts is the longest run: it goes first.
	launch(timed(stepDumpFTs, st[stepDumpFTs]))
	wg.Add(1)
	go func() {
		defer wg.Done()
		sem <- struct{}{}
		outs[stepNetDiscover] = runAt(ctx, o, st[stepNetDiscover], start)
		<-sem
		cached := outs[stepNetDiscover].Err == "" && cache != "" && fileExists(cache)
		for _, i := range []int{stepLinkInfo, stepQueryErrors} {
			s := st[i]
			if !cached {
				s = steps(o, "")[i]
			}
			launch(func() {
				out := runAt(ctx, o, s, start)
				if out.Err != "" && cached {
					// The cache did not serve: discover again.
					out = runAt(ctx, o, steps(o, "")[i], start)
				}
				outs[i] = out
			})
		}
	}()
	launch(timed(stepSMInfo, st[stepSMInfo]))
	launch(func() { sms = collectSMs(ctx, o, start) })
	wg.Wait()
	raw.Outputs = append(outs, sms...)
	if q := raw.Get("ibqueryerrors"); q != nil && q.Err != "" && len(bytes.TrimSpace(q.Stdout)) == 0 {
		if pq := collectPerfQuery(ctx, o, raw.Get("iblinkinfo")); pq != nil {
			pq.StartMS = msSince(start)
			raw.Outputs = append(raw.Outputs, pq)
		}
	}
	if li := raw.Get("iblinkinfo"); o.QoS && li != nil && li.Err == "" {
		qosStart := msSince(start)
		for _, q := range collectQoS(ctx, o, li) {
			q.StartMS = qosStart
			raw.Outputs = append(raw.Outputs, q)
		}
	}
	if li := raw.Get("iblinkinfo"); o.PathSL && li != nil && li.Err == "" {
		psStart := msSince(start)
		if ps := collectPathSL(ctx, o, li); ps != nil {
			ps.StartMS = psStart
			raw.Outputs = append(raw.Outputs, ps)
		}
	}
	if li := raw.Get("iblinkinfo"); o.MTU && li != nil && li.Err == "" {
		mtuStart := msSince(start)
		if pi := collectMTU(ctx, o, li); pi != nil {
			pi.StartMS = mtuStart
			raw.Outputs = append(raw.Outputs, pi)
		}
	}
	raw.WallMS = msSince(start)
	return raw, nil
}

// maxMTURuns bounds the smpquery portinfo runs (~10 ms each).
const maxMTURuns = 4096

// collectMTU reads `smpquery portinfo LID PORT` of every linked CA port
// and of the switch port at its other end, the LIDs and ports taken from
// iblinkinfo: NeighborMTU is the link's MTU (what ibv_devinfo shows as
// active_mtu on the host), MtuCap what each end supports. SA
// PortInfoRecords would answer in one query, but OpenSM lists only some
// ports to a requester without the SM key, and needs a running SM. Runs
// beyond maxMTURuns are left out and said so in Err.
func collectMTU(ctx context.Context, o CollectOptions, li *fabricmodel.Output) *fabricmodel.Output {
	info, err := ibdiags.ParseLinkInfo(bytes.NewReader(li.Stdout), "iblinkinfo.txt")
	if err != nil {
		return nil
	}
	type key struct{ lid, port int }
	var jobs []key
	seen := map[key]bool{}
	add := func(k key) {
		if k.lid > 0 && !seen[k] {
			seen[k] = true
			jobs = append(jobs, k)
		}
	}
	for _, p := range info.Ports {
		if p.NodeType == ibdiags.Switch || p.LID <= 0 || p.Phys != 5 || p.RemoteLID <= 0 {
			continue
		}
		add(key{p.LID, p.Port})
		add(key{p.RemoteLID, p.RemotePort})
	}
	if len(jobs) == 0 {
		return nil
	}
	out := &fabricmodel.Output{Name: "smpquery-portinfo", Args: []string{"smpquery", "portinfo", "<lid> <port> for each linked CA port and the switch port at its other end"}}
	sel := o.selector()
	runs := make([]step, min(len(jobs), maxMTURuns))
	for i := range runs {
		runs[i] = step{out.Name, "smpquery", append(append([]string{}, sel...), "portinfo", strconv.Itoa(jobs[i].lid), strconv.Itoa(jobs[i].port))}
	}
	results := runAll(ctx, o, runs)
	failed := 0
	for _, r := range results {
		out.Stdout = append(out.Stdout, r.Stdout...)
		out.Stderr = append(out.Stderr, r.Stderr...)
		out.DurationMS += r.DurationMS
		if r.Err != "" {
			failed++
		}
	}
	var errs []string
	if failed > 0 {
		errs = append(errs, fmt.Sprintf("%d of %d smpquery runs failed", failed, len(results)))
	}
	if len(jobs) > maxMTURuns {
		errs = append(errs, fmt.Sprintf("%d runs beyond the first %d not made", len(jobs)-maxMTURuns, maxMTURuns))
	}
	out.Err = strings.Join(errs, "; ")
	return out
}

// maxPathSLCAs bounds the CA ports whose path SLs are collected: n CA
// ports cost n·(n-1) saquery runs (64 ports: 4,032 runs, ~10 ms each).
const maxPathSLCAs = 64

// collectPathSL asks the SA for the PathRecord of every ordered pair of
// linked CA ports (`saquery --src-to-dst SLID:DLID`), the CA LIDs taken
// from iblinkinfo. The SL of each record is what the SM tells the source
// to use towards the destination; routing engines that break credit loops
// with virtual lanes (LASH, DFSSSP) set it per pair. `saquery -p` lists
// only the records of the port it runs on, hence one run per pair. Above
// maxPathSLCAs ports nothing is run and Err says why.
func collectPathSL(ctx context.Context, o CollectOptions, li *fabricmodel.Output) *fabricmodel.Output {
	info, err := ibdiags.ParseLinkInfo(bytes.NewReader(li.Stdout), "iblinkinfo.txt")
	if err != nil {
		return nil
	}
	var lids []int
	seen := map[int]bool{}
	for _, p := range info.Ports {
		if p.NodeType == ibdiags.Switch || p.LID <= 0 || p.Phys != 5 || seen[p.LID] {
			continue
		}
		seen[p.LID] = true
		lids = append(lids, p.LID)
	}
	out := &fabricmodel.Output{Name: "saquery-path-sl", Args: []string{"saquery", "--src-to-dst", "<slid>:<dlid> for each pair of linked CA ports"}}
	if len(lids) < 2 {
		return nil
	}
	if len(lids) > maxPathSLCAs {
		out.Err = fmt.Sprintf("%d CA ports: path SLs are collected for at most %d (n·(n-1) saquery runs); the credit-loop check assumes one VL", len(lids), maxPathSLCAs)
		return out
	}
	sel := o.selector()
	var jobs [][]string
	for _, s := range lids {
		for _, d := range lids {
			if s != d {
				jobs = append(jobs, append(append([]string{}, sel...), "--src-to-dst", fmt.Sprintf("%d:%d", s, d)))
			}
		}
	}
	runs := make([]step, len(jobs))
	for i, args := range jobs {
		runs[i] = step{out.Name, "saquery", args}
	}
	results := runAll(ctx, o, runs)
	failed := 0
	for _, r := range results {
		out.Stdout = append(out.Stdout, r.Stdout...)
		out.Stderr = append(out.Stderr, r.Stderr...)
		out.DurationMS += r.DurationMS
		if r.Err != "" {
			failed++
		}
	}
	if failed > 0 {
		out.Err = fmt.Sprintf("%d of %d saquery runs failed", failed, len(jobs))
	}
	return out
}

// maxQoSRuns bounds the smpquery runs of the QoS tables (~10 ms each).
const maxQoSRuns = 4096

// collectQoS reads the SL-to-VL mapping tables and VL arbitration tables
// with smpquery, the nodes and linked ports taken from iblinkinfo:
//
//   - `smpquery sl2vl LID OUT` once per linked switch port OUT: it prints
//     the row of every input port for that output port, so a switch with
//     k linked ports costs k runs, not k²;
//   - `smpquery sl2vl LID` once per CA port (one table);
//   - `smpquery vlarb LID PORT` once per linked port.
//
// The SA has SL2VLTableRecord and VLArbitrationTableRecord queries
// (`saquery SL2VL`, `saquery VLAR`), one query for the whole fabric, but
// OpenSM 3.3 under ibsim answers them with all-zero tables for one switch
// only while smpquery reads the tables OpenSM set; and the SA needs a
// running SM. Runs beyond maxQoSRuns are left out and said so in Err.
func collectQoS(ctx context.Context, o CollectOptions, li *fabricmodel.Output) []*fabricmodel.Output {
	info, err := ibdiags.ParseLinkInfo(bytes.NewReader(li.Stdout), "iblinkinfo.txt")
	if err != nil {
		return nil
	}
	sel := o.selector()
	sl := &fabricmodel.Output{Name: "smpquery-sl2vl", Args: []string{"smpquery", "sl2vl", "<switch lid> <out port> for each linked switch port; <lid> for each CA port"}}
	va := &fabricmodel.Output{Name: "smpquery-vlarb", Args: []string{"smpquery", "vlarb", "<lid> <port> for each linked port"}}
	type job struct {
		out  *fabricmodel.Output
		args []string
	}
	var jobs []job
	seenCA := map[int]bool{}
	for _, p := range info.Ports {
		if p.LID <= 0 || p.Phys != 5 {
			continue
		}
		lid, port := strconv.Itoa(p.LID), strconv.Itoa(p.Port)
		if p.NodeType == ibdiags.Switch {
			jobs = append(jobs, job{sl, []string{"sl2vl", lid, port}})
		} else if !seenCA[p.LID] {
			seenCA[p.LID] = true
			jobs = append(jobs, job{sl, []string{"sl2vl", lid}})
		}
		jobs = append(jobs, job{va, []string{"vlarb", lid, port}})
	}
	if len(jobs) == 0 {
		return nil
	}
	failed := map[*fabricmodel.Output]int{}
	total := map[*fabricmodel.Output]int{}
	skipped := map[*fabricmodel.Output]int{}
	runs := make([]step, min(len(jobs), maxQoSRuns))
	for i := range runs {
		runs[i] = step{jobs[i].out.Name, "smpquery", append(append([]string{}, sel...), jobs[i].args...)}
	}
	results := runAll(ctx, o, runs)
	for i, j := range jobs {
		if i >= maxQoSRuns {
			skipped[j.out]++
			continue
		}
		total[j.out]++
		r := results[i]
		j.out.Stdout = append(j.out.Stdout, r.Stdout...)
		j.out.Stderr = append(j.out.Stderr, r.Stderr...)
		j.out.DurationMS += r.DurationMS
		if r.Err != "" {
			failed[j.out]++
		}
	}
	var outs []*fabricmodel.Output
	for _, out := range []*fabricmodel.Output{sl, va} {
		var errs []string
		if failed[out] > 0 {
			errs = append(errs, fmt.Sprintf("%d of %d smpquery runs failed", failed[out], total[out]))
		}
		if skipped[out] > 0 {
			errs = append(errs, fmt.Sprintf("%d runs beyond the first %d not made", skipped[out], maxQoSRuns))
		}
		out.Err = strings.Join(errs, "; ")
		if total[out] > 0 || skipped[out] > 0 {
			outs = append(outs, out)
		}
	}
	return outs
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Size() > 0
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// runAt is run, stamped with its start relative to the collection's.
func runAt(ctx context.Context, o CollectOptions, s step, start time.Time) *fabricmodel.Output {
	at := msSince(start)
	out := run(ctx, o, s)
	out.StartMS = at
	return out
}

// maxPerfQueryPorts bounds the per-port fallback (one perfquery run per
// port, ~10 ms each).
const maxPerfQueryPorts = 1024

// collectPerfQuery reads the PortCounters of every linked port with
// perfquery, one run per port, when ibqueryerrors could not run. The ports
// and LIDs come from iblinkinfo; ports beyond maxPerfQueryPorts are left
// out and said so in the output's Err.
func collectPerfQuery(ctx context.Context, o CollectOptions, li *fabricmodel.Output) *fabricmodel.Output {
	if li == nil || li.Err != "" {
		return nil
	}
	info, err := ibdiags.ParseLinkInfo(bytes.NewReader(li.Stdout), "iblinkinfo.txt")
	if err != nil {
		return nil
	}
	var sel []string
	if o.CA != "" {
		sel = append(sel, "-C", o.CA)
	}
	if o.Port > 0 {
		sel = append(sel, "-P", strconv.Itoa(o.Port))
	}
	out := &fabricmodel.Output{Name: "perfquery", Args: []string{"perfquery", "<lid>", "<port> for each linked port"}}
	n, skipped, failed := 0, 0, 0
	for _, p := range info.Ports {
		if p.LID <= 0 || p.Phys != 5 {
			continue
		}
		if n >= maxPerfQueryPorts {
			skipped++
			continue
		}
		n++
		r := run(ctx, o, step{"perfquery", "perfquery", append(append([]string{}, sel...), strconv.Itoa(p.LID), strconv.Itoa(p.Port))})
		out.Stdout = append(out.Stdout, r.Stdout...)
		out.Stderr = append(out.Stderr, r.Stderr...)
		out.DurationMS += r.DurationMS
		if r.Err != "" {
			failed++
		}
	}
	if n == 0 {
		return nil
	}
	var errs []string
	if failed > 0 {
		errs = append(errs, fmt.Sprintf("%d of %d perfquery runs failed", failed, n))
	}
	if skipped > 0 {
		errs = append(errs, fmt.Sprintf("%d ports beyond the first %d not queried", skipped, maxPerfQueryPorts))
	}
	out.Err = strings.Join(errs, "; ")
	return out
}

// collectSMs asks the SA for every port that runs an SM (saquery -s) and
// then each of those SMs for its state (sminfo LID), so that two masters
// are seen. Both need the SA: without an SM they fail, which is recorded.
func collectSMs(ctx context.Context, o CollectOptions, start time.Time) []*fabricmodel.Output {
	sel := o.selector()
	sa := runAt(ctx, o, step{"saquery-sm", "saquery", append(append([]string{}, sel...), "-s")}, start)
	out := []*fabricmodel.Output{sa}
	if sa.Err != "" {
		return out
	}
	ports, err := ibdiags.ParseSMPorts(bytes.NewReader(sa.Stdout), "saquery-sm.txt")
	if err != nil {
		return out
	}
	all := &fabricmodel.Output{Name: "sminfo-sms", Args: []string{"sminfo", "<lid of each IsSM port>"}, StartMS: msSince(start)}
	seen := map[int]bool{}
	for _, p := range ports {
		if p.Disabled || p.BaseLID <= 0 || seen[p.BaseLID] || len(seen) >= 16 {
			continue
		}
		seen[p.BaseLID] = true
		r := run(ctx, o, step{"sminfo-sms", "sminfo", append(append([]string{}, sel...), strconv.Itoa(p.BaseLID))})
		all.Stdout = append(all.Stdout, r.Stdout...)
		all.Stderr = append(all.Stderr, r.Stderr...)
		all.DurationMS += r.DurationMS
		if r.Err != "" {
			all.Err = strings.TrimSpace(all.Err + "; " + r.Err)
		}
	}
	if len(seen) > 0 {
		out = append(out, all)
	}
	return out
}

// runAll runs the steps o.Parallel at a time and returns their outputs
// in step order.
func runAll(ctx context.Context, o CollectOptions, runs []step) []*fabricmodel.Output {
	results := make([]*fabricmodel.Output, len(runs))
	sem := make(chan struct{}, o.Parallel)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = run(ctx, o, runs[i])
		}()
	}
	wg.Wait()
	return results
}

func run(ctx context.Context, o CollectOptions, s step) *fabricmodel.Output {
	out := &fabricmodel.Output{Name: s.name, Args: append([]string{s.bin}, s.args...)}
	path, err := o.LookPath(s.bin)
	if err != nil {
		out.Err = fmt.Sprintf("%s not found (install infiniband-diags): %v", s.bin, err)
		return out
	}
	cctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, path, s.args...)
	cmd.Env = append(cmd.Environ(), o.Env...)
	cmd.Dir = o.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err = cmd.Run()
	out.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	out.Stdout, out.Stderr = stdout.Bytes(), stderr.Bytes()
	// ibqueryerrors exits 1 when it found ports with errors: a result,
	// not a failure.
	var ee *exec.ExitError
	if s.name == "ibqueryerrors" && errors.As(err, &ee) && ee.ExitCode() == 1 && stdout.Len() > 0 {
		err = nil
	}
	if err != nil {
		out.Err = describeRunError(s.bin, err, cctx.Err(), out.Stderr, o.Timeout)
	}
	return out
}

func describeRunError(bin string, err, ctxErr error, stderr []byte, timeout time.Duration) string {
	if errors.Is(ctxErr, context.DeadlineExceeded) {
		return fmt.Sprintf("%s timed out after %s", bin, timeout)
	}
	se := string(stderr)
	if strings.Contains(se, "Permission denied") || strings.Contains(se, "can't open UMAD port") || strings.Contains(se, "client_register") {
		return fmt.Sprintf("%s cannot open the umad device (permission denied: run as root or grant access to /dev/infiniband/umad*): %v", bin, err)
	}
	last := strings.TrimSpace(se)
	if i := strings.LastIndexByte(last, '\n'); i >= 0 {
		last = last[i+1:]
	}
	if len(last) > 200 {
		last = last[:200]
	}
	if last != "" {
		return fmt.Sprintf("%s: %v: %s", bin, err, last)
	}
	return fmt.Sprintf("%s: %v", bin, err)
}
