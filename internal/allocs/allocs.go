// Package allocs counts heap allocations for tests of code that splits
// its work across goroutines: testing.AllocsPerRun sets GOMAXPROCS to 1
// while it counts, so nothing would split.
package allocs

import "runtime"

// PerRun returns the average number of heap allocations, by any
// goroutine, of runs calls of f after a first (warm-up) call, at the
// current GOMAXPROCS.
func PerRun(runs int, f func()) uint64 {
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.Mallocs - before.Mallocs) / uint64(runs)
}
