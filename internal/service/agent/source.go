package agent

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/parse/ethtool"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
	"github.com/ibdoctor/ibdoctor/internal/source/rootfs"
	"github.com/ibdoctor/ibdoctor/internal/source/sysfs"
)

// RootSource reads snapshots from an opened root (a live "/" or a
// directory a simulator keeps changing). now stamps each snapshot; nil
// means time.Now.
func RootSource(r *rootfs.Root, now func() time.Time) SnapshotFunc {
	return func(ctx context.Context) (*snapshot.Snapshot, error) {
		return sysfs.Read(ctx, r.FS(), sysfs.Options{Root: r.Name(), Now: now})
	}
}

// DefaultFullReadEvery is how often (in samples) CachedRootSource reads
// again everything that can change while no device, port or net device
// comes or goes (identities, GID and P_Key tables: sysfs.Options.Config).
const DefaultFullReadEvery = 20

// ChainEvery is how many of those re-reads make one read of the whole
// tree, the PCI chain included (every 80 samples, 20 minutes at the
// default 15 s interval): a PCI function changes without an RDMA device
// or net device coming or going only when a GPU or switch is hot-plugged.
const ChainEvery = 4

// QuasiStaticEvery is how often (in samples) CachedRootSource reads each
// quasi-static attribute between full reads when no change signal fires
// (sysfs.Options.QuasiStatic): a PCIe link that trains down, an MTU or a
// LID is seen within this many samples (one minute at the default 15 s
// interval).
const QuasiStaticEvery = 4

// CachedRootSource reads a root like RootSource, but only the first
// sample, every ChainEvery×Nth one after it and any sample where
// sysfs.Inventory changed (an RDMA device or a net device appeared or
// went) read the whole tree; every Nth sample between them (every ≤ 1:
// all of them) reads again everything but the PCI chain and the lists
// (sysfs.Options.Config); the others refresh only what
// changes from one interval to the next (port state and rate, counters,
// hw_counters, net device state every sample, and the AER counters every
// sample or, with the kernel log's news, as CachedSource says; the LIDs,
// net device MTU, type, address and speed, and the PCIe link speed and
// width a quarter of them each sample, at once on a change signal:
// sysfs.Options.QuasiStatic, QuasiStaticEvery) and keep identities, GID
// tables, the PCI chain and the net device set from the last read of them
// (sysfs.Refresh). The files stay open (at most 4,096 that Refresh reads
// and, where the process may open 16,384 files, 4,096 that only full reads
// read: GID tables, P_Keys, identities; across full reads until the
// inventory changes) and are re-read from offset 0 with one pread, and the
// directories the inventory lists stay open and are listed again from
// their start.
func CachedRootSource(r *rootfs.Root, now func() time.Time, every int) SnapshotFunc {
	return NewCachedSource(r, now, every).Read
}

// CachedSource is CachedRootSource with the kernel log's news: once the
// agent tells it (Kernel) that it follows the kernel log, the AER counters
// of the PCI functions are read a quarter at a time (QuasiStaticEvery,
// sysfs.Options.AEREvery) instead of all every sample, and all at once
// after a kernel log that reported an AER error. Without news, or after a
// kernel log that could not be read, they are read every sample.
type CachedSource struct {
	r     *rootfs.Root
	now   func() time.Time
	every int

	mu       sync.Mutex
	prev     *snapshot.Snapshot
	inv      string
	since    int
	periodic int // Config refreshes since the last full read
	h        *sysfs.Handles
	dirs     *rootfs.Cached
	kernel   bool // the last kernel log read worked
	aer      bool // and reported an AER error not yet read
}

// NewCachedSource returns the source CachedRootSource reads through.
func NewCachedSource(r *rootfs.Root, now func() time.Time, every int) *CachedSource {
	return &CachedSource{r: r, now: now, every: every, h: sysfs.NewHandles(), dirs: rootfs.Cache(r.FS())}
}

// Kernel is the news of one kernel log read: whether it was read, and
// whether it reported a PCIe AER error (Options.KernelNews).
func (c *CachedSource) Kernel(read, aer bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.kernel = read
	c.aer = c.aer || (read && aer)
}

// Read takes one snapshot (a SnapshotFunc).
func (c *CachedSource) Read(ctx context.Context) (*snapshot.Snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	opts := sysfs.Options{Root: c.r.Name(), Now: c.now, Handles: c.h}
	cur := sysfs.Inventory(c.dirs)
	if c.prev != nil && cur != c.inv {
		// A directory kept open may have gone and come back:
		// list what the paths name now.
		c.dirs.Close()
		cur = sysfs.Inventory(c.dirs)
	}
	var s *snapshot.Snapshot
	var err error
	due := c.since+1 >= c.every
	switch {
	case c.prev == nil || cur != c.inv || (due && c.periodic+1 >= ChainEvery):
		if cur != c.inv {
			c.h.Close() // devices came or went
		} else {
			c.h.ForgetAbsent() // a full read looks again
		}
		s, err = sysfs.Read(ctx, c.r.FS(), opts)
		c.since, c.periodic = 0, 0
	case due:
		// Everything that changes while the inventory stays, all at
		// once; the PCI chain every ChainEvery of these.
		c.h.ForgetAbsent()
		opts.Config = true
		s, err = sysfs.Refresh(ctx, c.r.FS(), c.prev, opts)
		c.since = 0
		c.periodic++
	default:
		c.since++
		opts.QuasiStatic, opts.Pass = QuasiStaticEvery, c.since
		if c.kernel {
			opts.AEREvery, opts.AERNow = QuasiStaticEvery, c.aer
		}
		s, err = sysfs.Refresh(ctx, c.r.FS(), c.prev, opts)
	}
	if err != nil {
		c.prev = nil // read everything again next time
		c.dirs.Close()
		return nil, err
	}
	c.aer = false
	c.prev, c.inv = s, cur
	return s, nil
}

// SavedEthtool reads `ethtool -S <netdev>` output saved under the root at
// cmd/ethtool-S-<netdev>.txt, as bundles and the simulator keep it. A file
// read the same as last time is not parsed again: the map it gave is
// returned again (callers do not modify it).
func SavedEthtool(r *rootfs.Root) EthtoolFunc {
	type parsed struct {
		data  []byte
		stats map[string]uint64
	}
	var (
		mu   sync.Mutex
		last = map[string]parsed{}
	)
	return func(_ context.Context, netdev string) (map[string]uint64, error) {
		name := layout.Ethtool(netdev)
		data, err := rootfs.ReadLimited(r.FS(), name, 4<<20)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if p, ok := last[netdev]; ok && bytes.Equal(p.data, data) {
			return p.stats, nil
		}
		st, err := ethtool.Parse(bytes.NewReader(data), netdev, name)
		if err != nil {
			delete(last, netdev)
			return nil, err
		}
		m := statsMap(st)
		last[netdev] = parsed{data: data, stats: m}
		return m, nil
	}
}

func statsMap(st *ethtool.Stats) map[string]uint64 {
	m := make(map[string]uint64, len(st.Stats))
	for _, s := range st.Stats {
		m[s.Name] = s.Value
	}
	return m
}

// EthtoolFor picks the ethtool source for a root: saved command output
// for a bundle or a root that has a cmd/ directory (bundles and simulated
// nodes), the SIOCETHTOOL ioctl otherwise — the live "/" or a host's /sys
// mounted elsewhere (--root=/host in the DaemonSet, which runs in the host's
// network namespace).
func EthtoolFor(r *rootfs.Root) EthtoolFunc {
	if r.IsBundle() {
		return SavedEthtool(r)
	}
	if fi, err := fs.Stat(r.FS(), layout.CmdDir); err == nil && fi.IsDir() {
		return SavedEthtool(r)
	}
	return liveEthtool
}

var errNoLive = fmt.Errorf("live ethtool statistics need Linux")
