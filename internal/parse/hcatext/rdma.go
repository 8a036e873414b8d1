package hcatext

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/ib"
	"github.com/ibdoctor/ibdoctor/internal/model/snapshot"
)

// rdma's state names (iproute2 rdma/link.c), indexed by number.
var (
	rdmaStates = []string{"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"}
	rdmaPhys   = []string{"", "SLEEP", "POLLING", "DISABLED", "PORT_CONFIGURATION_TRAINING", "LINK_UP", "LINK_ERROR_RECOVERY", "PHY_TEST"}
)

// ParseRdma parses the iproute2 `rdma` tool's `link show` lines ("link
// mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0") and
// `statistic show` lines ("link mlx5_0/1 rx_write_requests 0 …", the
// port's hw_counters), in any mix. Older releases prefix "1/1: " and end
// the name with a colon. A statistic line wrapped onto following lines (as
// the man page prints it) is joined back.
func ParseRdma(rd io.Reader, source string) (*Result, error) {
	r := newResult(source)
	dev, port := "", 0
	pending, pendingLine, pendingN := "", "", 0 // a name whose value wrapped
	flush := func() {
		if pending != "" {
			r.skip(pendingN, pendingLine, "%q has no value (truncated line?)", pending)
			pending = ""
		}
	}
	err := r.scanLines(rd, func(n int, line string) {
		t := strings.TrimSpace(line)
		if t == "" {
			return
		}
		f := strings.Fields(t)
		// Old form: "1/1: mlx5_0/1: state …".
		if len(f) > 1 && strings.HasSuffix(f[0], ":") && strings.Contains(f[0], "/") && strings.HasSuffix(f[1], ":") {
			f = append([]string{"link", strings.TrimSuffix(f[1], ":")}, f[2:]...)
		}
		if len(f) >= 2 && f[0] == "link" {
			d, p, ok := rdmaName(f[1])
			if !ok {
				r.skip(n, line, "malformed device/port %q", f[1])
				dev = ""
				return
			}
			flush()
			dev, port = d, p
			r.port(dev, port)
			pending, pendingLine, pendingN = r.rdmaPairs(dev, port, f[2:], n, line), line, n
			return
		}
		if why, ok := isNoise(t); ok {
			r.skip(n, line, "%s", why)
			flush()
			dev = ""
			return
		}
		if pending != "" {
			f = append([]string{pending}, f...)
			pending = ""
		}
		if dev == "" || len(f)%2 != 0 || isNumber(f[0]) {
			r.skip(n, line, "not an rdma link or statistic line")
			return
		}
		// A wrapped continuation of the previous statistic line.
		pending, pendingLine, pendingN = r.rdmaPairs(dev, port, f, n, line), line, n
	})
	flush()
	return r.finish(err)
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// rdmaName splits "mlx5_0/1".
func rdmaName(s string) (string, int, bool) {
	d, ps, ok := strings.Cut(s, "/")
	if !ok || d == "" || strings.ContainsAny(d, " '") {
		return "", 0, false
	}
	p, err := strconv.Atoi(ps)
	if err != nil || p < 0 || p > 255 {
		return "", 0, false
	}
	return d, p, true
}

// rdmaPairs applies "name value" pairs of a link or statistic line and
// returns a last name left without its value ("" when none).
func (r *Result) rdmaPairs(dev string, port int, f []string, n int, line string) string {
	for i := 0; i < len(f); i += 2 {
		k := f[i]
		if i+1 >= len(f) {
			return k
		}
		v := f[i+1]
		if err := r.rdmaField(r.port(dev, port), k, v, n, line); err != nil {
			r.skip(n, line, "%v", err)
		}
	}
	return ""
}

func (r *Result) rdmaField(p *snapshot.Port, k, v string, n int, line string) error {
	switch k {
	case "state":
		i, ok := readState(v, portStateAliases)
		if !ok {
			return fmt.Errorf("unknown state %q", v)
		}
		st := ib.PortState(i)
		p.State = &st
		r.note(portPath(p.Device, p.Number, "state"), n, line)
	case "physical_state":
		i, ok := readState(v, physStateAliases)
		if !ok {
			return fmt.Errorf("unknown physical_state %q", v)
		}
		ph := ib.PhysState(i)
		p.PhysState = &ph
		r.note(portPath(p.Device, p.Number, "phys_state"), n, line)
	case "netdev":
		p.NetDev = v
	case "netdev_index", "subnet_prefix":
	case "lid":
		x, err := parseUint(v, 16)
		if err != nil {
			return err
		}
		p.LID = u32(x)
	case "sm_lid":
		x, err := parseUint(v, 16)
		if err != nil {
			return err
		}
		p.SMLID = u32(x)
		r.note(portPath(p.Device, p.Number, "sm_lid"), n, line)
	case "lmc":
		x, err := parseUint(v, 3)
		if err != nil {
			return err
		}
		p.LMC = u8(x)
	default:
		x, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("counter %s: bad value %q", k, v)
		}
		c := snapshot.Counter{Name: k, Value: x, Spec: ib.HWCounterSpec(k)}
		// A port shown twice (two pastes of the same command) keeps the
		// later value.
		if i := slices.IndexFunc(p.HWCounters, func(o snapshot.Counter) bool { return o.Name == k }); i >= 0 {
			p.HWCounters[i] = c
		} else {
			p.HWCounters = append(p.HWCounters, c)
		}
		r.note(portPath(p.Device, p.Number, "hw_counters/"+k), n, line)
	}
	return nil
}
