package analyze

import (
	"slices"
	"testing"
)

// TestRdmaLinkThenVerbsABIMismatch: k8snetworkplumbingwg/sriov-cni#348
// (realworld-fresh16): in a pod, rdma link lists the kernel's bnxt_re
// devices and ibv_devinfo, pasted right under it, says the image's
// provider does not support the kernel ABI and lists none. One critical
// host.verbs_provider_missing, no port.missing for "No IB devices found".
func TestRdmaLinkThenVerbsABIMismatch(t *testing.T) {
	in := "link bnxt_re0/1 state ACTIVE physical_state LINK_UP\n" +
		"link bnxt_re2/1 state ACTIVE physical_state LINK_UP\n" +
		"libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re2\n" +
		"No IB devices found\n"
	r := Run([]Input{{Name: "p.txt", Text: in}}, Options{})
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.ID+"/"+string(f.Severity))
	}
	if want := []string{"host.verbs_provider_missing/critical"}; !slices.Equal(got, want) || r.ExitCode != 2 {
		t.Errorf("exit %d findings %q, want %q", r.ExitCode, got, want)
	}
}
