package gemm

import (
	"runtime"
	"sync"
	"testing"
)

// ForEach calls f once for every index, serially or split, whatever the
// work estimate.
func TestForEach(t *testing.T) {
	for _, c := range []struct{ n, work int }{{0, 1 << 30}, {1, 1 << 30}, {7, 1}, {7, 1 << 30}, {64, 1 << 20}, {3, 1 << 17}} {
		hits := make([]int, c.n)
		ForEach(c.n, c.work, func(i int) { hits[i]++ })
		for i, h := range hits {
			if h != 1 {
				t.Errorf("n %d, work %d: index %d called %d times", c.n, c.work, i, h)
			}
		}
	}
}

// rangeFunc is a function as a Ranger.
type rangeFunc func(lo, hi int)

func (f rangeFunc) Range(lo, hi int) { f(lo, hi) }

// ForRanges covers [0, n) once, in as many ranges of at least minLen as
// the cores allow (at most 4 here), or in one call.
func TestForRanges(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []struct{ n, minLen, ranges int }{
		{0, 1, 0}, {1, 1, 1}, {7, 1, 4}, {7, 100, 1}, {1000, 10, 4}, {1001, 250, 4}, {999, 250, 3}, {5, 0, 4},
	} {
		var mu sync.Mutex
		hits, calls, shortest := make([]int, c.n), 0, c.n
		ForRanges(c.n, c.minLen, rangeFunc(func(lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			shortest = min(shortest, hi-lo)
			for i := lo; i < hi; i++ {
				hits[i]++
			}
		}))
		if calls > 1 && shortest < c.minLen {
			t.Errorf("n %d, minLen %d: a range of %d values, shorter than minLen", c.n, c.minLen, shortest)
		}
		for i, h := range hits {
			if h != 1 {
				t.Errorf("n %d, minLen %d: index %d covered %d times", c.n, c.minLen, i, h)
			}
		}
		if calls != c.ranges {
			t.Errorf("n %d, minLen %d: %d ranges, want %d", c.n, c.minLen, calls, c.ranges)
		}
	}
}
