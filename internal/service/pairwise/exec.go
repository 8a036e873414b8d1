package pairwise

import (
	"context"
	"io"
	"os/exec"
	"time"
)

// Executor starts the perftest programs. The agent uses OSExecutor; tests
// replace it to replay real perftest output.
type Executor interface {
	// Start starts argv[0] with argv[1:] as arguments; the process ends
	// when ctx does.
	Start(ctx context.Context, argv []string) (Process, error)
}

// Process is a started program.
type Process interface {
	// Output is the program's stdout and stderr, merged; it must be read to
	// EOF.
	Output() io.Reader
	// Wait waits for the program to exit, after Output reached EOF.
	Wait() error
}

// OSExecutor runs programs with exec.CommandContext, never through a shell.
type OSExecutor struct{}

// Start implements Executor.
func (OSExecutor) Start(ctx context.Context, argv []string) (Process, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = 2 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pw.Close()
		return nil, err
	}
	p := &osProcess{out: pr, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		pw.Close()
		close(p.done)
	}()
	return p, nil
}

type osProcess struct {
	out  *io.PipeReader
	done chan struct{}
	err  error
}

// Output implements Process.
func (p *osProcess) Output() io.Reader { return p.out }

// Wait implements Process.
func (p *osProcess) Wait() error { <-p.done; return p.err }
