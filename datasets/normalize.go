package datasets

// toUnit maps an 8-bit pixel p to p/127.5 - 1 = (2p - 255)/255 rounded to
// the nearest float32. The float64 quotient is rounded again to float32;
// TestToUnit checks every entry against the exact rational (math/big).
var toUnit = func() (t [256]float32) {
	for p := range t {
		t[p] = float32(float64(2*p-255) / 255)
	}
	return t
}()

// normalize sets dst[i] = toUnit[src[i]]. len(dst) == len(src).
func normalize(dst []float32, src []uint8) {
	dst = dst[:len(src)]
	for i, p := range src {
		dst[i] = toUnit[p]
	}
}
