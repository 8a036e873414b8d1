//go:build linux

package rootfs

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// isKernelSysfs reports whether dir/sys is a mounted sysfs (SYSFS_MAGIC),
// as under a container's --root=/host with the host's /sys bind-mounted:
// the kernel makes every link in it, so none escapes.
func isKernelSysfs(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(filepath.Join(dir, "sys"), &st); err != nil {
		return false
	}
	return st.Type == unix.SYSFS_MAGIC
}
