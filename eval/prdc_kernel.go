package eval

import (
	"math"
	"sync"
)

// The blocking of distanceRows: distRowBlock rows of a are measured
// against a block of b's rows of about distColBytes, which stays in cache
// while they are.
const (
	distRowBlock = 16
	distColBytes = 64 << 10
)

// distanceRows calls row(w, i, dist) for every row i of a (na×d, row
// major), in order within each worker, where dist[j] is the Euclidean
// distance between row i of a and row j of b and w < workers is the
// worker calling. The rows of a are split into contiguous ranges, one a
// worker; a worker holds distRowBlock rows of distances at a time. row
// may write only memory of row i or of worker w. Every distance is summed
// in the same order whatever the split, so the values do not depend on
// workers.
func distanceRows(a, b []float64, d, workers int, row func(w, i int, dist []float64)) {
	na, nb := len(a)/d, len(b)/d
	workers = max(1, min(workers, na))
	cols := max(4, distColBytes/(8*d)/4*4)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*na/workers, (w+1)*na/workers
		wg.Go(func() {
			buf := make([]float64, distRowBlock*nb)
			for i0 := lo; i0 < hi; i0 += distRowBlock {
				i1 := min(i0+distRowBlock, hi)
				for j0 := 0; j0 < nb; j0 += cols {
					j1 := min(j0+cols, nb)
					for i := i0; i < i1; i++ {
						distances(buf[(i-i0)*nb+j0:(i-i0)*nb+j1], a[i*d:(i+1)*d], b[j0*d:j1*d])
					}
				}
				for i := i0; i < i1; i++ {
					row(w, i, buf[(i-i0)*nb:(i-i0+1)*nb])
				}
			}
		})
	}
	wg.Wait()
}

// distances sets dst[j] to the Euclidean distance between x and row j of
// ys (len(dst) rows of len(x) values), four rows at a time. Each
// distance is the square root of the squared differences summed in
// index order, whichever path computes it; the explicit float64
// conversions forbid fusing the multiply into the add (which the Go spec
// allows, and some architectures would do), so the bits are the same on
// every machine.
func distances(dst, x, ys []float64) {
	d := len(x)
	j := 0
	for ; j+4 <= len(dst); j += 4 {
		// Slices of len(x), so that the loop needs no bounds checks.
		y0, y1, y2, y3 := ys[j*d:][:d], ys[(j+1)*d:][:d], ys[(j+2)*d:][:d], ys[(j+3)*d:][:d]
		var s0, s1, s2, s3 float64
		for k, v := range x {
			t0, t1, t2, t3 := v-y0[k], v-y1[k], v-y2[k], v-y3[k]
			s0 += float64(t0 * t0)
			s1 += float64(t1 * t1)
			s2 += float64(t2 * t2)
			s3 += float64(t3 * t3)
		}
		dst[j], dst[j+1], dst[j+2], dst[j+3] = math.Sqrt(s0), math.Sqrt(s1), math.Sqrt(s2), math.Sqrt(s3)
	}
	for ; j < len(dst); j++ {
		dst[j] = distance(x, ys[j*d:(j+1)*d])
	}
}

// distance is the Euclidean distance between x and y, summed as
// distances sums it.
func distance(x, y []float64) float64 {
	y = y[:len(x)]
	var s float64
	for k, v := range x {
		t := v - y[k]
		s += float64(t * t)
	}
	return math.Sqrt(s)
}

// selfTile is the side of the tiles of selfSmallest.
const selfTile = 64

// selfSmallest returns, for every row i of a (n×d, row major), the k
// smallest of its distances to every row of a, itself included, in
// ascending order, as row i of an n×k slice. Distances are symmetric, so
// only the tiles on and above the diagonal are computed, each giving its
// values to the rows of both its sides; the tiles are dealt to workers in
// turn, each keeping its own k smallest per row, which are then merged.
// The k smallest of a multiset do not depend on the order they are met
// in, so the result does not depend on workers.
func selfSmallest(a []float64, d, k, workers int) []float64 {
	n := len(a) / d
	nt := (n + selfTile - 1) / selfTile
	type tile struct{ bi, bj int }
	var tiles []tile
	for bi := range nt {
		for bj := bi; bj < nt; bj++ {
			tiles = append(tiles, tile{bi, bj})
		}
	}
	workers = max(1, min(workers, len(tiles)))
	tops := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		top := make([]float64, n*k)
		for i := range top {
			top[i] = math.Inf(1)
		}
		tops[w] = top
		wg.Go(func() {
			buf := make([]float64, selfTile*selfTile)
			for t := w; t < len(tiles); t += workers {
				i0, j0 := tiles[t].bi*selfTile, tiles[t].bj*selfTile
				i1, j1 := min(i0+selfTile, n), min(j0+selfTile, n)
				cols := j1 - j0
				for i := i0; i < i1; i++ {
					row := buf[(i-i0)*cols : (i-i0+1)*cols]
					distances(row, a[i*d:(i+1)*d], a[j0*d:j1*d])
					ti := top[i*k : (i+1)*k]
					for _, v := range row {
						insertSorted(ti, v)
					}
					if i0 == j0 {
						continue // the diagonal tile holds both (i, j) and (j, i)
					}
					for jj, v := range row {
						insertSorted(top[(j0+jj)*k:(j0+jj+1)*k], v)
					}
				}
			}
		})
	}
	wg.Wait()
	out := tops[0]
	merged := make([]float64, 0, workers*k)
	for i := range n {
		merged = merged[:0]
		for _, top := range tops {
			merged = append(merged, top[i*k:(i+1)*k]...)
		}
		copy(out[i*k:(i+1)*k], smallest(nil, merged, k))
	}
	return out
}

// insertSorted puts v into top, ascending, if it is smaller than top's
// largest value, which drops out.
func insertSorted(top []float64, v float64) {
	i := len(top) - 1
	if !(v < top[i]) {
		return
	}
	for i > 0 && top[i-1] > v {
		top[i] = top[i-1]
		i--
	}
	top[i] = v
}
