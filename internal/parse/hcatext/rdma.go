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
	showDev := ""   // the device of a "show_counters mlx5_1" line
	catPath := ""   // the sysfs file a "cat …" line prints next
	hwMode := false // inside a "Port 1 hw counters:" list
	var early earlyLink
	counterDir := "" // the port counters directory a prompt or cd named
	err := r.scanLines(rd, func(n int, line string) {
		t := strings.TrimSpace(line)
		if t == "" {
			if early.dev != "" {
				early.finish(r)
				dev = ""
			}
			return
		}
		if f := strings.Fields(t); early.wants(f) {
			early.add(f, n, line)
			return
		}
		if early.dev != "" {
			// What follows an early record is not a statistic
			// line's wrapped tail.
			early.finish(r)
			dev = ""
		}
		// show_counters (MLNX_OFED) prints "Port 1 hw counters:" and
		// "name: value" lines; grep prints sysfs "path:value" lines.
		if d, ok := strings.CutPrefix(t, "show_counters"); ok && (d == "" || d[0] == ' ') {
			flush()
			if f := strings.Fields(d); len(f) > 0 {
				showDev = f[0]
			}
			return
		}
		if pn, ok := hwCountersHeader(t); ok {
			flush()
			dev, port, hwMode = showDev, pn, true
			if dev == "" {
				dev = "hca" // show_counters' own line was not pasted
			}
			r.port(dev, port)
			return
		}
		// "# cat /sys/class/infiniband/mlx4_0/ports/1/state" with the
		// value on the next line; a manual may wrap the path after
		// "ports/" ("…/ports/" then "1/state 2: INIT").
		if catPath != "" {
			path := catPath
			v := t
			if strings.HasSuffix(path, "/") {
				head, rest, _ := strings.Cut(t, " ")
				path, v = path+head, strings.TrimSpace(rest)
			}
			catPath = ""
			if d, pn, k, _, ok := sysfsCounterLine(path + ":"); ok && v != "" && !isPromptLike(t) {
				flush()
				if err := r.rdmaField(r.port(d, pn), k, v, n, line); err != nil {
					r.skip(n, line, "%v", err)
				}
				return
			}
		}
		if p, ok := catSysfs(t); ok {
			catPath = p
			return
		}
		// A shell loop over a counters directory prints each file
		// under a banner: `echo "=== $file ==="; cat "$file"` gives
		// "=== ./link_downed ===" then the value; a relative name is
		// in the directory the prompt or a cd named.
		// tail -v and head -v print each file under "==> FILE <=="
		// (coreutils tail.c write_header), the value on the next line.
		if path, ok := tailHeader(t); ok && strings.Contains(path, "sys/class/infiniband/") {
			catPath = path[strings.Index(path, "sys/class/infiniband/"):]
			return
		}
		if name, ok := banner(t); ok {
			switch {
			case strings.Contains(name, "sys/class/infiniband/"):
				catPath = name[strings.Index(name, "sys/class/infiniband/"):]
				return
			case counterDir != "" && !strings.Contains(name, " ") && !strings.Contains(strings.TrimPrefix(name, "./"), "/"):
				catPath = counterDir + "/" + strings.TrimPrefix(name, "./")
				return
			}
		}
		if d, ok := sysfsCounterDir(t); ok {
			counterDir = d
			return
		}
		if d, pn, k, v, ok := sysfsCounterLine(t); ok {
			flush()
			if err := r.rdmaField(r.port(d, pn), k, v, n, line); err != nil {
				r.skip(n, line, "%v", err)
			}
			return
		}
		// A loop printing each file of the directory a cd or prompt
		// named beside its value, `for i in *; do printf "%-20.20s  %s\n"
		// "$i" "$(<$i)"; done`: "PktDrop               134" (names as
		// the driver gives them, cut at the printf's width).
		if counterDir != "" {
			if f := strings.Fields(t); len(f) == 2 && isNumber(f[1]) && isCounterName(f[0]) {
				if d, pn, k, v, ok := sysfsCounterLine(counterDir + "/" + f[0] + ":" + f[1]); ok {
					flush()
					if err := r.rdmaField(r.port(d, pn), k, v, n, line); err != nil {
						r.skip(n, line, "%v", err)
					}
					return
				}
			}
		}
		if hwMode {
			if k, v, ok := strings.Cut(t, ":"); ok && dev != "" && !strings.Contains(k, " ") && isNumber(strings.TrimSpace(v)) {
				if err := r.rdmaField(r.port(dev, port), k, strings.TrimSpace(v), n, line); err != nil {
					r.skip(n, line, "%v", err)
				}
				return
			}
			hwMode = false
		}
		f := strings.Fields(t)
		// Old form: "1/1: mlx5_0/1: state …".
		if len(f) > 1 && strings.HasSuffix(f[0], ":") && strings.Contains(f[0], "/") && strings.HasSuffix(f[1], ":") {
			if d, p, ok := rdmaName(strings.TrimSuffix(f[1], ":")); ok && isEarlyRecord(f[2:]) {
				flush()
				dev, port = d, p
				early = earlyLink{dev: d, port: p}
				early.add(f[2:], n, line)
				return
			}
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
		if t[0] == 'l' || t[0] == 'N' || t[0] == '0' {
			// ibv_devinfo pasted under rdma link (one shell session):
			// libibverbs' warnings and its "No IB devices found" say
			// what user space can open of the devices rdma link lists.
			if w, ok := VerbsWarning(t); ok {
				flush()
				w.Line = Line{N: n, Text: t}
				r.Verbs = append(r.Verbs, w)
				dev = ""
				return
			}
			if d, ok := DevinfoAbsent(t); ok {
				flush()
				r.Absent = append(r.Absent, Absent{Device: d, Line: Line{N: n, Text: t}})
				dev = ""
				return
			}
		}
		if why, ok := isNoise(t); ok {
			r.skip(n, line, "%s", why)
			flush()
			dev = ""
			return
		}
		continued := pending != ""
		if continued {
			f = append([]string{pending}, f...)
			pending = ""
		}
		// A wrapped line may end on a name whose value is on the next
		// line ("… rx_atomic_requests" / "0 out_of_buffer 0 …").
		if dev == "" || len(f)%2 != 0 && !continued || isNumber(f[0]) {
			r.skip(n, line, "not an rdma link or statistic line")
			return
		}
		// A wrapped continuation of the previous statistic line.
		pending, pendingLine, pendingN = r.rdmaPairs(dev, port, f, n, line), line, n
	})
	early.finish(r)
	flush()
	return r.finish(err)
}

// hwCountersHeader reads show_counters' "Port 1 hw counters:" (and
// "Port 1 counters:").
func hwCountersHeader(t string) (int, bool) {
	rest, ok := strings.CutPrefix(t, "Port ")
	if !ok {
		return 0, false
	}
	num, tail, ok := strings.Cut(rest, " ")
	if !ok || (tail != "hw counters:" && tail != "counters:") {
		return 0, false
	}
	p, err := strconv.Atoi(num)
	if err != nil || p < 0 || p > 255 {
		return 0, false
	}
	return p, true
}

// catSysfs reads a "cat /sys/class/infiniband/…" command (a prompt
// before it or not) and returns the path it prints.
func catSysfs(t string) (string, bool) {
	i := strings.Index(t, "cat /sys/class/infiniband/")
	if i < 0 || strings.ContainsAny(t[i+4:], " *{") {
		return "", false
	}
	return t[i+4:], true
}

// banner reads a loop's "=== name ===" line.
func banner(t string) (string, bool) {
	in, ok := strings.CutPrefix(t, "===")
	in, ok2 := strings.CutSuffix(in, "===")
	in = strings.TrimSpace(in)
	return in, ok && ok2 && in != "" && !strings.Contains(in, "=")
}

// tailHeader reads tail -v's (and head -v's) "==> FILE <==" line.
func tailHeader(t string) (string, bool) {
	in, ok := strings.CutPrefix(t, "==> ")
	in, ok2 := strings.CutSuffix(in, " <==")
	return in, ok && ok2 && in != ""
}

// sysfsCounterDir reads a port's counters directory off a prompt or a cd
// ("/sys/class/infiniband/mlx5_1/ports/1/counters$ for file in …",
// "cd /sys/class/infiniband/mlx5_1/ports/1/hw_counters"): the
// "sys/class/infiniband/…" path the names below it are relative to.
func sysfsCounterDir(t string) (string, bool) {
	i := strings.Index(t, "sys/class/infiniband/")
	if i < 0 {
		return "", false
	}
	path := t[i:]
	if j := strings.IndexAny(path, " \t$#:;>"); j >= 0 {
		path = path[:j]
	}
	path = strings.TrimSuffix(path, "/")
	parts := strings.Split(strings.TrimPrefix(path, "sys/class/infiniband/"), "/")
	if len(parts) != 4 || parts[0] == "" || parts[1] != "ports" || !isNumber(parts[2]) || parts[3] != "counters" && parts[3] != "hw_counters" {
		return "", false
	}
	return path, true
}

// isCounterName says whether s can be a counter file's name: letters,
// digits, '_' and '-', a letter first (mlx5's "out_of_buffer", hfi1's
// "RcvHdrOvr10").
func isCounterName(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isPromptLike says whether a line starts with a shell prompt character
// ("# ", "$ "): the next command, not a value.
func isPromptLike(t string) bool {
	return strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "$ ") || t == "#" || t == "$"
}

// sysfsPortAttrs are the port attribute files a grep or cat of sysfs
// shows, by the rdma field each becomes.
var sysfsPortAttrs = map[string]string{"state": "state", "phys_state": "physical_state", "rate": "rate",
	"link_layer": "link_layer", "lid": "lid", "sm_lid": "sm_lid", "lid_mask_count": "lmc"}

// sysfsCounterLine reads a "grep . …/hw_counters/*" line:
// "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer:0".
// Port counters (counters/…) keep their sysfs names. A port attribute
// ("…/ports/1/state:4: ACTIVE", `grep "" …/{state,rate,phys_state}`)
// becomes its rdma field (state, physical_state, rate, link_layer, lid,
// sm_lid).
func sysfsCounterLine(t string) (dev string, port int, name, val string, ok bool) {
	i := strings.Index(t, "sys/class/infiniband/")
	if i < 0 {
		return "", 0, "", "", false
	}
	path, v, found := strings.Cut(t[i+len("sys/class/infiniband/"):], ":")
	parts := strings.Split(path, "/")
	if found && len(parts) == 4 && parts[1] == "ports" && sysfsPortAttrs[parts[3]] != "" {
		p, err := strconv.Atoi(parts[2])
		if err != nil || p < 0 || p > 255 || parts[0] == "" {
			return "", 0, "", "", false
		}
		return parts[0], p, sysfsPortAttrs[parts[3]], strings.TrimSpace(v), true
	}
	if !found || len(parts) != 5 || parts[1] != "ports" || (parts[3] != "hw_counters" && parts[3] != "counters") {
		return "", 0, "", "", false
	}
	p, err := strconv.Atoi(parts[2])
	if err != nil || p < 0 || p > 255 || parts[0] == "" || parts[4] == "" {
		return "", 0, "", "", false
	}
	name = parts[4]
	if parts[3] == "counters" {
		name = "counters/" + name
	}
	return parts[0], p, name, strings.TrimSpace(v), true
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
	case "rate":
		rt, err := ib.ParseRate(v)
		if err != nil {
			return err
		}
		p.Rate = &rt
		r.note(portPath(p.Device, p.Number, "rate"), n, line)
	case "link_layer":
		ll, err := ib.ParseLinkLayer(v)
		if err != nil {
			return err
		}
		p.LinkLayer = ll
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
		if pc, isPort := strings.CutPrefix(k, "counters/"); isPort {
			// A port counter file (sysfs counters/): its own list.
			c := snapshot.Counter{Name: pc, Value: x, Spec: ib.PortCounterSpec(pc, true)}
			if i := slices.IndexFunc(p.Counters, func(o snapshot.Counter) bool { return o.Name == pc }); i >= 0 {
				p.Counters[i] = c
			} else {
				p.Counters = append(p.Counters, c)
			}
			p.HasCounters = true
			r.note(portPath(p.Device, p.Number, k), n, line)
			return nil
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
