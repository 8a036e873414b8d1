package bundle

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
	"github.com/ibdoctor/ibdoctor/internal/source/tarball"
)

// FormatVersion is meta.json's "format"; it grows when the layout changes
// incompatibly.
const FormatVersion = 1

// maxTreeDepth bounds the walk of an RDMA device directory
// (ports/<n>/gid_attrs/types/<i> is 5 deep).
const maxTreeDepth = 8

// Options control Collect.
type Options struct {
	// Source names the root in meta.json ("/" or a directory).
	Source string
	// Now stamps meta.json and every tar entry; nil means time.Now.
	Now func() time.Time
	// Version is the ibdoctor version recorded in meta.json.
	Version string
	// Commands are tools whose output is saved under cmd/ (see Command).
	// They run on the machine that collects, so callers pass them only
	// when the root is the live "/".
	Commands []Command
	// NodeCommands adds NodeCommands(snapshot) after Commands: the saved
	// outputs the node triage reads.
	NodeCommands bool
	// PIDs are job processes whose proc/<pid>/limits (the memlock limit
	// the doctor checks), cmdline and filtered environ are saved.
	PIDs []int
}

// jobEnvPrefixes are the environment variables of a job that a bundle
// keeps: the ones the NCCL and RDMA checks read. Everything else (tokens,
// passwords, paths) stays out of a bundle that is sent to support.
var jobEnvPrefixes = []string{"NCCL_", "UCX_", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "OMPI_MCA_btl", "OMPI_MCA_pml", "MLX5_", "IBV_", "RDMAV_", "HOSTNAME="}

// filterEnviron keeps only jobEnvPrefixes entries of a NUL-separated
// proc/<pid>/environ.
func filterEnviron(b []byte) []byte {
	var out []byte
	for _, kv := range strings.Split(string(b), "\x00") {
		for _, p := range jobEnvPrefixes {
			if strings.HasPrefix(kv, p) {
				out = append(append(out, kv...), 0)
				break
			}
		}
	}
	return out
}

// Meta is meta.json: what was collected, from where, and what failed.
type Meta struct {
	Format    int       `json:"format"`
	Host      string    `json:"host"`
	Time      time.Time `json:"time"`
	Version   string    `json:"ibdoctor_version"`
	Kernel    string    `json:"kernel,omitempty"`
	Source    string    `json:"source"`
	Collected Collected `json:"collected"`
	// Commands are the saved tool outputs, in Options order.
	Commands []CommandResult `json:"commands"`
	// Errors are the files that could not be read, by root-relative path,
	// with the error text sysfs.ErrText gives. sysfs.Read of the bundle
	// turns them into gaps.
	Errors []FileError `json:"errors"`
	// Manifest counts the archive's other entries and bytes; the reader
	// checks it, so a cut archive is refused instead of read as a whole one.
	Manifest *rootfs.Manifest `json:"manifest"`
}

// Collected counts what the bundle holds.
type Collected struct {
	Devices  int `json:"rdma_devices"`
	Ports    int `json:"ports"`
	PCI      int `json:"pci_functions"`
	GPUs     int `json:"gpus"`
	NetDevs  int `json:"netdevs"`
	Files    int `json:"files"`
	Symlinks int `json:"symlinks"`
}

// FileError is one file that could not be read.
type FileError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Collect reads the root fsys and writes the bundle to w. Only a root that
// sysfs.Read cannot use, a cancelled ctx or a failing writer is an error;
// unreadable files and failing commands are recorded in the returned Meta
// (also written as meta.json).
func Collect(ctx context.Context, fsys fs.FS, w io.Writer, opts Options) (*Meta, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	stamp := now().UTC().Truncate(time.Second)
	snap, err := sysfs.Read(ctx, fsys, sysfs.Options{Root: opts.Source, Now: func() time.Time { return stamp }})
	if err != nil {
		return nil, err
	}
	c := &collector{ctx: ctx, fsys: fsys, entries: map[string]*entry{}, pids: opts.PIDs}
	meta := &Meta{
		Format: FormatVersion, Host: snap.Host, Time: stamp, Version: opts.Version,
		Kernel: snap.Kernel, Source: opts.Source, Commands: []CommandResult{},
	}
	if err := c.collect(snap); err != nil {
		return nil, err
	}
	cmds := opts.Commands
	if opts.NodeCommands {
		cmds = append(slices.Clip(cmds), NodeCommands(snap)...)
	}
	meta.Commands = c.runCommands(cmds)
	meta.Collected = Collected{Devices: len(snap.Devices), PCI: len(snap.PCI), GPUs: len(snap.GPUs()), NetDevs: len(snap.NetDevs)}
	for _, d := range snap.Devices {
		meta.Collected.Ports += len(d.Ports)
	}
	for _, e := range c.entries {
		switch e.typ {
		case tar.TypeReg:
			meta.Collected.Files++
		case tar.TypeSymlink:
			meta.Collected.Symlinks++
		}
	}
	slices.SortFunc(c.errs, func(a, b FileError) int { return strings.Compare(a.Path, b.Path) })
	meta.Errors = c.errs
	if meta.Errors == nil {
		meta.Errors = []FileError{}
	}
	c.addDirs()
	meta.Manifest = &rootfs.Manifest{}
	for _, e := range c.entries {
		meta.Manifest.Entries++
		meta.Manifest.Bytes += int64(len(e.data))
	}
	mb, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return nil, err
	}
	c.entries["meta.json"] = &entry{typ: tar.TypeReg, data: append(mb, '\n')}
	if err := c.write(w, stamp); err != nil {
		return nil, err
	}
	return meta, nil
}

// entry is one tar member.
type entry struct {
	typ    byte
	data   []byte
	target string
}

type collector struct {
	ctx     context.Context
	fsys    fs.FS
	entries map[string]*entry
	errs    []FileError
	failed  map[string]bool
	pids    []int
}

func (c *collector) fail(p string, err error) {
	if c.failed == nil {
		c.failed = map[string]bool{}
	}
	if c.failed[p] {
		return
	}
	c.failed[p] = true
	c.errs = append(c.errs, FileError{Path: p, Error: sysfs.ErrText(err)})
}

func (c *collector) collect(snap *snapshot.Snapshot) error {
	// proc/uptime and the btime line of proc/stat date the kernel log's
	// monotonic stamps.
	for _, p := range []string{layout.Hostname, layout.OSRelease, layout.Modules, layout.Uptime, layout.EtcHostname, layout.Cmdline, layout.Mlx5Version, layout.Mlx5SrcVersion} {
		c.copyFile(p, p, true)
	}
	if b, err := rootfs.ReadLimited(c.fsys, layout.Stat, 1<<20); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "btime ") {
				c.entries[layout.Stat] = &entry{typ: tar.TypeReg, data: []byte(line + "\n")}
			}
		}
	}
	for _, pid := range c.pids {
		dir := layout.PIDDir(pid)
		limits, cmdline, environ := path.Join(dir, layout.LimitsFile), path.Join(dir, layout.CmdlineFile), path.Join(dir, layout.EnvironFile)
		c.copyFile(limits, limits, false)
		c.copyFile(cmdline, cmdline, true)
		if b, err := rootfs.ReadLimited(c.fsys, environ, 1<<20); err != nil {
			c.fail(environ, err)
		} else {
			c.entries[environ] = &entry{typ: tar.TypeReg, data: filterEnviron(b)}
		}
	}
	for _, d := range snap.Devices {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		logical := layout.ClassInfiniband + "/" + d.Name
		real, ok := c.link(logical)
		if !ok {
			continue
		}
		c.copyTree(logical, real, 0)
	}
	for _, p := range snap.PCI {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		dir := layout.Devices + "/" + p.Path
		c.link(layout.PCIDevices + "/" + string(p.Address))
		c.copyAttrs(dir, dir, nil)
	}
	c.copyConfigs(snap)
	c.copyClass(layout.ClassVerbs)
	c.copyClass(layout.ClassIOMMU)
	c.copyDevMarkers(layout.DevInfiniband)
	c.copySaved(layout.CmdDir)
	// Every interface, the virtual ones (lo, docker0, bonds) included: the
	// NCCL_SOCKET_IFNAME check needs the whole list.
	netEnts, err := fs.ReadDir(c.fsys, layout.ClassNet)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.fail(layout.ClassNet, err)
	}
	for _, n := range netEnts {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		logical := layout.ClassNet + "/" + n.Name()
		real, ok := c.link(logical)
		if !ok {
			continue
		}
		c.copyAttrs(logical, real, []string{"statistics"})
	}
	return nil
}

// copyConfigs saves the config space of the bridges between GPUs and NICs
// that share a PCIe switch (where the doctor reads PCIe ACS): the first
// pcie.ConfigSize bytes, as the collecting user can read them (64 bytes
// without root; the reader then reports the gap).
func (c *collector) copyConfigs(snap *snapshot.Snapshot) {
	for _, a := range snap.P2PBridges() {
		d := snap.PCIDevice(a)
		if d == nil {
			continue
		}
		p := layout.Devices + "/" + d.Path + "/config"
		f, err := c.fsys.Open(p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				c.fail(p, err)
			}
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, pcie.ConfigSize))
		f.Close()
		if err != nil {
			c.fail(p, err)
			continue
		}
		c.entries[p] = &entry{typ: tar.TypeReg, data: b}
	}
}

// copyClass copies a sys/class directory: its files, its symlinks, and the
// attributes of the device directory each symlink leads to
// (sys/class/infiniband_verbs/uverbs0 -> …/infiniband_verbs/uverbs0 with
// ibdev, abi_version, dev). A class that does not exist is skipped.
func (c *collector) copyClass(dir string) {
	ents, err := fs.ReadDir(c.fsys, dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.fail(dir, err)
		}
		return
	}
	c.entries[dir] = &entry{typ: tar.TypeDir}
	for _, e := range ents {
		p := dir + "/" + e.Name()
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			if real, ok := c.link(p); ok {
				c.copyAttrs(p, real, nil)
			}
		case e.Type().IsRegular():
			c.copyFile(p, p, false)
		}
	}
}

// copyDevMarkers records the device nodes of dir (dev/infiniband) as empty
// regular files: a bundle says that uverbs0 and rdma_cm existed, which is
// what a container check needs, without holding device nodes (which
// rootfs refuses) or opening them.
func (c *collector) copyDevMarkers(dir string) {
	ents, err := fs.ReadDir(c.fsys, dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.fail(dir, err)
		}
		return
	}
	c.entries[dir] = &entry{typ: tar.TypeDir}
	for _, e := range ents {
		if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			c.entries[dir+"/"+e.Name()] = &entry{typ: tar.TypeReg, data: []byte{}}
		}
	}
}

// copySaved carries over saved tool outputs a root already holds (a
// bundle being re-packed, a simulated node): regular files directly in
// dir, up to MaxCommandOutput each. Commands run by this collect replace
// them.
func (c *collector) copySaved(dir string) {
	ents, err := fs.ReadDir(c.fsys, dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.fail(dir, err)
		}
		return
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		p := dir + "/" + e.Name()
		b, err := rootfs.ReadLimited(c.fsys, p, MaxCommandOutput)
		if err != nil {
			c.fail(p, err)
			continue
		}
		c.entries[p] = &entry{typ: tar.TypeReg, data: b}
	}
}

// link copies the symlink at p (if it is one) and returns where it
// resolves. A plain directory at p is returned as is.
func (c *collector) link(p string) (string, bool) {
	info, err := fs.Lstat(c.fsys, p)
	if err != nil {
		c.fail(p, err)
		return "", false
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		c.addLink(p)
	}
	real, err := rootfs.EvalSymlinks(c.fsys, p)
	if err != nil {
		c.fail(p, err)
		return "", false
	}
	return real, true
}

// addLink stores a symlink as is, if its target stays inside the root.
func (c *collector) addLink(p string) {
	target, err := fs.ReadLink(c.fsys, p)
	if err != nil {
		c.fail(p, err)
		return
	}
	if _, err := rootfs.JoinLink(path.Dir(p), target); err != nil {
		c.fail(p, fmt.Errorf("symlink to %q: %w", target, err))
		return
	}
	c.entries[p] = &entry{typ: tar.TypeSymlink, target: target}
}

// copyFile stores one readable file. logical is the path errors name (the
// one sysfs.Read uses), real where the bundle keeps it. Optional files that
// do not exist are skipped silently.
func (c *collector) copyFile(logical, real string, optional bool) {
	b, err := rootfs.ReadAttr(c.fsys, logical)
	if err != nil {
		if !(optional && errors.Is(err, fs.ErrNotExist)) {
			c.fail(logical, err)
		}
		return
	}
	c.entries[real] = &entry{typ: tar.TypeReg, data: b}
}

// skipAttr are PCI function files that are binary, huge or have side
// effects on read, and write-only triggers.
func skipAttr(name string) bool {
	switch name {
	case "config", "rom", "vpd", "remove", "rescan", "reset", "new_id", "remove_id", "bind", "unbind":
		return true
	}
	return strings.HasPrefix(name, "resource")
}

// copyAttrs copies a device directory's attribute files and symlinks, not
// its subdirectories (child devices, queues) except those named in subdirs.
func (c *collector) copyAttrs(logical, real string, subdirs []string) {
	ents, err := fs.ReadDir(c.fsys, logical)
	if err != nil {
		c.fail(logical, err)
		return
	}
	c.entries[real] = &entry{typ: tar.TypeDir}
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			c.addLink(real + "/" + name)
		case e.IsDir():
			if slices.Contains(subdirs, name) {
				c.copyTree(logical+"/"+name, real+"/"+name, maxTreeDepth-1)
			}
		case e.Type().IsRegular():
			if skipAttr(name) || !readable(e) {
				continue
			}
			c.copyFile(logical+"/"+name, real+"/"+name, false)
		}
	}
}

// readable reports whether a sysfs attribute has any read permission;
// write-only triggers fail every read by design.
func readable(e fs.DirEntry) bool {
	info, err := e.Info()
	return err != nil || info.Mode().Perm()&0o444 != 0
}

// copyTree copies a directory recursively, keeping symlinks as links.
// Errors reading gid_attrs are not recorded: the kernel fails them with
// EINVAL for every empty GID slot, and sysfs.Read treats them as absent.
func (c *collector) copyTree(logical, real string, depth int) {
	if depth > maxTreeDepth {
		c.fail(logical, errors.New("directory nested too deep"))
		return
	}
	ents, err := fs.ReadDir(c.fsys, logical)
	if err != nil {
		c.fail(logical, err)
		return
	}
	c.entries[real] = &entry{typ: tar.TypeDir}
	quiet := strings.Contains(logical, "/gid_attrs/")
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			c.addLink(real + "/" + name)
		case e.IsDir():
			c.copyTree(logical+"/"+name, real+"/"+name, depth+1)
		case e.Type().IsRegular():
			if !readable(e) {
				continue
			}
			if quiet {
				if b, err := rootfs.ReadAttr(c.fsys, logical+"/"+name); err == nil {
					c.entries[real+"/"+name] = &entry{typ: tar.TypeReg, data: b}
				}
				continue
			}
			c.copyFile(logical+"/"+name, real+"/"+name, false)
		}
	}
}

// write emits the entries as a gzip-compressed tar, sorted by path, every
// parent directory first, all stamped with one time: the same root gives
// the same bytes.
// addDirs adds an entry for every parent directory.
func (c *collector) addDirs() {
	for p := range c.entries {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := c.entries[d]; !ok {
				c.entries[d] = &entry{typ: tar.TypeDir}
			}
		}
	}
}

// write writes the entries, meta.json first: a cut anywhere after it is
// caught by its manifest.
func (c *collector) write(w io.Writer, stamp time.Time) error {
	c.addDirs()
	names := make([]string, 0, len(c.entries))
	for p := range c.entries {
		names = append(names, p)
	}
	slices.SortFunc(names, func(a, b string) int {
		if (a == "meta.json") != (b == "meta.json") {
			if a == "meta.json" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	tw := tarball.NewWriter(w, stamp)
	for _, p := range names {
		e := c.entries[p]
		var err error
		switch e.typ {
		case tar.TypeDir:
			err = tw.Dir(p)
		case tar.TypeReg:
			err = tw.File(p, e.data, 0o444)
		case tar.TypeSymlink:
			err = tw.Symlink(p, e.target)
		}
		if err != nil {
			return fmt.Errorf("bundle %w", err)
		}
	}
	return tw.Close()
}
