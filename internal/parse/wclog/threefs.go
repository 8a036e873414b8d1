package wclog

import "strings"

// PortAddr is a line of DeepSeek 3FS's IBDevice (src/common/net/ib/
// IBDevice.cc) saying an RDMA port has no IP address where the service
// runs, or what follows from it:
//
//	IBDevice.cc:386 WARNING] IfAddr of mlx5_0:1 -> Bond0 not found, maybe running in container!
//	IBDevice.cc:... WARNING] IBDevice mlx5_0:1's netdev is unknown, maybe running in container.
//	IBDevice.cc:441 CRITICAL] IBDevice mlx5_0:1 can't set zone by IP, fallback to UNKNOWN
//	IBDevice.cc:... CRITICAL] IBDevice mlx5_0:1's zone is unknown!!!
//	IBDevice.cc:... ERR] mlx5_0:1 RoCE v2 GID not found
//
// The first two: ibdev2netdev maps the port to a network device that has
// no address in this network namespace, or to none; the third: no
// configured subnet matches, so the port's network zone falls back to
// the default (UNKNOWN). The last two stop the device from being opened
// (IBDevice::open returns kInvalidConfig, or the RoCE v2 GID query fails).
type PortAddr struct {
	Line   int
	Text   string
	Device string // "mlx5_0:1"
	Netdev string // "Bond0" (the IfAddr line only)
	// Fatal: the device was not opened (zone unknown without
	// allow_unknown_zone, no RoCE v2 GID).
	Fatal bool
	// Zone: the line is the zone fallback, not a missing address.
	Zone bool
}

// PortAddrLine reads one such line (Line left 0).
func PortAddrLine(l string) (PortAddr, bool) {
	if !strings.Contains(l, "IBDevice") && !strings.Contains(l, "IfAddr of ") && !strings.Contains(l, "RoCE v2 GID not found") {
		return PortAddr{}, false
	}
	p := PortAddr{Text: l}
	port := func(s string) string {
		d, _, _ := strings.Cut(strings.TrimSpace(s), " ")
		d = strings.TrimSuffix(d, "'s")
		if dev, num, ok := strings.Cut(d, ":"); !ok || !reNIC.MatchString(dev) || num == "" || strings.Trim(num, "0123456789") != "" {
			return ""
		}
		return d
	}
	if _, rest, ok := strings.Cut(l, "IfAddr of "); ok && strings.Contains(rest, " not found") {
		dev, after, _ := strings.Cut(rest, " -> ")
		p.Device = port(dev)
		p.Netdev, _, _ = strings.Cut(after, " ")
		return p, p.Device != "" && p.Netdev != ""
	}
	if _, rest, ok := strings.Cut(l, "IBDevice "); ok {
		switch {
		case strings.Contains(rest, "'s netdev is unknown"):
		case strings.Contains(rest, " can't set zone by IP"):
			p.Zone = true
		case strings.Contains(rest, "'s zone is unknown"):
			p.Zone, p.Fatal = true, true
		default:
			return PortAddr{}, false
		}
		p.Device = port(rest)
		return p, p.Device != ""
	}
	if i := strings.Index(l, " RoCE v2 GID not found"); i > 0 {
		f := strings.Fields(l[:i])
		p.Device, p.Fatal = port(f[len(f)-1]), true
		return p, p.Device != ""
	}
	return PortAddr{}, false
}
