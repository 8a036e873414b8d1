package analyze

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The same paste, mangled the ways pastes get mangled, is diagnosed the
// same: one line lost, one line wrapped by a mail client, tabs expanded to
// spaces, CRLF line ends, every line mail-quoted or tagged by mpirun. Findings (IDs and severities) must not change,
// except where robustSkips names why.

// robustVariant mangles the lines of a sample; r is seeded per sample and
// variant. It returns the mangled text, or "" when the sample has no line
// to mangle that way.
type robustVariant struct {
	name   string
	mangle func(ls []string, cited map[int]bool, r *rand.Rand) string
}

var robustVariants = []robustVariant{
	{"delete a line", func(ls []string, cited map[int]bool, r *rand.Rand) string {
		i := pick(ls, cited, r, func(l string) bool { return strings.TrimSpace(l) != "" && !isHeaderish(l) })
		if i < 0 {
			return ""
		}
		return strings.Join(slices.Delete(slices.Clone(ls), i, i+1), "\n") + "\n"
	}},
	{"wrap a line", func(ls []string, cited map[int]bool, r *rand.Rand) string {
		// A mail client wraps prose and log lines past 72 columns at a
		// space; table rows and headers it leaves to the sender.
		i := pick(ls, cited, r, func(l string) bool {
			return len(l) > 72 && strings.Contains(strings.TrimSpace(l[60:]), " ") && !isHeaderish(l)
		})
		if i < 0 {
			return ""
		}
		l := ls[i]
		cut := 60 + strings.IndexByte(l[60:], ' ')
		if cut <= 60 || strings.TrimSpace(l[cut:]) == "" {
			return ""
		}
		out := slices.Clone(ls)
		out = slices.Insert(out, i+1, strings.TrimLeft(l[cut:], " "))
		out[i] = l[:cut]
		return strings.Join(out, "\n") + "\n"
	}},
	{"tabs to spaces", func(ls []string, _ map[int]bool, _ *rand.Rand) string {
		out := make([]string, len(ls))
		changed := false
		for i, l := range ls {
			out[i] = expandTabs(l)
			changed = changed || out[i] != l
		}
		if !changed {
			return ""
		}
		return strings.Join(out, "\n") + "\n"
	}},
	{"CRLF", func(ls []string, _ map[int]bool, _ *rand.Rand) string {
		return strings.Join(ls, "\r\n") + "\r\n"
	}},
	{"mail-quoted", func(ls []string, _ map[int]bool, _ *rand.Rand) string {
		return prefixAll(ls, "> ")
	}},
	{"mpirun-tagged", func(ls []string, _ map[int]bool, _ *rand.Rand) string {
		return prefixAll(ls, "[1,0]<stdout>:")
	}},
}

// prefixAll puts p in front of every line, as a mail reply or a launcher
// does.
func prefixAll(ls []string, p string) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(p + l + "\n")
	}
	return b.String()
}

// robustSkips are the sample/variant pairs whose findings may change, with
// why. A wrapped or deleted line is chosen at random, so these name what
// that line was.
var robustSkips = map[string]string{
	"journalctl-gpuoperator610-a40-nvlink-bridge-fabricmanager-nothing-to-do-zh.txt / wrap a line": "the warning rests on the poster's two lines that quote systemctl's error (its journal lines are the fabric manager's and systemd's, no kernel record); the wrap cuts one into halves a person's sentence and a fragment without the word",
	"ibstatus-deepep17-h20-bf3-roce-200-and-400g-active.txt / delete a line":                       "the paste is cut in mlx5_3 before its rate, so mlx5_0's 200 Gb/s is compared with only two 400 Gb/s ports: a line deleted from mlx5_0's, mlx5_1's or mlx5_2's block (its header, state, rate or link layer) leaves no majority, or nothing, to compare",
	"nvidia-smi-q-gpud80-remapped-pending.txt / delete a line":                                     "the line deleted is `Pending : Yes`: a remap that waits for a GPU reset is a warning, remapped rows alone are info",
	"ibdiagnet-ompi-users-2009-ipoib-rate.txt / delete a line":                                     "the line deleted is the last, the wrapped tail `due to rate:2.5Gbps < group:10Gbps` that holds the port's rate",
	"ibnetdiscover-ufm-sdk-small-topo.txt / wrap a line":                                           "the wrap moves `lid 3 4xFDR` off a port line: ibnetdiscover prints a link's speed only at the end of its line",
	"nvsmi-topo-nccltests320-3gpu-2nic-node-phb-ifconfig-no-running.txt / delete a line":           "the line deleted is GPU2's row, the only GPU near the NICs (PHB): without it the other two reach them only at NODE, a warning by design",
	"ibstat-hurray0-cx4-roce-active-ib-port-disabled-showgids.txt / delete a line":                 "the line deleted is show_gids' column header: its rows under markdown prose then score below the detector's threshold (the rows alone are read)",
	"nccl-log-imagereward65-roce-two-hcas-open-device-failed-still-ib.txt / wrap a line":           "the wrap cuts a process's `NET/IB : Using` line inside NCCL's own prefix (`… [3] NCCL` / `INFO NET/IB : Using [0]mlx5_1:1/RoCE …`): that process no longer says which devices it uses, so the devices NCCL could not open may be among them, and the failed ibv_open_device stays critical by design",
	"dmesg-nvsentinel-155.txt / delete a line":                                                     "the line deleted is `NVRM: fallen off the bus and is not responding to commands.`, the end of the multi-line message: the GPU's fall is no longer read, and the driver's `The NVIDIA probe routine failed for 1 device(s).` is left, the unclassified driver error (a warning)",
	"perftest-linuxrdma-softroce-vm-rxe0-send-bw-255mbs-vs-iperf-26g.txt / delete a line":          "the line deleted is the banner's `Dual-port : OFF  Device : rxe0`, the only line that names the device: without it the run is not known to be Soft-RoCE, and RDMA at a tenth of TCP's rate on hardware RDMA is critical by design",
	"nccl-log-raddet-1node-2gpu-socket-shm-interleaved.txt / delete a line":                        "the line deleted (15) holds rank 1's only whole `rank 1 nranks 2` (its other one is cut by rank 0's output): without it the log no longer shows both ranks on one host, and sockets are a warning",
}

// pick returns a random line index (not a line cited as evidence, which
// would change the findings by design) that ok accepts, -1 if none.
func pick(ls []string, cited map[int]bool, r *rand.Rand, ok func(string) bool) int {
	var cand []int
	for i, l := range ls {
		if !cited[i+1] && ok(l) {
			cand = append(cand, i)
		}
	}
	if len(cand) == 0 {
		return -1
	}
	return cand[r.IntN(len(cand))]
}

// isHeaderish says whether a line starts an output or a block (a header,
// a section title, a table's column names): losing or wrapping it changes
// what follows by design.
func isHeaderish(l string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, "#") || strings.HasSuffix(t, ":") || isDashes(t) || strings.HasPrefix(t, "CA '") ||
		strings.HasPrefix(t, "hca_id:") || strings.HasPrefix(t, "Switch") || strings.HasPrefix(t, "CA: ") ||
		strings.HasPrefix(t, "Port ") || strings.HasPrefix(t, "port:") || strings.HasPrefix(t, "-") || strings.HasPrefix(t, "*") ||
		strings.HasPrefix(t, "GPU0") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "Ca\t") || strings.HasPrefix(t, "Ca ") ||
		strings.Contains(t, "Test") || strings.Contains(t, "#bytes")
}

// expandTabs turns tabs into spaces up to the next multiple of 8, as a
// terminal copy does.
func expandTabs(l string) string {
	if !strings.Contains(l, "\t") {
		return l
	}
	var b strings.Builder
	col := 0
	for _, c := range l {
		if c == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(c)
		col++
	}
	return b.String()
}

// signature is what must not change: the findings' IDs and severities.
func signature(r *Report) []string {
	var s []string
	for _, f := range r.Findings {
		s = append(s, f.ID+"/"+string(f.Severity))
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// citedLines are the line numbers the findings name as evidence.
func citedLines(r *Report, file string) map[int]bool {
	c := map[int]bool{}
	for _, f := range r.Findings {
		for _, ev := range f.Evidence {
			if rest, ok := strings.CutPrefix(ev.Source, file+":"); ok {
				if n, err := strconv.Atoi(rest); err == nil {
					c[n] = true
				}
			}
		}
	}
	return c
}

// robustMaxBytes leaves the largest sample (a 2 MB PuTTY log) to the
// corpus test: mangling it four times would cost seconds.
const robustMaxBytes = 256 << 10

func TestRobustToMangling(t *testing.T) {
	var files []string
	dirs := []string{"testdata", "testdata/realworld"}
	for _, n := range []int{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77} {
		dirs = append(dirs, "testdata/realworld-fresh"+strconv.Itoa(n))
	}
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if n := e.Name(); !e.IsDir() && n != "README.md" && n != "expect.tsv" && !strings.HasSuffix(n, ".json") {
				files = append(files, filepath.Join(dir, n))
			}
		}
	}
	opts := map[string]Options{}
	for _, dir := range dirs[1:] {
		for _, c := range readRealWorldFrom(t, dir) {
			opts[filepath.Join(dir, c.file)] = c.opts
		}
	}
	checked := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > robustMaxBytes {
			continue
		}
		name := filepath.Base(path)
		o := opts[path]
		orig := Run([]Input{{Name: name, Text: string(b)}}, o)
		want := signature(orig)
		ls := Lines(string(b))
		cited := citedLines(orig, name)
		for vi, v := range robustVariants {
			seed := uint64(len(b))*31 + uint64(vi)
			text := v.mangle(ls, cited, rand.New(rand.NewPCG(seed, 1)))
			if text == "" {
				continue
			}
			checked++
			got := signature(Run([]Input{{Name: name, Text: text}}, o))
			key := name + " / " + v.name
			if why, ok := robustSkips[key]; ok {
				if slices.Equal(got, want) {
					t.Logf("%s: listed as a skip (%s) but the findings are the same now", key, why)
				}
				continue
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: findings %v, want %v as unmangled", key, got, want)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d mangled samples checked", checked)
	}
}
