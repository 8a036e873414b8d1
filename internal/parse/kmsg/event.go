package kmsg

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
)

// Kind is the kind of a recognised kernel log event.
type Kind string

// Event kinds.
const (
	// KindXid is an NVIDIA Xid ("NVRM: Xid (PCI:0000:2b:00): 79, …").
	KindXid Kind = "xid"
	// KindFallenOffBus is the NVRM "GPU has fallen off the bus" message.
	KindFallenOffBus Kind = "fallen_off_bus"
	// KindAER is a PCIe AER report (drivers/pci/pcie/aer.c).
	KindAER Kind = "aer"
	// KindLink is an mlx5 link change (netdev "Link up/down" or the IB
	// port's "Port: 1 Link ACTIVE/DOWN").
	KindLink Kind = "link"
	// KindModule is an mlx5 port module event or a high-temperature
	// warning.
	KindModule Kind = "module"
	// KindHealth is an mlx5 firmware health error or command timeout, a
	// firmware command that failed with a syndrome, or a failed probe.
	KindHealth Kind = "health"
	// KindPCIeBandwidth is the kernel's "available PCIe bandwidth, limited
	// by … (capable of …)" line (drivers/pci/pci.c __pcie_print_link_status):
	// the device trained below what it and its slot can do.
	KindPCIeBandwidth Kind = "pcie_bandwidth"
	// KindAERBit is one error bit of an AER report ("[ 0] RxErr",
	// "[ 7] BadDLLP", "[12] Timeout"): what kind of errors a flood is.
	KindAERBit Kind = "aer_bit"
)

// Health event classes (Event.HealthClass).
const (
	// HealthFatal: the firmware or the device failed (health poll, fatal
	// error, command timeout, failed probe: the function is unusable).
	HealthFatal = "fatal"
	// HealthCommand: one firmware command failed with a syndrome; the
	// driver goes on unless a probe failure follows.
	HealthCommand = "command"
)

// AER severities, normalised over the kernel's old and new spellings.
const (
	AERCorrectable = "correctable"
	AERNonFatal    = "nonfatal"
	AERFatal       = "fatal"
)

// Event is a kernel log record recognised as relevant to triage.
type Event struct {
	Kind   Kind   `json:"kind"`
	Record Record `json:"record"`
	// PCI is the device the message is about: the GPU of an Xid (function
	// .0, since Xid lines omit it), the error source of an AER report, the
	// mlx5 function of link/module/health messages.
	PCI pcie.Address `json:"pci,omitempty"`
	// Reporter is the port that received an AER message ("pcieport
	// 0000:00:01.0: AER: … received: 0000:3b:00.0").
	Reporter pcie.Address `json:"reporter,omitempty"`
	// Xid, XidPID and XidProcess are the Xid code and the process, when
	// logged; GPUInstance is the MIG "GPU-I" index (-1 without MIG).
	Xid         int    `json:"xid,omitempty"`
	XidPID      string `json:"xid_pid,omitempty"`
	XidProcess  string `json:"xid_process,omitempty"`
	GPUInstance int    `json:"gpu_instance,omitempty"`
	// AERSeverity is correctable, nonfatal or fatal; AERType the layer
	// ("Physical Layer"); AERDetail marks the "PCIe Bus Error" detail line
	// (one per error) as opposed to the "error received" line of the port.
	AERSeverity string `json:"aer_severity,omitempty"`
	AERType     string `json:"aer_type,omitempty"`
	AERDetail   bool   `json:"aer_detail,omitempty"`
	// Interface is the netdev or RDMA device of a link event, Port the IB
	// port number (0 for netdev events), Up the new state.
	Interface string `json:"interface,omitempty"`
	Port      int    `json:"port,omitempty"`
	Up        bool   `json:"up,omitempty"`
	// Module is the module (cage) number of a module event; Detail the
	// event text ("Cable unplugged", "High Temperature", the Xid message).
	Module int    `json:"module,omitempty"`
	Detail string `json:"detail,omitempty"`
	// IsError marks module events the driver logs as errors and health
	// events that are fatal.
	IsError bool `json:"is_error,omitempty"`
	// HealthClass is HealthFatal or HealthCommand for KindHealth.
	HealthClass string `json:"health_class,omitempty"`
	// Bandwidth of a KindPCIeBandwidth event: what the link gives, what
	// the device is capable of (Gb/s), the link that limits it and the
	// width and speed strings as printed ("8.0 GT/s PCIe x2").
	AvailGbps   float64      `json:"avail_gbps,omitempty"`
	CapableGbps float64      `json:"capable_gbps,omitempty"`
	LimitedAt   pcie.Address `json:"limited_at,omitempty"`
	LimitedBy   string       `json:"limited_by,omitempty"`
	CapableOf   string       `json:"capable_of,omitempty"`
}

const bdf = `([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])`

var (
	// NVIDIA/open-gpu-kernel-modules kernel_rc.c: "NVRM: Xid (PCI:%04x:%02x:%02x[ GPU-I:%02u[ GPU-CI:%02u]]): %d, pid=%s, name=%s, %s".
	reXid = regexp.MustCompile(`NVRM: Xid \(PCI:([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?: GPU-I:(\d+))?(?: GPU-CI:(\d+))?\): (\d+), (?:pid=([^,]*), name=([^,]*), )?(.*)`)
	// "NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.", "NVRM: GPU at
	// 0000:01:00.0 has fallen off the bus.", "NVRM: The NVIDIA GPU 0000:b3:00.0".
	reGPUAddr = regexp.MustCompile(`NVRM: (?:The NVIDIA )?GPU (?:at )?` + bdf)
	// aer.c aer_isr_one_error/aer_print_port_info: "AER: [Multiple ]<sev> error [message ]received: <bdf>|id=XXXX".
	reAERRecv = regexp.MustCompile(`\S+ ` + bdf + `: (?:AER: )?(Multiple )?(Corrected|Correctable|Uncorrected \(Non-Fatal\)|Uncorrectable \(Non-Fatal\)|Uncorrected \(Fatal\)|Uncorrectable \(Fatal\)) error (?:message )?received: (?:` + bdf + `|id=([0-9a-fA-F]{4}))`)
	// aer.c aer_print_error: "<drv> <bdf>: [AER: ]PCIe Bus Error: severity=<sev>, type=<layer>, [id=XXXX](<agent> ID)".
	reAERDetail = regexp.MustCompile(`\S+ ` + bdf + `: (?:AER: )?PCIe Bus Error: severity=(Corrected|Correctable|Uncorrected \(Non-Fatal\)|Uncorrectable \(Non-Fatal\)|Uncorrected \(Fatal\)|Uncorrectable \(Fatal\)), type=([^,]+)`)
	// Firmware-first (GHES/CPER) AER, aer.c cper_print_aer: "<drv> <bdf>:
	// [AER: ]aer_layer=<layer>, aer_agent=<agent>"; the severity is on the
	// CPER lines before it (drivers/firmware/efi/cper.c: "{N}[Hardware
	// Error]: event severity: corrected|recoverable|fatal", "Error 0,
	// type: corrected").
	reCPERAER = regexp.MustCompile(`\S+ ` + bdf + `: (?:AER: )?aer_layer=([^,]+), aer_agent=`)
	reCPERSev = regexp.MustCompile(`\[Hardware Error\]: +(?:event severity|Error \d+, type): (corrected|recoverable|fatal)`)
	// en_main.c mlx5e_update_carrier via netdev_info: "mlx5_core <bdf> <netdev>: Link up|down".
	reNetLink = regexp.MustCompile(`mlx5_core ` + bdf + ` (\S+): Link (up|down)\s*$`)
	// mlx5 ib port events: "mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE".
	reIBLink = regexp.MustCompile(`mlx5_core ` + bdf + ` (\S+): Port: (\d+) Link (\w+)`)
	// events.c port_module: "Port module event[error]: module %u, Cable error, %s" / "Port module event: module %u, %s".
	reModule = regexp.MustCompile(`mlx5_core ` + bdf + `: .*?Port module event(\[error\])?: module (\d+), (.*)$`)
	reTemp   = regexp.MustCompile(`mlx5_core ` + bdf + `: .*?(High temperature on sensors.*)$`)
	// health.c / cmd.c.
	// cmd.c mlx5_cmd_out_err / mlx5_cmd_check: "OPCODE(0x912) op_mod(0x0)
	// failed, status bad parameter(0x3), syndrome (0x595b5d), err(-22)".
	reCmdErr = regexp.MustCompile(`(\w+)\(0x[0-9a-fA-F]+\) op_mod\(0x[0-9a-fA-F]+\) failed, status ([^,]+), syndrome \((0x[0-9a-fA-F]+)\)`)
	// Probe and init failures of mlx5 (main.c, the driver core's
	// "probe of <dev> failed with error -22" and "probe with driver
	// mlx5_core failed with error -22").
	reProbeFail = regexp.MustCompile(`^(mlx5_core|mlx5_ib)(?:\.\w+)?:? (?:` + bdf + `: )?(probe (?:of (\S+) |with driver \S+ )failed with error -?\d+)`)
	reInitFail  = regexp.MustCompile(`mlx5_core ` + bdf + `: .*?((?:mlx5_load_one|mlx5_init_one|mlx5_function_setup|mlx5_init_once|handle_hca_cap|set_hca_cap|mlx5_cmd_init) failed[^\n]*|failed to allocate command entry|init one failed[^\n]*)`)
	// pci.c __pcie_print_link_status.
	reBandwidth = regexp.MustCompile(`\S+ ` + bdf + `: ([0-9.]+) Gb/s available PCIe bandwidth, limited by (.+?) link at ` + bdf + ` \(capable of ([0-9.]+) Gb/s with (.+?) link\)`)
	// aer.c __aer_print_error: "  [ 0] RxErr   (First)".
	reAERBit = regexp.MustCompile(`\S+ ` + bdf + `: (?:AER:)? *\[ ?(\d+)\] ([A-Za-z][\w/]*(?: [A-Za-z][\w/]*)*)`)
	reHealth = regexp.MustCompile(`mlx5_core ` + bdf + `: .*?(device's health compromised[^\n]*|Fatal error \d+ detected|synd 0x[0-9a-fA-F]+: [^\n]*|\S+\(0x[0-9a-fA-F]+\) timeout\. Will cause a leak of a command resource|health recovery flow aborted[^\n]*|FW is unable to respond[^\n]*)`)
)

var reBDF = regexp.MustCompile(bdf)

var reMlx5Addr = regexp.MustCompile(`mlx5_core ` + bdf + `[: ]`)

// severityName normalises "Corrected"/"Correctable", "Uncorrected
// (Non-Fatal)"/"Uncorrectable (Non-Fatal)" and the fatal spellings.
func severityName(s string) string {
	switch {
	case strings.Contains(s, "Non-Fatal"):
		return AERNonFatal
	case strings.Contains(s, "Fatal"):
		return AERFatal
	}
	return AERCorrectable
}

func addr(s string) pcie.Address {
	a, err := pcie.ParseAddress(s)
	if err != nil {
		return ""
	}
	return a
}

// idToAddress converts the "id=00e8" requester ID of older AER messages
// (bus<<8 | device<<3 | function) to an address in the reporter's domain.
func idToAddress(domain string, id string) pcie.Address {
	v, err := strconv.ParseUint(id, 16, 16)
	if err != nil {
		return ""
	}
	return addr(fmt.Sprintf("%s:%02x:%02x.%d", domain, v>>8, (v&0xff)>>3, v&7))
}

// Classify recognises the events of one record; most records give none.
func Classify(r Record) []Event {
	t := r.Text
	var out []Event
	switch {
	case strings.Contains(t, "NVRM:"):
		if m := reXid.FindStringSubmatch(t); m != nil {
			code, _ := strconv.Atoi(m[4])
			gi := -1
			if m[2] != "" {
				gi, _ = strconv.Atoi(m[2])
			}
			out = append(out, Event{Kind: KindXid, Record: r, PCI: addr(m[1] + ".0"), Xid: code,
				XidPID: m[5], XidProcess: m[6], GPUInstance: gi, Detail: strings.TrimSpace(m[7])})
		} else if strings.Contains(t, "fallen off the bus") {
			if m := reGPUAddr.FindStringSubmatch(t); m != nil {
				out = append(out, Event{Kind: KindFallenOffBus, Record: r, PCI: addr(m[1]), Detail: "GPU has fallen off the bus"})
			}
		}
	case strings.Contains(t, "aer_layer="):
		if m := reCPERAER.FindStringSubmatch(t); m != nil {
			// Severity unknown here; Events fills it from the CPER
			// record before, else it stays correctable.
			out = append(out, Event{Kind: KindAER, Record: r, PCI: addr(m[1]), AERSeverity: AERCorrectable,
				AERType: strings.TrimSpace(m[2]), AERDetail: true, Detail: "firmware-first"})
		}
	case strings.Contains(t, "error received") || strings.Contains(t, "PCIe Bus Error"):
		if m := reAERDetail.FindStringSubmatch(t); m != nil {
			out = append(out, Event{Kind: KindAER, Record: r, PCI: addr(m[1]), AERSeverity: severityName(m[2]),
				AERType: strings.TrimSpace(m[3]), AERDetail: true})
		} else if m := reAERRecv.FindStringSubmatch(t); m != nil {
			rep := addr(m[1])
			src := addr(m[4])
			if src == "" && m[5] != "" && rep != "" {
				src = idToAddress(string(rep[:4]), m[5])
			}
			out = append(out, Event{Kind: KindAER, Record: r, PCI: src, Reporter: rep, AERSeverity: severityName(m[3]),
				Detail: strings.TrimSpace(m[2] + m[3])})
		}
	case strings.Contains(t, "available PCIe bandwidth, limited by"):
		if m := reBandwidth.FindStringSubmatch(t); m != nil {
			av, _ := strconv.ParseFloat(m[2], 64)
			cp, _ := strconv.ParseFloat(m[5], 64)
			out = append(out, Event{Kind: KindPCIeBandwidth, Record: r, PCI: addr(m[1]), AvailGbps: av, CapableGbps: cp,
				LimitedBy: strings.TrimSpace(m[3]), LimitedAt: addr(m[4]), CapableOf: strings.TrimSpace(m[6])})
		}
	case strings.Contains(t, "mlx5_core"):
		if m := reNetLink.FindStringSubmatch(t); m != nil {
			out = append(out, Event{Kind: KindLink, Record: r, PCI: addr(m[1]), Interface: m[2], Up: m[3] == "up"})
		} else if m := reIBLink.FindStringSubmatch(t); m != nil {
			port, _ := strconv.Atoi(m[3])
			switch m[4] {
			case "ACTIVE":
				out = append(out, Event{Kind: KindLink, Record: r, PCI: addr(m[1]), Interface: m[2], Port: port, Up: true})
			case "DOWN":
				out = append(out, Event{Kind: KindLink, Record: r, PCI: addr(m[1]), Interface: m[2], Port: port})
			}
		} else if m := reModule.FindStringSubmatch(t); m != nil {
			mod, _ := strconv.Atoi(m[3])
			detail := strings.TrimSpace(m[4])
			isErr := m[2] != "" || strings.HasPrefix(detail, "Cable error")
			detail = strings.TrimPrefix(detail, "Cable error, ")
			out = append(out, Event{Kind: KindModule, Record: r, PCI: addr(m[1]), Module: mod, Detail: detail, IsError: isErr})
		} else if m := reTemp.FindStringSubmatch(t); m != nil {
			out = append(out, Event{Kind: KindModule, Record: r, PCI: addr(m[1]), Module: -1, Detail: strings.TrimSpace(m[2]), IsError: true})
		} else if m := reHealth.FindStringSubmatch(t); m != nil {
			out = append(out, Event{Kind: KindHealth, Record: r, PCI: addr(m[1]), Detail: strings.TrimSpace(m[2]), IsError: true, HealthClass: HealthFatal})
		} else if m := reInitFail.FindStringSubmatch(t); m != nil {
			out = append(out, Event{Kind: KindHealth, Record: r, PCI: addr(m[1]), Detail: strings.TrimSpace(m[2]), IsError: true, HealthClass: HealthFatal})
		} else if m := reProbeFail.FindStringSubmatch(t); m != nil {
			// The device is the BDF of the prefix or of "probe of"; an
			// auxiliary device ("mlx5_core.eth.2") is placed by Events.
			a := addr(m[2])
			if a == "" {
				a = addr(m[4])
			}
			out = append(out, Event{Kind: KindHealth, Record: r, PCI: a, Detail: strings.TrimSpace(m[3]), IsError: true, HealthClass: HealthFatal})
		} else if m := reCmdErr.FindStringSubmatch(t); m != nil {
			var a pcie.Address
			if b := reBDF.FindString(t); b != "" {
				a = addr(b)
			}
			out = append(out, Event{Kind: KindHealth, Record: r, PCI: a, Detail: fmt.Sprintf("%s failed, status %s, syndrome %s", m[1], strings.TrimSpace(m[2]), m[3]), IsError: true, HealthClass: HealthCommand})
		}
	case strings.Contains(t, "] "):
		if m := reAERBit.FindStringSubmatch(t); m != nil {
			out = append(out, Event{Kind: KindAERBit, Record: r, PCI: addr(m[1]), Detail: m[3]})
		}
	}
	return out
}

// Events classifies every record of a log, in order. A "The NVIDIA GPU
// <bdf>" line followed within three records by "fallen off the bus" (a
// multi-line message a journal split into lines) counts as one event.
func Events(recs []Record) []Event {
	var out []Event
	var pending pcie.Address
	pendingLeft := 0
	cperSev, cperLeft := "", 0
	var lastMlx5 pcie.Address
	for _, r := range recs {
		if m := reCPERSev.FindStringSubmatch(r.Text); m != nil {
			cperSev, cperLeft = map[string]string{"corrected": AERCorrectable, "recoverable": AERNonFatal, "fatal": AERFatal}[m[1]], 20
		} else if cperLeft > 0 {
			cperLeft--
		}
		evs := Classify(r)
		if m := reMlx5Addr.FindStringSubmatch(r.Text); m != nil {
			lastMlx5 = addr(m[1])
		}
		for i := range evs {
			if evs[i].Kind == KindHealth && evs[i].PCI == "" {
				evs[i].PCI = lastMlx5 // "mlx5_core.eth: probe of mlx5_core.eth.2 failed": the function probed last
			}
			if evs[i].Kind == KindAER && evs[i].Detail == "firmware-first" && cperLeft > 0 {
				evs[i].AERSeverity = cperSev
			}
		}
		if len(evs) == 0 && strings.Contains(r.Text, "NVRM:") {
			if m := reGPUAddr.FindStringSubmatch(r.Text); m != nil {
				pending, pendingLeft = addr(m[1]), 3
				continue
			}
			if pendingLeft > 0 && strings.Contains(r.Text, "fallen off the bus") {
				evs = []Event{{Kind: KindFallenOffBus, Record: r, PCI: pending, Detail: "GPU has fallen off the bus"}}
				pendingLeft = 0
			}
		}
		if pendingLeft > 0 {
			pendingLeft--
		}
		out = append(out, evs...)
	}
	return out
}
