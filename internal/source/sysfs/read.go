package sysfs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
)

// ErrNoSys is returned for a root without a sys/ directory: nothing there
// can be read.
var ErrNoSys = errors.New("root has no sys/ directory")

// Options tune Read.
type Options struct {
	// Root is recorded as Snapshot.Root (the directory or bundle path).
	Root string
	// Now gives Snapshot.Taken; nil means time.Now.
	Now func() time.Time
	// Handles, when set, keeps the files Refresh reads open between
	// calls; Read reads its attributes through it too (the files only a
	// full read reads are kept while there is room for them: maxStatic).
	Handles *Handles
	// QuasiStatic, above 1, spreads Refresh's reads of the attributes
	// that change only when a link retrains or is reconfigured — a port's
	// LID, SM LID, SM SL and LMC; a net device's MTU, type, address and
	// speed; a PCI function's current link speed and width — over that
	// many calls: a call reads those of the ports, net devices and PCI
	// functions whose position plus Pass is a multiple of QuasiStatic, so
	// each is read at least once every QuasiStatic calls with consecutive
	// Pass values. A cheap change signal reads them at once: a port whose
	// state or physical state changed, a net device whose operstate,
	// carrier or carrier_changes changed, a PCI function whose AER counts
	// changed. 0 or 1: every call reads them all. Read always reads all.
	QuasiStatic int
	Pass        int
	// AEREvery, above 1, makes Refresh read a PCI function's AER counters
	// only in the calls where its position plus Pass is a multiple of
	// AEREvery, and AERNow in every call where it is set. It is for
	// callers that follow the kernel log: the kernel logs AER errors as it
	// counts them (drivers/pci/pcie/aer.c aer_print_error, cper_print_aer
	// for firmware-first reports; rate-limited to bursts, so the first of
	// a burst at least), and such a caller sets AERNow after a log that
	// reported one. 0 or 1: every call reads them all.
	AEREvery int
	AERNow   bool
	// Config makes Refresh also read again what changes without a device,
	// port or net device coming or going: each device's identity
	// attributes (fw_ver, hca_type, board_id, hw_rev, node_desc, the GUIDs)
	// and each port's capability mask, GID table (RoCE GIDs follow the net
	// device's addresses) and P_Key table (the subnet manager programs
	// it). Only the PCI chain, the port list and the net device list stay
	// as prev has them.
	Config bool
	// ReadACS reads the PCIe ACS capability from the config space of the
	// bridges between GPUs and NICs (PCIDevice.ACS), for the doctor. Off,
	// no config file is read: without root each would be a gap, noise for
	// callers that do not judge ACS (check, status, the agent).
	ReadACS bool
}

// Read reads the snapshot of the root fsys. Only a root without sys/, or a
// cancelled ctx, is an error; everything else degrades into Snapshot.Gaps.
func Read(ctx context.Context, fsys fs.FS, opts Options) (*snapshot.Snapshot, error) {
	info, err := fs.Stat(fsys, "sys")
	if err != nil || !info.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return nil, fmt.Errorf("%s: %w: %v", rootName(opts.Root), ErrNoSys, ErrText(err))
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	// Every directory the read opens a file in stays open until it ends.
	cached := rootfs.Cache(fsys)
	defer cached.Close()
	r := &reader{
		ctx:    ctx,
		fsys:   cached,
		snap:   &snapshot.Snapshot{Root: opts.Root, Taken: now()},
		pci:    map[pcie.Address]bool{},
		gaps:   map[string]bool{},
		listed: map[string]bool{},
		// Counters are read through kept files, which Refresh
		// reads next.
		handles: opts.Handles,
	}
	if r.handles != nil {
		r.handles.next()
	}
	r.readMeta()
	if note := rootfs.BundleNote(fsys); note != "" {
		r.gap("meta.json", errors.New(note))
	}
	r.readHost()
	if err := r.readDevices(); err != nil {
		return nil, err
	}
	if err := r.readGPUs(); err != nil {
		return nil, err
	}
	if err := r.readNetDevs(); err != nil {
		return nil, err
	}
	if err := r.readPCI(); err != nil {
		return nil, err
	}
	if opts.ReadACS {
		r.readACS()
	}
	r.mapPortNetDevs()
	r.addListedMetaGaps()
	if r.snap.Devices == nil {
		r.snap.Devices = []snapshot.Device{}
	}
	if r.snap.PCI == nil {
		r.snap.PCI = []snapshot.PCIDevice{}
	}
	if r.snap.NetDevs == nil {
		r.snap.NetDevs = []snapshot.NetDev{}
	}
	if r.snap.Gaps == nil {
		r.snap.Gaps = []snapshot.Gap{}
	}
	r.snap.Sort()
	return r.snap, nil
}

// ReadRoot opens a directory or bundle with rootfs.Open and reads it.
func ReadRoot(ctx context.Context, root string) (*snapshot.Snapshot, error) {
	rt, err := rootfs.Open(root)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	return Read(ctx, rt.FS(), Options{Root: root})
}

func rootName(s string) string {
	if s == "" {
		return "root"
	}
	return s
}

// reader holds the state of one Read.
type reader struct {
	ctx  context.Context
	fsys fs.FS
	snap *snapshot.Snapshot
	// pci are the functions whose attributes to read (the set grows while
	// devices, GPUs and net devices are found); pciPath maps them to their
	// directory below sys/devices.
	pci     map[pcie.Address]bool
	pciPath []pciRef
	gaps    map[string]bool
	meta    *bundleMeta
	// metaErrs are the files a bundle's collector could not read, by path;
	// listed are the directories the reader listed.
	metaErrs map[string]string
	listed   map[string]bool
	// netInfo keeps what mapPortNetDevs needs and NetDev does not hold.
	netInfo map[string]netExtra
	// touched are the files and directories a Refresh read that had a gap
	// in its previous snapshot (prevGaps); nil in Read.
	touched  map[string]bool
	prevGaps map[string]bool
	handles  *Handles
	// counters is set while Read reads counters/ and hw_counters/,
	// which go through handles (Refresh reads everything through them).
	counters bool
	// config is set while Refresh reads what only a full Read reads
	// otherwise (Options.Config): those files are kept as a full read
	// keeps them.
	config bool
	// aerNames is scratch space for scanAER.
	aerNames []string
}

type pciRef struct {
	addr   pcie.Address
	path   string // below sys/devices
	parent pcie.Address
}

// gap records a file that could not be read or parsed, once per path.
func (r *reader) gap(path string, err error) {
	if r.gaps[path] {
		return
	}
	r.gaps[path] = true
	r.snap.Gaps = append(r.snap.Gaps, snapshot.Gap{Path: path, Err: ErrText(err)})
}

// ErrText is the text of an error without the path a *fs.PathError repeats
// (Gap carries the path). The bundle collector records errors with it,
// so the same failure reads the same whether it
// happened on a live host or was recorded in a bundle's meta.json.
func ErrText(err error) string {
	var pe *fs.PathError
	for errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

// read returns a file's content. A file that does not exist gives ok=false
// and no gap; any other failure gives ok=false and a gap.
func (r *reader) read(path string) (string, bool) {
	r.touch(path)
	if r.handles != nil {
		s, err := r.handles.read(r.fsys, path, (r.touched == nil || r.config) && !r.counters)
		if err != nil {
			r.fail(path, err)
			return "", false
		}
		return s, true
	}
	b, err := rootfs.ReadAttr(r.fsys, path)
	if err != nil {
		r.fail(path, err)
		return "", false
	}
	return string(b), true
}

// touch records that a Refresh read path again, when its previous
// snapshot had a gap there (only those need to be told apart).
func (r *reader) touch(path string) {
	if r.touched != nil && r.prevGaps[path] {
		r.touched[path] = true
	}
}

// readString reads a one-line attribute without its trailing newline.
func (r *reader) readString(path string) string {
	s, _ := r.read(path)
	return strings.TrimRight(s, "\n")
}

// parse reads and parses an attribute; missing gives nil, unreadable or
// malformed gives nil and a gap.
func parse[T any](r *reader, path string, p func(string) (T, error)) *T {
	v, ok := parseValue(r, path, p)
	if !ok {
		return nil
	}
	return &v
}

// parseValue is parse without the allocation of a pointer: ok is false
// where parse gives nil.
func parseValue[T any](r *reader, path string, p func(string) (T, error)) (v T, ok bool) {
	s, ok := r.read(path)
	if !ok {
		return v, false
	}
	v, err := p(s)
	if err != nil {
		r.gap(path, err)
		return v, false
	}
	return v, true
}

// bundleMeta is the subset of a bundle's meta.json (written by
// internal/bundle) the reader uses.
type bundleMeta struct {
	Host   string `json:"host"`
	Kernel string `json:"kernel"`
	Errors []struct {
		Path  string `json:"path"`
		Error string `json:"error"`
	} `json:"errors"`
}

// maxMetaBytes caps meta.json, which lists every unreadable file of a node
// and so can outgrow an attribute.
const maxMetaBytes = 4 << 20

func (r *reader) readMeta() {
	b, err := rootfs.ReadLimited(r.fsys, "meta.json", maxMetaBytes)
	if err != nil {
		r.fail("meta.json", err)
		return
	}
	var m bundleMeta
	if err := json.Unmarshal(b, &m); err != nil {
		r.gap("meta.json", err)
		return
	}
	r.meta = &m
	r.metaErrs = map[string]string{}
	for _, e := range m.Errors {
		r.metaErrs[e.Path] = e.Error
	}
}

// fail records a failed read. A file that does not exist is no gap, except
// in a bundle whose collector could not read it on the live node: meta.json
// lists those, and the gap reads as it would have there.
func (r *reader) fail(path string, err error) {
	if !errors.Is(err, fs.ErrNotExist) {
		r.gap(path, err)
		return
	}
	if e, ok := r.metaErrs[path]; ok {
		r.gap(path, errors.New(e))
	}
}

// addListedMetaGaps adds the meta.json errors of files in directories the
// reader listed: a file the collector could not read is absent from the
// bundle's listing, where the live reader would have found it and failed.
func (r *reader) addListedMetaGaps() {
	for p, e := range r.metaErrs {
		if r.listed[path.Dir(p)] {
			r.gap(p, errors.New(e))
		}
	}
}

func (r *reader) readHost() {
	host := strings.TrimSpace(r.readString(layout.Hostname))
	if host == "" {
		host = strings.TrimSpace(r.readString(layout.EtcHostname))
	}
	if host == "" && r.meta != nil {
		host = r.meta.Host
	}
	r.snap.Host = host
	r.snap.Kernel = strings.TrimSpace(r.readString(layout.OSRelease))
	if r.snap.Kernel == "" && r.meta != nil {
		r.snap.Kernel = r.meta.Kernel
	}
	r.snap.DriverVersion = strings.TrimSpace(r.readString(layout.Mlx5Version))
	r.snap.DriverSrcVersion = strings.TrimSpace(r.readString(layout.Mlx5SrcVersion))
}
