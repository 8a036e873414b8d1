//go:build !linux

package agent

import (
	"context"
	"errors"
)

// LiveKernel follows /dev/kmsg, which only Linux has.
func LiveKernel(path string) KernelReader { return liveKernel(path) }

type liveKernel string

func (k liveKernel) Name() string { return string(k) }

func (liveKernel) Read(context.Context) (KernelRead, error) {
	return KernelRead{}, errors.New("following /dev/kmsg needs Linux")
}
