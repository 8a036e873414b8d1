// Package rootfs opens a node root — a live directory such as "/" or a
// support bundle (.tar.gz written by 'ibdoctor collect') — as an fs.FS with
// root-relative paths ("sys/class/infiniband"), so every node source reads
// the same way from a live host and from a bundle.
//
// A directory root is opened with os.OpenRoot, so no path or symlink can
// escape it. A bundle is untrusted input: it is unpacked in memory under
// fixed limits (MaxBundleFiles, MaxBundleBytes, MaxBundleFileBytes), and
// entries with "..", absolute paths, devices, fifos, hard links, duplicates
// or symlinks that resolve outside the root are rejected with an error that
// names the tar entry. Nothing is ever written to disk.
//
// EvalSymlinks resolves sysfs' relative symlinks inside any fs.FS, and
// ReadAttr is the one bounded reader for attribute files.
package rootfs
