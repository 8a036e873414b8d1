package node

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/source/layout"
)

// Unlimited is RLIM_INFINITY for Process limits.
const Unlimited = math.MaxUint64

// Process is the training job the node runs: proc/<PID>/limits, environ
// and cmdline; proc/self links to it, so a reader of the root sees the
// job as the current process.
type Process struct {
	PID     int
	Cmdline []string
	// Env is the environment, "KEY=VALUE" in order.
	Env []string
	// MemlockSoft and MemlockHard are RLIMIT_MEMLOCK in bytes (Unlimited
	// for "unlimited"); RDMA memory registration needs them large.
	MemlockSoft, MemlockHard uint64
}

// Getenv returns the value of key in the job's environment.
func (p *Process) Getenv(key string) (string, bool) {
	for _, kv := range p.Env {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v, true
		}
	}
	return "", false
}

// Setenv sets key, replacing an earlier value in place.
func (p *Process) Setenv(key, value string) {
	for i, kv := range p.Env {
		if k, _, _ := strings.Cut(kv, "="); k == key {
			p.Env[i] = key + "=" + value
			return
		}
	}
	p.Env = append(p.Env, key+"="+value)
}

// Unsetenv removes key and reports whether it was set.
func (p *Process) Unsetenv(key string) bool {
	for i, kv := range p.Env {
		if k, _, _ := strings.Cut(kv, "="); k == key {
			p.Env = append(p.Env[:i], p.Env[i+1:]...)
			return true
		}
	}
	return false
}

func defaultJob(n *Node) *Process {
	gpus := make([]string, len(n.GPUs()))
	for i := range gpus {
		gpus[i] = strconv.Itoa(i)
	}
	return &Process{
		PID:     48213,
		Cmdline: []string{"/usr/bin/python3", "-u", "train.py", "--config", "configs/llm-70b.yaml"},
		Env: []string{
			"PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"HOME=/root",
			"LANG=C.UTF-8",
			"HOSTNAME=" + n.Host,
			"CUDA_VISIBLE_DEVICES=" + strings.Join(gpus, ","),
			"NCCL_DEBUG=WARN",
		},
		MemlockSoft: Unlimited, MemlockHard: Unlimited,
	}
}

// limitsText renders proc/<pid>/limits as proc_pid_limits
// (fs/proc/base.c) does: "%-25s %-20s %-20s %-10s\n" for the header, then
// per limit "%-25s %-20lu " (or "unlimited") twice and the unit.
func (p *Process) limitsText() string {
	type lim struct {
		name       string
		soft, hard uint64
		unit       string
	}
	const inf = Unlimited
	lims := []lim{
		{"Max cpu time", inf, inf, "seconds"},
		{"Max file size", inf, inf, "bytes"},
		{"Max data size", inf, inf, "bytes"},
		{"Max stack size", 8388608, inf, "bytes"},
		{"Max core file size", 0, inf, "bytes"},
		{"Max resident set", inf, inf, "bytes"},
		{"Max processes", 2063438, 2063438, "processes"},
		{"Max open files", 1048576, 1048576, "files"},
		{"Max locked memory", p.MemlockSoft, p.MemlockHard, "bytes"},
		{"Max address space", inf, inf, "bytes"},
		{"Max file locks", inf, inf, "locks"},
		{"Max pending signals", 2063438, 2063438, "signals"},
		{"Max msgqueue size", 819200, 819200, "bytes"},
		{"Max nice priority", 0, 0, ""},
		{"Max realtime priority", 0, 0, ""},
		{"Max realtime timeout", inf, inf, "us"},
	}
	val := func(v uint64) string {
		if v == inf {
			return "unlimited"
		}
		return strconv.FormatUint(v, 10)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-25s %-20s %-20s %-10s\n", "Limit", "Soft Limit", "Hard Limit", "Units")
	for _, l := range lims {
		fmt.Fprintf(&b, "%-25s %-20s %-20s ", l.name, val(l.soft), val(l.hard))
		if l.unit != "" {
			fmt.Fprintf(&b, "%-10s", l.unit)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// nulJoin renders environ and cmdline: each string NUL-terminated.
func nulJoin(ss []string) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s)
		b.WriteByte(0)
	}
	return b.String()
}

// uptimeText renders proc/uptime: "%lu.%02lu %lu.%02lu\n", uptime and the
// idle time summed over CPUs (here 200 of 224 CPUs idle).
func uptimeText(up time.Duration) string {
	cs := up.Milliseconds() / 10
	idle := cs * 200
	return fmt.Sprintf("%d.%02d %d.%02d\n", cs/100, cs%100, idle/100, idle%100)
}

func (n *Node) renderProc(r *renderer) {
	r.file(layout.Uptime, uptimeText(n.Uptime))
	if n.Job == nil {
		return
	}
	dir := layout.PIDDir(n.Job.PID)
	r.file(dir+"/"+layout.LimitsFile, n.Job.limitsText())
	r.file(dir+"/"+layout.EnvironFile, nulJoin(n.Job.Env))
	r.file(dir+"/"+layout.CmdlineFile, nulJoin(n.Job.Cmdline))
	r.m[layout.ProcSelf] = Entry{Path: layout.ProcSelf, Kind: KindSymlink, Target: strconv.Itoa(n.Job.PID)}
}
