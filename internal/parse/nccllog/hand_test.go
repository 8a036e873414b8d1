package nccllog

import (
	"regexp"
	"slices"
	"testing"
)

// The hand-written matchers of hot lines agree with the regexps they
// replace, on lines that match and lines that almost do.
func TestHandMatchersAgreeWithRegexps(t *testing.T) {
	reComm := regexp.MustCompile(`comm 0x[0-9a-fA-F]+ rank (\d+) n[Rr]anks (\d+)(?: nNodes (\d+))?`)
	reEnv := regexp.MustCompile(`^(NCCL_[A-Z0-9_]+) set by environment to (.*?)\.?\s*$`)
	comm := []string{
		"comm 0x5581 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 3b000 commId 0x1 - Init COMPLETE",
		"comm 0x55d0c7a0 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0",
		"comm 0x55d0c7a0 rank 0 nRanks 2 nNodes x",
		"comm 0x rank 0 nranks 2",
		"comm 0xzz rank 1 nranks 2 comm 0xab rank 4 nRanks 8",
		"comm 0xab rank  nranks 2",
		"comm 0xab rank 1 nRank 2",
		"comm 0xab rank 1 nQanks 2",
		"init comm 0x1f rank 7 nranks 8 nNodes 2",
		"comm 0x1f rank 7 nranks 8 nNodes ",
	}
	for _, l := range comm {
		want := reComm.FindStringSubmatch(l)
		got := commLine(l)
		if want == nil != (got == nil) || want != nil && !slices.Equal(want[1:], got[1:]) {
			t.Errorf("%q: commLine %q, regexp %q", l, got, want)
		}
	}
	env := []string{
		"NCCL_SOCKET_IFNAME set by environment to hsn",
		"NCCL_IB_HCA set by environment to mlx5_0:1,mlx5_3:1.",
		"NCCL_X set by environment to a.b. \t",
		"NCCL_X set by environment to x. .",
		"NCCL_X set by environment to ",
		"NCCL_x set by environment to 1",
		"NCCL_ set by environment to 1",
		"NCCL_IB_DISABLE set by environment to 1.",
	}
	for _, l := range env {
		want := reEnv.FindStringSubmatch(l)
		got := envSet(l)
		if want == nil != (got == nil) || want != nil && !slices.Equal(want[1:], got[1:]) {
			t.Errorf("%q: envSet %q, regexp %q", l, got, want)
		}
	}
}
