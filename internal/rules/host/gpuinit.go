package host

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ibdoctor/ibdoctor/internal/model/finding"
	"github.com/ibdoctor/ibdoctor/internal/model/pcie"
	"github.com/ibdoctor/ibdoctor/internal/parse/kmsg"
	"github.com/ibdoctor/ibdoctor/internal/rules/catalog"
)

// checkGPUInitFailed reports the NVIDIA driver failing to initialise a
// GPU (gpu.init_failed, critical): RmInitAdapter failed, so the GPU cannot
// be opened and no job can use it.
func checkGPUInitFailed(in *Input) []finding.Finding {
	return checkGPUDown(in, kmsg.KindGPUInitFailed, "gpu.init_failed",
		"the NVIDIA driver could not initialise %s: %s (%s %s); the GPU cannot be opened, nvidia-smi and CUDA do not see it")
}

// checkGSPTimeout reports a GPU whose GSP firmware stopped answering the
// driver (gpu.gsp_timeout, critical): the GPU is hung until it is reset.
func checkGSPTimeout(in *Input) []finding.Finding {
	return checkGPUDown(in, kmsg.KindGSPTimeout, "gpu.gsp_timeout",
		"the GSP firmware of %s stopped answering the NVIDIA driver: %s (%s %s); the GPU is hung until it is reset, and jobs on it fail or hang")
}

// checkGPUDown gives one finding of id per GPU the events of kind name,
// by PCI address, else by the driver's GPU number ("GPU6"); lines that
// name no GPU join the only GPU the others name, or stand for "a GPU".
// format takes the GPU, the details, the count and the window.
func checkGPUDown(in *Input, kind kmsg.Kind, id, format string) []finding.Finding {
	s := in.Snap
	type key struct {
		pci  pcie.Address
		inst string
	}
	type tally struct {
		n       int
		details []string
		ev      []finding.Evidence
	}
	ts := map[key]*tally{}
	var keys []key
	for _, e := range in.events() {
		if e.Kind != kind {
			continue
		}
		k := key{e.PCI, e.Interface}
		t, ok := ts[k]
		if !ok {
			t = &tally{}
			ts[k] = t
			keys = append(keys, k)
		}
		t.n += e.Weight()
		if !slices.Contains(t.details, e.Detail) && len(t.details) < maxEvidence {
			t.details = append(t.details, e.Detail)
		}
		if len(t.ev) < maxEvidence && !e.Folded {
			t.ev = append(t.ev, in.logEvidence(e.Record))
		}
	}
	// The lines that name no GPU belong to the one GPU the others name.
	if u, ok := ts[key{}]; ok && len(keys) == 2 {
		other := keys[0]
		if other == (key{}) {
			other = keys[1]
		}
		o := ts[other]
		o.n += u.n
		for _, d := range u.details {
			if !slices.Contains(o.details, d) && len(o.details) < maxEvidence {
				o.details = append(o.details, d)
			}
		}
		for _, ev := range u.ev {
			if len(o.ev) < maxEvidence {
				o.ev = append(o.ev, ev)
			}
		}
		keys = []key{other}
	}
	var out []finding.Finding
	for _, k := range keys {
		t := ts[k]
		subj := finding.Subject{Host: s.Host, PCI: string(k.pci)}
		label := "a GPU (the lines do not name which)"
		switch {
		case k.pci != "":
			label = "GPU " + string(k.pci)
			if name, ok := gpuName(s, k.pci); ok {
				subj.GPU = strings.TrimPrefix(name, "GPU")
				label = name + " (" + string(k.pci) + ")"
			}
		case k.inst != "":
			label = k.inst + " (the driver's numbering)"
		}
		out = append(out, catalog.New(id, subj,
			fmt.Sprintf(format, label, strings.Join(t.details, "; "), plural(t.n, "message", "messages"), in.window()), t.ev...))
	}
	return out
}
