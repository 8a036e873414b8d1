package fabric

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/parse/opensm"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// CheckOpenSMLog judges a paste of OpenSM's log (linux-rdma/opensm) and
// its crash reports:
//
//   - "Exiting SM" with no later start ("OpenSM 3.3.23", "Entering
//     MASTER state", "SUBNET UP", "Entering STANDBY state"): the subnet
//     manager process ended; with the errors logged before it (a failed
//     bind: "osm_vendor_bind: ERR 5426: Unable to register class 129")
//     it did not stop on request but failed. fabric.sm_missing, critical:
//     no SM runs on that host.
//   - stack frames in OpenSM's sources (a segfault's gdb or apport
//     trace): fabric.sm_crashed, a warning (whether a standby SM took
//     over is not in the paste).
//   - error messages ("ERR XXXX:") of an SM that kept running:
//     fabric.sm_log_errors, a warning naming the codes.
func CheckOpenSMLog(lg *opensm.Log, src string) []finding.Finding {
	var fs []finding.Finding
	at := func(n int) string { return fmt.Sprintf("%s:%d", src, n) }
	subj := finding.Subject{File: src}
	sm := "OpenSM"
	if lg.Version != "" {
		sm += " " + lg.Version
	}
	exit := -1
	for i, e := range lg.Entries {
		switch {
		case strings.HasPrefix(e.Text, "Exiting SM"):
			exit = i
		case exit >= 0 && started(e.Text):
			exit = -1
		}
	}
	var errs []opensm.Entry
	for _, e := range lg.Entries {
		if e.Code != "" || e.Level == opensm.LevelError { // (0x03 is the version banner's)
			errs = append(errs, e)
		}
	}
	if exit >= 0 {
		ex := lg.Entries[exit]
		var before []opensm.Entry
		for _, e := range errs {
			if e.Line < ex.Line {
				before = append(before, e)
			}
		}
		sum := fmt.Sprintf("%s logged \"Exiting SM\" (line %d) and did not start again in this log: the subnet manager process on this host ended", sm, ex.Line)
		var evs []finding.Evidence
		if len(before) > 0 {
			sum += fmt.Sprintf(" after %s (the first: %s): it failed, it was not stopped on request", count(len(before), "error message"), before[0].Text)
			for _, e := range before[:min(len(before), 3)] {
				evs = append(evs, finding.Evidence{Source: at(e.Line), Value: e.Raw})
			}
		}
		sum += "; unless another SM is master, nothing configures the fabric (new or restarted ports stay in Initializing)"
		evs = append(evs, finding.Evidence{Source: at(ex.Line), Value: ex.Raw})
		f := catalog.New("fabric.sm_missing", subj, sum, evs...)
		if slices.ContainsFunc(before, func(e opensm.Entry) bool { return bindFailure(e) }) {
			f.Causes = append([]string{"OpenSM could not register its management classes with the kernel (osm_vendor_bind: ERR 5426 Unable to register class, SM MAD Controller bind failed): another process holds the SM class on that port (a second opensm), the ib_umad module is not loaded, or the running kernel's ib_umad refuses the registration (a kernel update: the previous kernel worked)"}, f.Causes...)
			f.Remedy = append([]string{"ls -l /dev/infiniband/ (umad* and issm* must exist) and lsmod | grep ib_umad; systemctl status opensm and pidof opensm for a second SM; dmesg | grep -i umad", "boot the last kernel OpenSM ran under, or an OpenSM built for this kernel, until the registration works"}, f.Remedy...)
		}
		fs = append(fs, f)
	} else if len(errs) > 0 {
		codes := []string{}
		for _, e := range errs {
			c := e.Code
			if c == "" {
				c = "-"
			}
			if !slices.Contains(codes, c) {
				codes = append(codes, c)
			}
		}
		sum := fmt.Sprintf("%s logged %s (codes %s; the first: %s)", sm, count(len(errs), "error message"), strings.Join(codes, ", "), errs[0].Text)
		var evs []finding.Evidence
		for _, e := range errs[:min(len(errs), 4)] {
			evs = append(evs, finding.Evidence{Source: at(e.Line), Value: e.Raw})
		}
		fs = append(fs, catalog.New("fabric.sm_log_errors", subj, sum, evs...))
	}
	if len(lg.Frames) > 0 {
		top := lg.Frames[0]
		sum := fmt.Sprintf("OpenSM crashed in %s (%s)", top.Function, top.Source)
		if lg.Signal > 0 {
			sum = fmt.Sprintf("OpenSM crashed with signal %d%s in %s (%s)", lg.Signal, signalName(lg.Signal), top.Function, top.Source)
		}
		if strings.Contains(top.Source, "lash") {
			sum += ", in the LASH routing engine (routing_engine lash)"
		}
		sum += ": the subnet manager process on this host died; whether a standby SM took over is not in the paste"
		var evs []finding.Evidence
		if lg.SignalLine > 0 {
			evs = append(evs, finding.Evidence{Source: at(lg.SignalLine), Value: fmt.Sprintf("Signal: %d", lg.Signal)})
		}
		for _, fr := range lg.Frames[:min(len(lg.Frames), 3)] {
			evs = append(evs, finding.Evidence{Source: at(fr.Line), Value: fr.Raw})
		}
		fs = append(fs, catalog.New("fabric.sm_crashed", subj, sum, evs...))
	}
	return fs
}

// started says whether a message shows OpenSM (again) running.
func started(t string) bool {
	return strings.HasPrefix(t, "Entering MASTER state") || strings.HasPrefix(t, "Entering STANDBY state") ||
		strings.HasPrefix(t, "SUBNET UP") || strings.HasPrefix(t, "OpenSM ") && len(t) > 7 && t[7] >= '0' && t[7] <= '9'
}

// bindFailure says whether e is one of the messages of a failed bind of
// OpenSM's MAD classes (osm_vendor_ibumad.c, osm_sm_mad_ctrl.c).
func bindFailure(e opensm.Entry) bool {
	return e.Code == "5426" || strings.Contains(e.Text, "bind failed") || strings.Contains(e.Text, "Unable to register class")
}

func signalName(s int) string {
	switch s {
	case 6:
		return " (SIGABRT)"
	case 7:
		return " (SIGBUS)"
	case 11:
		return " (SIGSEGV, a segmentation fault)"
	}
	return ""
}

func count(n int, one string) string {
	return fmt.Sprintf("%d %s%s", n, one, plural(n))
}
