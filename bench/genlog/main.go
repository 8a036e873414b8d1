// Command genlog writes a big NCCL debug log or kernel log for
// bench/analyze-big.sh, deterministically: the real sample lines of the
// analyze corpus (testdata/realworld) repeated with varying hosts, ranks
// and times, so the faults in them (completion errors, Xids, AER, link
// flaps) recur all through the file.
//
// mixed is a job log that starts with other tools' output (an mpirun
// banner, ibstat of a node and its nvidia-smi topo -m, about 230 lines)
// and goes on with the NCCL log.
//
// Usage: genlog nccl|kernel|mixed BYTES CORPUS-DIR > FILE
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: genlog nccl|kernel|mixed BYTES CORPUS-DIR")
		os.Exit(2)
	}
	size, err := strconv.ParseInt(os.Args[2], 10, 64)
	if err != nil || size <= 0 {
		fmt.Fprintln(os.Stderr, "genlog: BYTES must be a positive number")
		os.Exit(2)
	}
	var msgs []string
	var line func(i int, msg string) string
	preamble := ""
	switch os.Args[1] {
	case "mixed":
		preamble = mixedPreamble(os.Args[3])
		fallthrough
	case "nccl":
		// The message after "NCCL INFO" / "NCCL WARN", with its level.
		re := regexp.MustCompile(`NCCL (INFO|WARN) (.*)$`)
		msgs = samples(os.Args[3], "nccl-log-*.txt", func(l string) (string, bool) {
			m := re.FindStringSubmatch(strings.TrimRight(l, "`\r"))
			if m == nil {
				return "", false
			}
			return m[1] + " " + m[2], true
		})
		line = func(i int, msg string) string {
			rank := i % 64
			return fmt.Sprintf("node%03d:%d:%d [%d] NCCL %s\n", rank/8, 40000+rank, 40100+rank, rank%8, msg)
		}
	case "kernel":
		// The message after a dmesg "[ seconds]" stamp.
		re := regexp.MustCompile(`^\[\s*\d+\.\d+\] (.*)$`)
		msgs = samples(os.Args[3], "dmesg-*.txt", func(l string) (string, bool) {
			m := re.FindStringSubmatch(strings.TrimRight(l, "\r"))
			if m == nil {
				return "", false
			}
			return m[1], true
		})
		line = func(i int, msg string) string {
			us := int64(i) * 1237
			return fmt.Sprintf("[%6d.%06d] %s\n", 5+us/1e6, us%1e6, msg)
		}
	default:
		fmt.Fprintln(os.Stderr, "genlog: the kind is nccl, kernel or mixed")
		os.Exit(2)
	}
	if len(msgs) == 0 {
		fmt.Fprintln(os.Stderr, "genlog: no sample lines in", os.Args[3])
		os.Exit(1)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	w.WriteString(preamble)
	n := int64(len(preamble))
	for i := 0; n < size; i++ {
		l := line(i, msgs[i%len(msgs)])
		if n+int64(len(l)) > size {
			break
		}
		w.WriteString(l)
		n += int64(len(l))
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genlog:", err)
		os.Exit(1)
	}
}

// samples returns the messages keep finds in the corpus files matching
// glob, in file and line order.
func samples(dir, glob string, keep func(string) (string, bool)) []string {
	files, _ := filepath.Glob(filepath.Join(dir, glob))
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "genlog:", err)
			os.Exit(1)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if m, ok := keep(l); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// mixedPreamble is what a job log holds before the NCCL log: the
// launcher's banner, then ibstat and nvidia-smi topo -m of the node, run
// by the job script (real outputs of the corpus).
func mixedPreamble(dir string) string {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			fmt.Fprintln(os.Stderr, "genlog:", err)
			os.Exit(1)
		}
		return strings.TrimRight(string(b), "\n") + "\n"
	}
	var b strings.Builder
	b.WriteString("SLURM_JOB_ID=4242 SLURM_NNODES=8 SLURM_NTASKS=64\n")
	b.WriteString("Data for JOB [4242,1] offset 0 Total slots allocated 64\n")
	b.WriteString(" ========================   JOB MAP   ========================\n")
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&b, " Data for node: node%03d\tNum slots: 8\tMax slots: 0\tNum procs: 8\n", i)
	}
	b.WriteString(" =============================================================\n\n")
	b.WriteString("$ ibstat\n")
	b.WriteString(read("ibstat-gpud-testdata-h100-polling.txt"))
	b.WriteString("$ nvidia-smi topo -m\n")
	b.WriteString(read("nvidia-smi-topo-nccl933-h100-9nic.txt"))
	return b.String()
}
