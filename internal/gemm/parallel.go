package gemm

import (
	"runtime"
	"sync"
)

// ForEach calls f(i) for i in [0, n), spread over up to GOMAXPROCS
// goroutines in contiguous chunks when work, an estimate of the operations
// of all n calls, is large enough to pay for them. The calls must write
// disjoint memory: then the result does not depend on the split, and is
// the serial loop's bit for bit.
func ForEach(n, work int, f func(i int)) {
	const minWork = 1 << 16 // below this, a goroutine costs more than it saves
	p := min(runtime.GOMAXPROCS(0), n, work/minWork)
	if p <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	for k := 1; k < p; k++ {
		lo, hi := k*n/p, (k+1)*n/p
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				f(i)
			}
		}()
	}
	for i := 0; i < n/p; i++ {
		f(i)
	}
	wg.Wait()
}

// ForRange splits [0, n) into up to GOMAXPROCS contiguous ranges of at
// least minLen elements each and calls f on each, concurrently. The calls
// must write disjoint memory: then the result is the serial call's
// f(0, n), bit for bit.
func ForRange(n, minLen int, f func(lo, hi int)) {
	p := min(runtime.GOMAXPROCS(0), n/max(minLen, 1))
	if p <= 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for k := 1; k < p; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(k*n/p, (k+1)*n/p)
		}()
	}
	f(0, n/p)
	wg.Wait()
}
