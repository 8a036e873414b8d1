package rootfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// MaxSymlinks bounds the links followed while resolving one path, as the
// kernel's MAXSYMLINKS (40) does.
const MaxSymlinks = 40

// MaxResolveSteps bounds the path elements walked while resolving one path,
// counting those of every link target: 40 links of PATH_MAX bytes each
// ("x/../x/../…") would otherwise cost 80,000 steps per lookup. A real
// sysfs lookup walks a few dozen.
const MaxResolveSteps = 1024

// ErrResolveSteps is wrapped when resolving a path needs more than
// MaxResolveSteps steps.
var ErrResolveSteps = fmt.Errorf("path resolution needs more than %d steps (MaxResolveSteps)", MaxResolveSteps)

// ErrEscapes is wrapped when a path or symlink resolves outside the root.
var ErrEscapes = errors.New("path escapes the root")

// ErrSymlinkLoop is wrapped when resolving needs more than MaxSymlinks links.
var ErrSymlinkLoop = errors.New("too many levels of symbolic links")

// EvalSymlinks returns name with every symlink in it resolved, like
// filepath.EvalSymlinks but inside fsys: targets are interpreted relative to
// the link's directory, absolute targets and targets that climb above the
// root are rejected (ErrEscapes), more than MaxSymlinks links give
// ErrSymlinkLoop and more than MaxResolveSteps path elements
// ErrResolveSteps. It needs fs.ReadLinkFS to see links; other file systems
// have none, and name only needs to exist.
//
// sysfs needs it to find where sys/class/infiniband/mlx5_0 really lives
// (sys/devices/pci0000:3a/…/0000:3b:00.0/infiniband/mlx5_0).
func EvalSymlinks(fsys fs.FS, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: "evalsymlinks", Path: name, Err: fs.ErrInvalid}
	}
	rl, _ := fsys.(fs.ReadLinkFS)
	done := "."  // resolved prefix
	todo := name // components still to walk
	links, steps := 0, 0
	for todo != "" {
		if steps++; steps > MaxResolveSteps {
			return "", &fs.PathError{Op: "evalsymlinks", Path: name, Err: ErrResolveSteps}
		}
		var elem string
		elem, todo, _ = strings.Cut(todo, "/")
		if elem == "" || elem == "." {
			continue
		}
		if elem == ".." {
			if done == "." {
				return "", &fs.PathError{Op: "evalsymlinks", Path: name, Err: ErrEscapes}
			}
			done = path.Dir(done)
			continue
		}
		next := path.Join(done, elem)
		if rl == nil {
			done = next
			continue
		}
		info, err := rl.Lstat(next)
		if err != nil {
			return "", &fs.PathError{Op: "evalsymlinks", Path: name, Err: err}
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		links++
		if links > MaxSymlinks {
			return "", &fs.PathError{Op: "evalsymlinks", Path: name, Err: ErrSymlinkLoop}
		}
		target, err := rl.ReadLink(next)
		if err != nil {
			return "", &fs.PathError{Op: "evalsymlinks", Path: name, Err: err}
		}
		// POSIX order: the target is walked from the link's directory
		// (done), its own links and ".." one element at a time.
		if target == "" || strings.HasPrefix(target, "/") {
			return "", &fs.PathError{Op: "evalsymlinks", Path: name, Err: fmt.Errorf("%s -> %s: %w", next, target, ErrEscapes)}
		}
		if todo != "" {
			todo = target + "/" + todo
		} else {
			todo = target
		}
	}
	if _, err := fs.Stat(fsys, done); err != nil {
		return "", &fs.PathError{Op: "evalsymlinks", Path: name, Err: err}
	}
	return done, nil
}

// JoinLink resolves a symlink target found in directory dir (root-relative)
// and returns the root-relative result, or ErrEscapes when the target is
// absolute or climbs above the root.
func JoinLink(dir, target string) (string, error) {
	if target == "" || strings.HasPrefix(target, "/") {
		return "", ErrEscapes
	}
	p := path.Join(dir, target)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", ErrEscapes
	}
	return p, nil
}
