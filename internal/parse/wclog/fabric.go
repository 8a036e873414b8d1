package wclog

import (
	"strconv"
	"strings"
)

// Getinfo is libfabric's debug line that a provider's getinfo failed
// (src/fabric.c fi_getinfo_: "fi_getinfo: provider ofi_rxm returned -61
// (No data available)"), in libfabric's log format (src/log.c:
// "libfabric:PID:TIME:PREFIX:PROV:SUBSYS:FUNC():LINE<LEVEL> MSG").
type Getinfo struct {
	// Line is 1-based in the input; Text the line as read.
	Line int
	Text string
	// Provider is the provider whose getinfo failed ("ofi_rxm"), Errno
	// its error (61) and Err the text libfabric printed for it.
	Provider string
	Errno    int
	Err      string
	// Warn: libfabric logged it at the warn level, which it does when
	// the application's hints named that provider (FI_PROVIDER or
	// fabric_attr->prov_name); at the info level it is one provider of
	// those tried that did not match.
	Warn bool
	// Empty: the provider's getinfo succeeded with no entry (src/fabric.c
	// fi_getinfo_, FI_WARN "fi_getinfo: provider efa output empty list"):
	// it found no device or endpoint that fits the request. Errno is 0.
	Empty bool
}

// GetinfoLine reads libfabric's "fi_getinfo: provider X returned -N
// (text)" and "fi_getinfo: provider X output empty list" lines (Line
// left 0).
func GetinfoLine(l string) (Getinfo, bool) {
	// A log collector's stamp may be glued before it (CloudWatch's
	// export: "2025-05-16T16:39:51.208-07:00libfabric:85:…").
	t := strings.TrimSpace(l)
	i := strings.Index(t, "libfabric:")
	if i < 0 {
		return Getinfo{}, false
	}
	t = t[i:]
	// CloudWatch's export also repeats the message after " | ".
	if j := strings.Index(t, " | libfabric:"); j > 0 {
		t = t[:j]
	}
	head, msg, ok := strings.Cut(t, "> fi_getinfo: provider ")
	if !ok {
		return Getinfo{}, false
	}
	lv := head[strings.LastIndexByte(head, '<')+1:]
	prov, rest, _ := strings.Cut(msg, " ")
	if strings.HasPrefix(rest, "output empty list") && prov != "" {
		return Getinfo{Text: t, Provider: prov, Err: "output empty list", Warn: lv == "warn", Empty: true}, true
	}
	n, ok := strings.CutPrefix(rest, "returned -")
	if !ok || prov == "" {
		return Getinfo{}, false
	}
	num, after, _ := strings.Cut(n, " ")
	e, err := strconv.Atoi(num)
	if err != nil || strings.HasPrefix(num, "+") || strings.HasPrefix(num, "-") {
		return Getinfo{}, false
	}
	g := Getinfo{Text: t, Provider: prov, Errno: e, Warn: lv == "warn"}
	if strings.HasPrefix(after, "(") {
		g.Err, _, _ = strings.Cut(after[1:], ")")
	}
	return g, true
}
