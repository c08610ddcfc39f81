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
	if dd, ok := any(d).([]float32); ok && padRowsFast(dd[g.PH*wp:(g.PH+g.H)*wp], wp, any(s).([]float32), g.W, g.H, g.PW) {
		return
	}
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
