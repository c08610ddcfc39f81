package eval

// sumSqDiff returns Σ (a[i]-b[i])² accumulated in float64. len(b) must be
// at least len(a).
func sumSqDiff(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1 float64
	i := 0
	for ; i+1 < len(a); i += 2 {
		d0 := float64(a[i]) - float64(b[i])
		d1 := float64(a[i+1]) - float64(b[i+1])
		// float64(…) stops arm64 fusing the multiply-adds: same bits as amd64.
		s0 += float64(d0 * d0)
		s1 += float64(d1 * d1)
	}
	if i < len(a) {
		d := float64(a[i]) - float64(b[i])
		s0 += float64(d * d)
	}
	return s0 + s1
}
