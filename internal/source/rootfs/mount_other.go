//go:build !linux

package rootfs

// isKernelSysfs is false off Linux: no directory there holds a live sysfs.
func isKernelSysfs(string) bool { return false }
