package gemm

import "testing"

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
