package wclog

import (
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/parse/hcatext"
)

// Provider is a warning libibverbs printed into a program's output when
// it could not use a device (rdma-core libibverbs/init.c,
// hcatext.VerbsWarning): "libibverbs: Warning: no userspace
// device-specific driver found for /sys/class/infiniband_verbs/uverbs1"
// (no provider library claims the device) or "Driver bnxt_re does not
// support the kernel ABI of 6 …". libibverbs prints them from
// ibv_get_device_list(3) in any program, an SPDK nvmf_tgt as well as
// ibv_devinfo.
type Provider struct {
	// Line is 1-based in the input; Text the line as read.
	Line int
	Text string
	// Kind and Name as hcatext.VerbsWarning reads them.
	Kind hcatext.VerbsWarnKind
	Name string
}

// ProviderLine reads a libibverbs warning line (Line left 0). Only the warnings that
// lose a device open an output here: "couldn't load driver" alone is
// common on hosts whose driver list names hardware they lack. "couldn't
// open config directory '/etc/libibverbs.d'." counts: libibverbs reads
// the provider libraries it may load from that directory's *.driver
// files (rdma-core libibverbs/init.c read_config), so without it a
// dynamically linked libibverbs loads none and lists no device.
func ProviderLine(l string) (Provider, bool) {
	if !strings.Contains(l, "libibverbs: W") {
		return Provider{}, false
	}
	w, ok := hcatext.VerbsWarning(l)
	if !ok || w.Kind != hcatext.VerbsNoProvider && w.Kind != hcatext.VerbsABIMismatch && w.Kind != hcatext.VerbsNoConfig {
		return Provider{}, false
	}
	return Provider{Text: l, Kind: w.Kind, Name: w.Name}, true
}

// DeviceNotFound reads ibv_devinfo's line that the device its -d option
// named is not among those libibverbs lists ("IB device 'rxe0' wasn't
// found", rdma-core libibverbs/examples/devinfo.c; rxe_cfg runs
// ibv_devinfo -d for each rxe device) and returns that device.
func DeviceNotFound(l string) (string, bool) {
	t := strings.TrimSpace(l)
	rest, ok := strings.CutPrefix(t, "IB device '")
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, "' wasn't found")
	if !ok || name == "" || strings.ContainsAny(name, "' ") {
		return "", false
	}
	return name, true
}

// NoDevice says whether a program's line reports that it found no RDMA
// device: ENODEV's strerror "No such device" (librdmacm's ucma_init
// returns ENODEV when ibv_get_device_list lists none, so SPDK prints
// "rdma_create_event_channel() failed, No such device"), "No IB devices
// found" (ibv_devinfo, perftest), perftest's "Failed to get IB devices
// list" and " Did not detect devices" (perftest, as ib_write_bw printed
// it in k8snetworkplumbingwg/sriov-cni#348), NCCL's "NET/IB : No device
// found." (src/transport/net_ib.cc), or "no RDMA device(s)" in any case.
func NoDevice(l string) bool {
	if strings.Contains(l, "No such device") || strings.Contains(l, "No IB devices found") || strings.Contains(l, "Failed to get IB devices list") ||
		strings.Contains(l, "Did not detect devices") || strings.Contains(l, "NET/IB : No device found") {
		return true
	}
	i := strings.Index(l, "RDMA device")
	return i >= 3 && strings.EqualFold(l[i-3:i], "no ")
}
