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
	fanOut(n, p, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f(i)
		}
	})
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
	fanOut(n, p, f)
}

// fanOut calls f on p > 1 contiguous ranges of [0, n), the first on this
// goroutine and each other on its own, and waits for them all.
func fanOut(n, p int, f func(lo, hi int)) {
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
