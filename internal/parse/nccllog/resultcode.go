package nccllog

import (
	"strconv"
	"strings"
)

// ResultCode reads a program's line that an NCCL call it made returned
// an error code: Azure's node health checks (azurehpc-health-checks)
// write "Health check failed:  collect_nccl_allreduce_data: nccl_allreduce
// returned error code 3." The word before "returned" must name NCCL
// (nccl_allreduce, ncclCommInitRank); code is the ncclResult_t
// (src/nccl.h.in: 1 unhandled CUDA error … 6 remote error), not 0.
func ResultCode(l string) (code int, ok bool) {
	const mark = " returned error code "
	i := strings.Index(l, mark)
	if i <= 0 {
		return 0, false
	}
	word := l[:i]
	if j := strings.LastIndexAny(word, " \t:"); j >= 0 {
		word = word[j+1:]
	}
	if !strings.HasPrefix(strings.ToLower(word), "nccl") {
		return 0, false
	}
	d, _ := digits(l[i+len(mark):])
	n, err := strconv.Atoi(d)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}
