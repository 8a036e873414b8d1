package pairwise

import (
	"runtime"
	"sync"
)

// procs widens GOMAXPROCS to every CPU while a tcp bandwidth test runs
// in a process that otherwise runs Go code on fewer (the agent runs on
// one, as node_exporter does by default): streams side by side need a
// core each, or the test measures the process, not the link. Tests that
// overlap share one widening; the last to finish restores the setting.
var procs struct {
	sync.Mutex
	n    int // tests running
	prev int // GOMAXPROCS before the first of them
}

// widen raises GOMAXPROCS to runtime.NumCPU() (when it is lower) until
// the returned function is called.
func widen() (restore func()) {
	procs.Lock()
	defer procs.Unlock()
	if procs.n == 0 {
		procs.prev = runtime.GOMAXPROCS(0)
		if cpus := runtime.NumCPU(); cpus > procs.prev {
			runtime.GOMAXPROCS(cpus)
		}
	}
	procs.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			procs.Lock()
			defer procs.Unlock()
			if procs.n--; procs.n == 0 && runtime.GOMAXPROCS(0) != procs.prev {
				runtime.GOMAXPROCS(procs.prev)
			}
		})
	}
}
