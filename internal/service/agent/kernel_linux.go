//go:build linux

package agent

import (
	"context"
	"fmt"

	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
)

// LiveKernel follows a /dev/kmsg-style file at path (the ring buffer, or a
// regular file of its records). It is opened at the first Read and kept
// open, so each Read returns only new records; a failed open (no
// CAP_SYSLOG) is retried at the next Read.
func LiveKernel(path string) KernelReader { return &liveKernel{path: path} }

type liveKernel struct {
	path string
	f    *kmsg.Follower
}

func (k *liveKernel) Name() string { return k.path }

func (k *liveKernel) Read(ctx context.Context) (KernelRead, error) {
	var out KernelRead
	if k.f == nil {
		f, err := kmsg.Follow(k.path)
		if err != nil {
			return out, err
		}
		k.f = f
	}
	recs, errs, st, err := k.f.Read(ctx, maxKernelRead)
	out.Records, out.Errors, out.Lost = recs, errs, st.Lost
	if st.Overrun && st.Lost == 0 {
		out.Notes = append(out.Notes, "the ring buffer overwrote records before they were read (EPIPE)")
	}
	if st.Restarted {
		out.Notes = append(out.Notes, fmt.Sprintf("%s shrank: read again from its start", k.path))
	}
	return out, err
}

// Close closes the followed file.
func (k *liveKernel) Close() error {
	if k.f == nil {
		return nil
	}
	return k.f.Close()
}
