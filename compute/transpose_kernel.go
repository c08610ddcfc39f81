package compute

import "sync"

// The layout kernels of the convolutions: the product of a convolution
// has the columns of all images side by side (a C × N·P matrix), the
// images have their planes one after the other (N×C×P).

// scatter sets dst[b][c][p] = src[c][b·P+p] + bias[c] (bias may be nil).
func scatter[T Float](dst, src []T, n, c, p int, bias []T) {
	// Images write disjoint parts of dst: split them across the cores.
	j := getTranspose(dst, src, bias, n, c, p)
	ForEaches(n, n*c*p, (*scatterJob[T])(j))
	j.put()
}

// gather sets dst[c][b·P+p] = src[b][c][p].
func gather[T Float](dst, src []T, n, c, p int) {
	j := getTranspose(dst, src, nil, n, c, p)
	ForEaches(n, n*c*p, (*gatherJob[T])(j))
	j.put()
}

// A transpose is the arguments of a scatter or gather call between n
// images of c planes of p values and a c × n·p matrix, for their loop
// bodies (an image each). The workers that run those keep a pointer to
// it, so that a transpose on the stack would be allocated at every call:
// the calls take them from a pool instead.
type transpose[T Float] struct {
	dst, src, bias []T
	n, c, p        int
	q              *Rounder // rounds dst as it is written (round_fused.go), or nil
}

// getTranspose returns a transpose from the pool for the arguments of a
// call.
func getTranspose[T Float](dst, src, bias []T, n, c, p int) *transpose[T] {
	j, ok := transposePool[T]().Get().(*transpose[T])
	if !ok {
		j = new(transpose[T])
	}
	*j = transpose[T]{dst: dst, src: src, bias: bias, n: n, c: c, p: p}
	return j
}

// put returns j to the pool, holding none of the caller's slices.
func (j *transpose[T]) put() {
	*j = transpose[T]{}
	transposePool[T]().Put(j)
}

var transposes typedPools // *transpose[T]

// transposePool returns the pool of transposes of element type T.
func transposePool[T Float]() *sync.Pool { return poolOf[T](&transposes) }

// typedPools holds a pool of values for each element type: a generic
// job's or buffer's pool for float32 and for float64.
type typedPools struct{ f32, f64 sync.Pool }

// poolOf returns ps's pool for element type T.
func poolOf[T Float](ps *typedPools) *sync.Pool {
	if _, ok := any(T(0)).(float32); ok {
		return &ps.f32
	}
	return &ps.f64
}

// scatterJob is scatter's image b.
type scatterJob[T Float] transpose[T]

func (j *scatterJob[T]) Each(b int) {
	n, c, p := j.n, j.c, j.p
	img := j.dst[b*c*p : (b+1)*c*p]
	done := 0 // img[:done] is rounded (j.q not nil)
	for ch := 0; ch < c; ch++ {
		d := img[ch*p : (ch+1)*p]
		s := j.src[ch*n*p+b*p : ch*n*p+(b+1)*p]
		switch {
		case j.bias == nil && j.q != nil && p >= roundRun:
			// Rounded as it is moved: one pass.
			RoundSlice(j.q, d, s)
			done = (ch + 1) * p
			continue
		case j.bias == nil:
			copy(d, s)
		default:
			v := j.bias[ch]
			for i, x := range s {
				d[i] = x + v
			}
		}
		// Rounded after the bias is added, by runs of planes still in
		// cache, long enough for the rounding kernel's start-up cost.
		if e := (ch + 1) * p; j.q != nil && e-done >= roundRun {
			RoundSlice(j.q, img[done:e], img[done:e])
			done = e
		}
	}
	if j.q != nil && done < len(img) {
		RoundSlice(j.q, img[done:], img[done:])
	}
}

// roundRun is the fewest values the fused roundings round at a call
// where they can: a rounding kernel's set-up costs as much as rounding
// a few hundred values, and 8192 float32 values fit in a core's L2 cache
// with their source.
const roundRun = 8192

// gatherJob is gather's image b.
type gatherJob[T Float] transpose[T]

func (j *gatherJob[T]) Each(b int) {
	n, c, p := j.n, j.c, j.p
	for ch := 0; ch < c; ch++ {
		copy(j.dst[ch*n*p+b*p:ch*n*p+(b+1)*p], j.src[(b*c+ch)*p:(b*c+ch+1)*p])
	}
}

// gatherRoundJob is gather's row ch of the matrix (plane ch of every
// image), rounded by j.q as it is written: the row is contiguous, so that
// it can be rounded in runs of roundRun values still in cache (a plane
// may hold only a few values, and a rounding kernel's set-up costs as
// much as rounding hundreds).
type gatherRoundJob[T Float] transpose[T]

func (j *gatherRoundJob[T]) Each(ch int) {
	n, c, p := j.n, j.c, j.p
	row := j.dst[ch*n*p : (ch+1)*n*p]
	done := 0 // row[:done] is rounded
	for b := 0; b < n; b++ {
		d, s := row[b*p:(b+1)*p], j.src[(b*c+ch)*p:(b*c+ch+1)*p]
		if p >= roundRun {
			RoundSlice(j.q, d, s) // rounded as it is moved: one pass
			done = (b + 1) * p
			continue
		}
		copy(d, s)
		if e := (b + 1) * p; e-done >= roundRun {
			RoundSlice(j.q, row[done:e], row[done:e])
			done = e
		}
	}
	if done < len(row) {
		RoundSlice(j.q, row[done:], row[done:])
	}
}
