package testenv

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// IBSim is a running ibsim (its console on a pipe) with its own socket
// name, and the environment that attaches infiniband-diags and OpenSM to
// it through libumad2sim.so. Tools run in Dir, where libumad2sim leaves
// its sys-<pid> trees.
type IBSim struct {
	t       testing.TB
	Dir     string
	Env     []string
	Sock    string
	console io.WriteCloser
	mu      sync.Mutex
	log     bytes.Buffer
}

// StartGroup starts cmd in its own process group and kills the group when
// the test ends.
func StartGroup(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Errorf("%s did not exit", cmd.Path)
		}
	})
}

var sockUnsafe = regexp.MustCompile(`[^A-Za-z0-9]+`)

// UMAD2Sim is the preload library Debian's ibsim-utils installs ("" when
// missing: the test is skipped, or fails on CI).
func UMAD2Sim(t testing.TB) string {
	t.Helper()
	libs, _ := filepath.Glob("/usr/lib/*/umad2sim/libumad2sim.so")
	if len(libs) == 0 {
		if OnCI() {
			t.Fatal("libumad2sim.so missing (ibsim-utils)")
		}
		t.Skip("libumad2sim.so missing (ibsim-utils)")
	}
	return libs[0]
}

// StartIBSim runs ibsim on net (an ibsim topology file's text; -I when
// ignoreDuplicates) until the test ends, and waits until it is ready.
func StartIBSim(t testing.TB, net []byte, ignoreDuplicates bool) *IBSim {
	t.Helper()
	ibsim := NeedTool(t, "ibsim")
	NeedTool(t, "opensm")
	NeedTool(t, "ibnetdiscover")
	lib := UMAD2Sim(t)
	s := &IBSim{t: t, Dir: t.TempDir()}
	netFile := filepath.Join(s.Dir, "net")
	if err := os.WriteFile(netFile, net, 0o644); err != nil {
		t.Fatal(err)
	}
	s.Sock = fmt.Sprintf("ibdoctor%d%s", os.Getpid(), sockUnsafe.ReplaceAllString(t.Name(), ""))
	s.Env = []string{"IBSIM_SOCKNAME=" + s.Sock, "LD_PRELOAD=" + lib, "OSM_CACHE_DIR=" + s.Dir}
	args := []string{"-s", netFile}
	if ignoreDuplicates {
		args = append([]string{"-I"}, args...)
	}
	cmd := exec.Command(ibsim, args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), "IBSIM_SOCKNAME="+s.Sock)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.console = in
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
	}()
	StartGroup(t, cmd)
	t.Cleanup(func() { pw.Close() })
	s.WaitLog("Network simulator ready", 15*time.Second)
	return s
}

// WaitLog waits until ibsim's console output holds what.
func (s *IBSim) WaitLog(what string, d time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		ok := strings.Contains(s.log.String(), what)
		s.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t.Fatalf("ibsim: no %q within %s; log:\n%s", what, d, s.log.String())
}

// Do sends a console command and waits for ibsim's answer.
func (s *IBSim) Do(cmd, answer string) {
	s.t.Helper()
	if _, err := io.WriteString(s.console, cmd+"\n"); err != nil {
		s.t.Fatal(err)
	}
	s.WaitLog(answer, 5*time.Second)
}

// Tool runs an infiniband-diags tool (or OpenSM) against the simulator.
func (s *IBSim) Tool(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// StartSM runs OpenSM with a real routing engine for the test's duration
// and waits until sminfo sees it as master.
func (s *IBSim) StartSM(engine string) {
	s.t.Helper()
	s.StartSMConf(engine, "")
}

// StartSMConf is StartSM with extra opensm.conf lines.
func (s *IBSim) StartSMConf(engine, extra string) {
	s.t.Helper()
	opensm, _ := exec.LookPath("opensm")
	// force_log_flush: the log is read while OpenSM runs (SUBNET UP).
	conf := filepath.Join(s.Dir, "opensm.conf")
	if err := os.WriteFile(conf, []byte("force_log_flush TRUE\n"+extra), 0o644); err != nil {
		s.t.Fatal(err)
	}
	cmd := exec.Command(opensm, "-F", conf, "-R", engine, "-f", filepath.Join(s.Dir, "opensm.log"), "-s", "0")
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	StartGroup(s.t, cmd)
	s.WaitSM()
}

// WaitSM waits until sminfo sees a master SM and OpenSM's first sweep
// has ended.
func (s *IBSim) WaitSM() {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out, err := s.Tool(ctx, "sminfo")
		cancel()
		log, _ := os.ReadFile(filepath.Join(s.Dir, "opensm.log"))
		// "SUBNET UP" ends OpenSM's first heavy sweep: LIDs and tables set.
		if err == nil && strings.Contains(out, "SMINFO_MASTER") && bytes.Contains(log, []byte("SUBNET UP")) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.t.Fatal("OpenSM did not become master within 20s")
}
