package sysfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
	"github.com/ibdoctor/ibdoctor/internal/source/layout"
)

const busPCI = layout.PCIDevices

// readGPUs finds NVIDIA display/3D controllers and Mellanox/NVIDIA
// network functions among sys/bus/pci/devices and registers them with
// their bridges (a network function that has no RDMA device is then
// visible to the rules).
func (r *reader) readGPUs() error {
	for _, e := range r.readDir(busPCI) {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		dir := busPCI + "/" + e.Name()
		vendor := parse(r, dir+"/vendor", pcie.ParseHex)
		if vendor == nil || (*vendor != pcie.VendorNVIDIA && *vendor != pcie.VendorMellanox) {
			continue
		}
		class := parse(r, dir+"/class", pcie.ParseHex)
		// NVIDIA GPUs, and every Mellanox/NVIDIA network function: one
		// without an RDMA device is an HCA whose RDMA driver is missing.
		if class == nil || !(*vendor == pcie.VendorNVIDIA && pcie.IsGPU(*class) || *vendor == pcie.VendorMellanox && pcie.IsNetwork(*class)) {
			continue
		}
		if real, ok := r.resolve(dir); ok {
			r.addPCIChain(real)
		}
	}
	return nil
}

// readPCI reads the attributes of every registered function.
func (r *reader) readPCI() error {
	for _, ref := range r.pciPath {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		r.snap.PCI = append(r.snap.PCI, r.readPCIDevice(ref))
	}
	return nil
}

func (r *reader) readPCIDevice(ref pciRef) snapshot.PCIDevice {
	dir := layout.Devices + "/" + ref.path
	d := snapshot.PCIDevice{
		Address:          ref.addr,
		Path:             ref.path,
		Parent:           ref.parent,
		Vendor:           parse(r, dir+"/vendor", pcie.ParseHex),
		DeviceID:         parse(r, dir+"/device", pcie.ParseHex),
		Class:            parse(r, dir+"/class", pcie.ParseHex),
		NUMANode:         parse(r, dir+"/numa_node", ParseNUMANode),
		CurrentLinkSpeed: r.readLinkSpeed(dir + "/current_link_speed"),
		MaxLinkSpeed:     r.readLinkSpeed(dir + "/max_link_speed"),
		CurrentLinkWidth: parse(r, dir+"/current_link_width", pcie.ParseWidth),
		MaxLinkWidth:     parse(r, dir+"/max_link_width", pcie.ParseWidth),
		Driver:           r.readLinkBase(dir + "/driver"),
		AER:              r.readAER(dir),
	}
	return d
}

// readACS reads the ACS capability from the config space of the bridges
// between GPUs and NICs that share a PCIe switch (Snapshot.P2PBridges).
// Without CAP_SYS_ADMIN the kernel returns only the 64-byte header: that
// is a gap, not a bridge without ACS.
func (r *reader) readACS() {
	byAddr := map[pcie.Address]*snapshot.PCIDevice{}
	for i := range r.snap.PCI {
		byAddr[r.snap.PCI[i].Address] = &r.snap.PCI[i]
	}
	for _, a := range r.snap.P2PBridges() {
		d := byAddr[a]
		if d == nil {
			continue
		}
		p := layout.Devices + "/" + d.Path + "/config"
		s, ok := r.read(p)
		if !ok {
			continue
		}
		acs, err := pcie.ParseACS([]byte(s))
		if err != nil {
			if errors.Is(err, pcie.ErrConfigShort) {
				err = fmt.Errorf("%w; run as root to judge PCIe ACS", err)
			}
			r.gap(p, err)
			continue
		}
		d.ACS = &acs
	}
}

// ParseNUMANode parses numa_node, "%d\n"; -1 means unknown.
func ParseNUMANode(in string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(in))
	if err != nil || n < -1 || n > 1<<16 {
		return 0, fmt.Errorf("%w: numa_node %q (want -1 or a node number)", pcie.ErrMalformed, in)
	}
	return n, nil
}

// readLinkSpeed reads a link speed; the kernel's "Unknown" is no value, not
// a gap.
func (r *reader) readLinkSpeed(p string) *pcie.Speed {
	s, ok := r.read(p)
	if !ok {
		return nil
	}
	v, err := pcie.ParseSpeed(s)
	if err != nil {
		if !errors.Is(err, pcie.ErrUnknown) {
			r.gap(p, err)
		}
		return nil
	}
	return &v
}

// readLinkBase returns the base name of a symlink's target ("mlx5_core"
// for driver -> ../../../bus/pci/drivers/mlx5_core), "" when absent.
func (r *reader) readLinkBase(p string) string {
	t, err := fs.ReadLink(r.fsys, p)
	if err != nil {
		r.fail(p, err)
		return ""
	}
	return path.Base(t)
}

// aerFiles are the AER statistics files (kernel 4.19+) and the key prefix
// of their bits in AER.Bits.
var aerFiles = []struct{ file, kind string }{
	{"aer_dev_correctable", "correctable"},
	{"aer_dev_nonfatal", "nonfatal"},
	{"aer_dev_fatal", "fatal"},
}

// readAER reads the three aer_dev_* files. Bits holds the non-zero bits as
// "<kind>:<name>" ("correctable:RxErr", "nonfatal:Poisoned TLP"), since
// fatal and non-fatal share their names. nil when the device has no AER
// statistics.
func (r *reader) readAER(dir string) *snapshot.AER {
	var out *snapshot.AER
	if r.aerNames == nil {
		r.aerNames = make([]string, 0, 64)
	}
	for _, f := range aerFiles {
		p := dir + "/" + f.file
		s, ok := r.read(p)
		if !ok {
			continue
		}
		var bits map[string]uint64
		total, err := scanAER(s, f.file, r.aerNames, func(name string, n uint64) {
			if n > 0 {
				if bits == nil {
					bits = map[string]uint64{}
				}
				bits[f.kind+":"+name] = n
			}
		})
		if err != nil {
			r.gap(p, err)
			continue
		}
		if out == nil {
			out = &snapshot.AER{}
		}
		switch f.kind {
		case "correctable":
			out.Correctable = total
		case "nonfatal":
			out.NonFatal = total
		case "fatal":
			out.Fatal = total
		}
		for k, n := range bits {
			if out.Bits == nil {
				out.Bits = map[string]uint64{}
			}
			out.Bits[k] = n
		}
	}
	return out
}
