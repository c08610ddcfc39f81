//go:build amd64 && !purego

package vec

// normImpls returns the norm kernels this machine can run, as impls does.
func normImpls() []normImpl {
	is := []normImpl{normGoImpl, normDispatchImpl}
	if hasAVX2 {
		is = append(is, normImpl{"avx2", normForwardAVX2, normBackXAVX2})
	}
	return is
}
