package gemm

import "unsafe"

// Padded returns the geometry of g's images with their padding made part
// of them (PadImages): H+2·PH by W+2·PW pixels and no padding. Its column
// matrix is that of g, and so are OH and OW.
func Padded(g Geom) Geom {
	g.H, g.W = g.H+2*g.PH, g.W+2*g.PW
	g.PH, g.PW = 0, 0
	return g
}

// PadImages sets dst to the n images of src (n×C×H×W) with g's padding
// of zeros around each channel: n×C×(H+2·PH)×(W+2·PW), the images of
// Padded(g), spread over goroutines by ForEaches. Without padding it
// copies src.
func PadImages[T Float](dst, src []T, n int, g Geom) {
	hp, wp := g.H+2*g.PH, g.W+2*g.PW
	if n < 0 || len(src) < n*g.C*g.H*g.W || len(dst) < n*g.C*hp*wp {
		panic("gemm: pad: slice too short")
	}
	if g.PH == 0 && g.PW == 0 {
		copy(dst, src[:n*g.C*g.H*g.W])
		return
	}
	b := getBatch(dst, src, n, g)
	ForEaches(n*g.C, n*g.C*hp*wp, (*padPlanes[T])(b))
	b.put()
}

// A Finisher finishes a part of an output in place, right after a kernel
// wrote it and while it is still in cache (a rounding, for one). Its
// Finish is called concurrently on disjoint parts.
type Finisher[T Float] interface{ Finish(d []T) }

// PadImagesThen is PadImages followed by f.Finish on runs of whole padded
// planes, padding included, each called right after its planes are
// written, while they are in cache: runs of consecutive planes of at least
// FinishRun values (or the last planes of a goroutine's share). A Finisher
// that maps each element to a value of its own, and +0 to +0, gives the
// bits of finishing src before padding it, in one pass over memory instead
// of two.
func PadImagesThen[T Float](dst, src []T, n int, g Geom, f Finisher[T]) {
	hp, wp := g.H+2*g.PH, g.W+2*g.PW
	if n < 0 || len(src) < n*g.C*g.H*g.W || len(dst) < n*g.C*hp*wp {
		panic("gemm: pad: slice too short")
	}
	b := getBatch(dst, src, n, g)
	b.fin = f
	ForRanges(n*g.C, max(minWork/max(hp*wp, 1), 1), (*padFinish[T])(b))
	b.put()
}

// FinishRun is the fewest values PadImagesThen finishes at a call, where
// it can: a rounding kernel's set-up costs as much as rounding a few
// hundred values, and 8192 float32 values still fit in a core's L2 cache
// with their source.
const FinishRun = 8192

// padFinish pads planes [lo, hi) of the batch and finishes them by runs.
type padFinish[T Float] batch[T]

func (b *padFinish[T]) Range(lo, hi int) {
	g := b.g
	ps := (g.H + 2*g.PH) * (g.W + 2*g.PW)
	start := lo
	for k := lo; k < hi; k++ {
		(*padPlanes[T])(b).Each(k)
		if (k+1-start)*ps >= FinishRun || k == hi-1 {
			b.fin.Finish(b.dst[start*ps : (k+1)*ps])
			start = k + 1
		}
	}
}

// padPlanes pads channel k of the batch's images (k counting across
// images).
type padPlanes[T Float] batch[T]

func (b *padPlanes[T]) Each(k int) {
	g := b.g
	hp, wp := g.H+2*g.PH, g.W+2*g.PW
	s := b.src[k*g.H*g.W : (k+1)*g.H*g.W]
	d := b.dst[k*hp*wp : (k+1)*hp*wp]
	clear(d[:g.PH*wp])
	clear(d[(g.PH+g.H)*wp:])
	if dd, ok := any(d).([]float32); !ok || !padRowsFast(dd[g.PH*wp:(g.PH+g.H)*wp], wp, any(s).([]float32), g.W, g.H, g.PW) {
		padRows(d, s, g, wp)
	}
}

// padRows is padPlanes' loop in Go: the rows of the image s into the
// padded plane d, wp values a row, with their left and right padding.
func padRows[T Float](d, s []T, g Geom, wp int) {
	// Element by element through pointers, the bounds checked above: a
	// clear, a memmove and a clear per row of 7 to 28 pixels took twice
	// as long.
	// Pointers are formed from the slices' starts at each row, never
	// moved past their ends.
	size := unsafe.Sizeof(T(0))
	s0, d0 := unsafe.Pointer(unsafe.SliceData(s)), unsafe.Pointer(unsafe.SliceData(d))
	pw, w := uintptr(g.PW), uintptr(g.W)
	for y := range g.H {
		dp := unsafe.Add(d0, uintptr((g.PH+y)*wp)*size) // the padded row
		sp := unsafe.Add(s0, uintptr(y*g.W)*size)
		for i := range pw {
			*(*T)(unsafe.Add(dp, i*size)) = 0
		}
		dq := unsafe.Add(dp, pw*size) // the image's part of it
		for i := range w {
			*(*T)(unsafe.Add(dq, i*size)) = *(*T)(unsafe.Add(sp, i*size))
		}
		if pw > 0 {
			dr := unsafe.Add(dq, w*size) // its right padding
			for i := range pw {
				*(*T)(unsafe.Add(dr, i*size)) = 0
			}
		}
	}
}
