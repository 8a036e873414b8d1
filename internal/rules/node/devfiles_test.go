package node

import "testing"

// TestCheckDevFiles: a full listing is healthy; one without uverbsN is
// container.uverbs_missing, one without rdma_cm container.rdma_cm_missing.
func TestCheckDevFiles(t *testing.T) {
	dev := func(names ...string) []string { return names }
	id := func(fs []string) string {
		out := CheckDevFiles(fs, "p.txt", 6, 5+len(fs))
		if len(out) == 0 {
			return ""
		}
		return out[0].ID + "/" + string(out[0].Severity) + " " + out[0].Evidence[0].Source
	}
	for _, tc := range []struct {
		fs   []string
		want string
	}{
		{dev("issm0", "rdma_cm", "umad0", "uverbs0"), ""},
		{dev("issm0", "rdma_cm", "umad0"), "container.uverbs_missing/critical p.txt:6-8"},
		{dev("umad0", "uverbs0"), "container.rdma_cm_missing/warning p.txt:6-7"},
	} {
		if got := id(tc.fs); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.fs, got, tc.want)
		}
	}
}
