package wasmhost

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
)

// A warm start of a Go module allocates some 10 MB that die young (the
// stand-in, wazero's decoded module and what it reads of its cache
// entry), which took the collector through two cycles of a run that
// lasts tens of milliseconds. A cycle that overlaps the plugin's code
// costs far more than its marking: the collector must stop every
// goroutine to scan its stack, and the one running compiled wasm code
// stops only at its next host call, so the collector spins and signals
// it until then (runtime.suspendG: about a tenth of a warm run's CPU in
// perf). So, while a plugin runs, the collector waits for the heap to
// grow by runHeadroom over what it was when the first run began, rather
// than for it to double (GOGC): a run of a plugin that allocates little
// in the host is never interrupted; one that streams is collected every
// runHeadroom of garbage, which is less often than GOGC would. The bound
// is a soft limit (debug.SetMemoryLimit); under a limit already set
// (GOMEMLIMIT) that is tighter, nothing changes. The plugin's own memory
// is not Go's heap (memory.go) and counts against Limits.Memory alone.
// Both settings are restored when the last run in the process ends.
//
// What the hold costs in memory is runHeadroom of uncollected garbage at
// most. A host that keeps more than runHeadroom alive during a run (an
// exec result of tens of MB) makes the collector run often until the run
// ends, with at most half the CPU (the runtime's own limiter): the cost of
// a bound.
const runHeadroom = 64 << 20

var gcHold struct {
	sync.Mutex
	runs    int   // runs under way
	held    bool  // whether the first changed the settings
	percent int   // GOGC before the first
	limit   int64 // the memory limit before the first
}

// holdGC raises the collector's target for a run (see runHeadroom) and
// returns the function that ends the hold: call it once, when the run
// has ended.
func holdGC() (release func()) {
	gcHold.Lock()
	defer gcHold.Unlock()
	if gcHold.runs == 0 {
		// No hold without a bound, nor under a limit already tighter
		// (the collector would run all the time to keep under it).
		limit := debug.SetMemoryLimit(-1)
		used, ok := goMemory()
		gcHold.held = ok && used <= limit-runHeadroom
		if gcHold.held {
			gcHold.limit = debug.SetMemoryLimit(used + runHeadroom)
			gcHold.percent = debug.SetGCPercent(-1)
		}
	}
	gcHold.runs++
	var once sync.Once
	return func() {
		once.Do(func() {
			gcHold.Lock()
			defer gcHold.Unlock()
			if gcHold.runs--; gcHold.runs == 0 && gcHold.held {
				debug.SetGCPercent(gcHold.percent)
				debug.SetMemoryLimit(gcHold.limit)
			}
		})
	}
}

// goMemory is the memory the Go runtime holds, as its memory limit counts
// it: all it has mapped, less the heap it has returned to the system. It
// reads runtime.MemStats (a pause of microseconds, once a run) rather than
// runtime/metrics, whose package initialisation cost every fledge start
// 0.1 ms and 95 allocations for this one figure.
func goMemory() (int64, bool) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.Sys < m.HeapReleased {
		return 0, false
	}
	return int64(min(m.Sys-m.HeapReleased, math.MaxInt64)), true
}
