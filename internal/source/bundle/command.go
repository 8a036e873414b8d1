package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
)

// Limits for saved tool outputs.
const (
	// DefaultCommandTimeout applies when Command.Timeout is zero.
	DefaultCommandTimeout = 30 * time.Second
	// MaxCommandOutput caps one saved output; the rest is cut and the cut
	// recorded (rootfs.MaxBundleFileBytes accepts it on the way back).
	MaxCommandOutput = 16 << 20
	// maxStderr is how much of a command's stderr meta.json keeps.
	maxStderr = 2048
)

// Command is a tool whose output a bundle saves as cmd/<OutFile>: the hook
// for saved outputs such as `dmesg`, `ethtool -S <if>` or
// `nvidia-smi topo -m`. It runs with exec.CommandContext and a timeout,
// never through a shell. A missing tool, a failure or a timeout is recorded
// in meta.json, never fatal.
type Command struct {
	// Name identifies the command in meta.json ("dmesg").
	Name string
	// Path is the program: a name looked up in PATH, or a path.
	Path string
	// Args are passed as they are (no shell, no globbing).
	Args []string
	// Timeout bounds the run; 0 means DefaultCommandTimeout.
	Timeout time.Duration
	// OutFile is the file under cmd/ that receives stdout ("dmesg.txt"):
	// one plain name, no directories.
	OutFile string
}

// CommandResult is what meta.json records of one command.
type CommandResult struct {
	Name     string   `json:"name"`
	Argv     []string `json:"argv"`
	OutFile  string   `json:"out_file,omitempty"`
	ExitCode int      `json:"exit_code"`
	// Millis is the run time, rounded.
	Millis int64 `json:"ms"`
	// Error says why the output is missing or incomplete: "not found",
	// "timed out after 30s", the exit status, "output cut at 16777216 bytes".
	Error  string `json:"error,omitempty"`
	Stderr string `json:"stderr,omitempty"`
}

// Validate checks a command before it runs.
func (c Command) Validate() error {
	if c.Name == "" || c.Path == "" {
		return errors.New("command needs a name and a program")
	}
	if c.OutFile == "" || strings.ContainsAny(c.OutFile, `/\`) || !fs.ValidPath(c.OutFile) || c.OutFile == "." {
		return fmt.Errorf("command %s: out file %q must be one plain file name", c.Name, c.OutFile)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("command %s: negative timeout", c.Name)
	}
	for _, a := range append([]string{c.Path}, c.Args...) {
		if strings.ContainsRune(a, 0) {
			return fmt.Errorf("command %s: NUL in argument", c.Name)
		}
	}
	return nil
}

// limitedBuffer keeps the first max bytes and counts the rest.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.cut = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (c *collector) runCommands(cmds []Command) []CommandResult {
	out := make([]CommandResult, 0, len(cmds))
	seen := map[string]bool{}
	for _, cmd := range cmds {
		res := CommandResult{Name: cmd.Name, Argv: append([]string{cmd.Path}, cmd.Args...), OutFile: layout.CmdDir + "/" + cmd.OutFile}
		if err := cmd.Validate(); err != nil {
			res.OutFile, res.Error, res.ExitCode = "", err.Error(), -1
			out = append(out, res)
			continue
		}
		if seen[cmd.OutFile] {
			res.OutFile, res.Error, res.ExitCode = "", fmt.Sprintf("out file %q used twice", cmd.OutFile), -1
			out = append(out, res)
			continue
		}
		seen[cmd.OutFile] = true
		data, r := c.run(cmd)
		r.Name, r.Argv, r.OutFile = res.Name, res.Argv, res.OutFile
		if data != nil {
			c.entries[layout.CmdDir+"/"+cmd.OutFile] = &entry{typ: tar.TypeReg, data: data}
		} else {
			r.OutFile = ""
		}
		out = append(out, r)
	}
	return out
}

func (c *collector) run(cmd Command) ([]byte, CommandResult) {
	var res CommandResult
	prog, err := exec.LookPath(cmd.Path)
	if err != nil {
		res.ExitCode, res.Error = -1, "not found: "+cmd.Path
		return nil, res
	}
	timeout := cmd.Timeout
	if timeout == 0 {
		timeout = DefaultCommandTimeout
	}
	ctx, cancel := context.WithTimeout(c.ctx, timeout)
	defer cancel()
	x := exec.CommandContext(ctx, prog, cmd.Args...)
	x.WaitDelay = time.Second
	stdout := &limitedBuffer{max: MaxCommandOutput}
	stderr := &limitedBuffer{max: maxStderr}
	x.Stdout, x.Stderr = stdout, stderr
	start := time.Now()
	err = x.Run()
	res.Millis = time.Since(start).Round(time.Millisecond).Milliseconds()
	res.Stderr = stderr.buf.String()
	res.ExitCode = -1
	if x.ProcessState != nil {
		res.ExitCode = x.ProcessState.ExitCode()
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Error = fmt.Sprintf("timed out after %s", timeout)
	case err != nil:
		res.Error = err.Error()
	case stdout.cut:
		res.Error = fmt.Sprintf("output cut at %d bytes", MaxCommandOutput)
	}
	// An empty output is still saved: "ran and printed nothing" is news.
	return append([]byte{}, stdout.buf.Bytes()...), res
}

// NodeCommands are the tools whose saved outputs the node triage
// (`ibdoctor doctor --root bundle.tar.gz`) reads: the kernel log
// (cmd/dmesg.txt), `ethtool -S` of every RoCE port's netdev
// (cmd/ethtool-S-<netdev>.txt), with GPUs `nvidia-smi topo -m`
// (cmd/nvidia-smi-topo-m.txt) and, from the first ACTIVE InfiniBand port,
// `ibnetdiscover -p` (cmd/ibnetdiscover-p.txt), which `ibdoctor status`
// reads to name the switch port at the other end of each cable. Netdev and
// device names that are not plain names are left out rather than passed to
// a program.
func NodeCommands(s *snapshot.Snapshot) []Command {
	cmds := []Command{{Name: "dmesg", Path: "dmesg", OutFile: path.Base(layout.Dmesg)}}
	for _, nd := range layout.EthtoolNetDevs(s) {
		if validIfName(nd) {
			cmds = append(cmds, Command{Name: "ethtool -S " + nd, Path: "ethtool", Args: []string{"-S", nd}, OutFile: path.Base(layout.Ethtool(nd))})
		}
	}
	if len(s.GPUs()) > 0 {
		cmds = append(cmds, Command{Name: "nvidia-smi topo -m", Path: "nvidia-smi", Args: []string{"topo", "-m"}, OutFile: path.Base(layout.NvidiaSMITopo)})
	}
	if p := firstActiveIB(s); p != nil {
		cmds = append(cmds, Command{Name: "ibnetdiscover -p", Path: "ibnetdiscover",
			Args: []string{"-p", "-C", p.Device, "-P", strconv.Itoa(p.Number)}, OutFile: path.Base(layout.IBNetDiscoverPorts)})
	}
	return cmds
}

// firstActiveIB is the first ACTIVE InfiniBand port with a plain device
// name, nil when there is none (no fabric to sweep from).
func firstActiveIB(s *snapshot.Snapshot) *snapshot.Port {
	for i := range s.Devices {
		for j := range s.Devices[i].Ports {
			p := &s.Devices[i].Ports[j]
			if p.LinkLayer == ib.LinkLayerInfiniBand && p.IsActive() && validIfName(p.Device) {
				return p
			}
		}
	}
	return nil
}

// validIfName accepts what the kernel's dev_valid_name does (1–15 bytes,
// no '/', ':' or whitespace, not "." or "..") and refuses a leading '-', so
// a name can never read as an option.
func validIfName(n string) bool {
	if n == "" || len(n) > 15 || n == "." || n == ".." || n[0] == '-' {
		return false
	}
	for _, c := range []byte(n) {
		if c == '/' || c == ':' || c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}
