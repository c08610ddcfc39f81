//go:build amd64 && !purego

package vec

func normxAsmImpls() []normxImpl {
	if !hasAVX2 {
		return nil
	}
	return []normxImpl{{"avx2", normAffineAVX2, normBackXFromAVX2}}
}
