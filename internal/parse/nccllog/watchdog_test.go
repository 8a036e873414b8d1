package nccllog

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// watchdog matches by hand what reWatchdog matches: the same submatches
// on real reports, on near misses and on random cuts and splices of them.
func TestWatchdogAsRegexp(t *testing.T) {
	lines := []string{
		"[rank0]:[E ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=41, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600123 milliseconds before timing out.",
		"[E ProcessGroupNCCL.cpp:475] [Rank 12] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800047 milliseconds before timing out.",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=_ALLGATHER_BASE, NumelIn=8, NumelOut=64, Timeout(ms)=10) ran for 11 milliseconds",
		"[Rank x] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=SEND, Timeout(ms)=10) ran for 11 milliseconds",
		"[Rank ] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=SEND, Timeout(ms)=10) ran for 11 milliseconds",
		"[Rank 3]  Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=SEND, Timeout(ms)=10) ran for 11 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=XTimeout(ms)=5) ran for 3 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=X Timeout(ms)=) ran for 3 milliseconds Timeout(ms)=4) ran for 5 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=X, Timeout(ms)=4) ran for x milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=, OpType=X, Timeout(ms)=4) ran for 5 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=, Timeout(ms)=4) ran for 5 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=A, NumelIn=1\nTimeout(ms)=4) ran for 5 milliseconds",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=x) [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=B, Timeout(ms)=4) ran for 5 milliseconds",
		"Watchdog caught collective operation timeout",
		"NCCL INFO comm 0x1 rank 0 nranks 2",
	}
	check := func(l string) {
		t.Helper()
		if got, want := watchdog(l), reWatchdog.FindStringSubmatch(l); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", l, got, want)
		}
	}
	for _, l := range lines {
		check(l)
	}
	rnd := rand.New(rand.NewSource(1))
	for range 20000 {
		a, b := lines[rnd.Intn(len(lines))], lines[rnd.Intn(len(lines))]
		i, j := rnd.Intn(len(a)+1), rnd.Intn(len(b)+1)
		l := a[:i] + b[j:]
		if rnd.Intn(2) == 0 {
			k := rnd.Intn(len(l) + 1)
			l = l[:k] + string("0 ]()=,\nTx"[rnd.Intn(10)]) + l[k:]
		}
		check(l)
		check(strings.Repeat(l, 2))
	}
}
